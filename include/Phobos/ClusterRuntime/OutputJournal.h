//===- OutputJournal.h - What a cluster job has stored ----------*- C++ -*-===//
//
// A small text file beside a job's first output that records the output
// super-tiles its pods stored in the partial outputs, each with the XXH3-64
// of the bytes the pod wrote, so that a scheduler restarted on the same job
// and storage skips them (docs/cluster.md §13, "Resume"):
//
//   PHOBOS-JOURNAL v1
//   key 3f0c2a9e81d4b7c5
//   bindings TILE_K=256 TILE_M=128 TILE_N=128
//   partial C /data/.c.tensor.phobos-3f0c2a9e81d4b7c5.partial
//   stored 4 C 128,0 128,128 1d2e3f4a5b6c7d8e
//
// `key` names the job (its file, its kernel's source, the options that change
// the result and the identities of the files it reads); `bindings` the
// @cluster sizes the plan chose, which the resumed plan keeps so that tile
// ids mean the same tiles; `stored` a tile id, its tensor, offsets and shape
// in elements, and the checksum. A scheduler holds an exclusive lock
// (flock) on the journal while it runs the job. A resumed scheduler reads
// each stored tile back from the partial output and compares its checksum
// before it skips the tile's work, so a journal line whose bytes did not
// reach the file costs only that tile.
//
// No MLIR, no gRPC: phobos-sched uses it, the unit tests test it.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_CLUSTERRUNTIME_OUTPUTJOURNAL_H
#define PHOBOS_CLUSTERRUNTIME_OUTPUTJOURNAL_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace phobos::storage {

/// One output super-tile in a partial output.
struct JournalTile {
  uint32_t id = 0;
  std::string tensor;
  std::vector<int64_t> offsets, shape;
  /// XXH3-64 of its bytes, dense and row-major.
  uint64_t checksum = 0;
};

/// What a journal says.
struct JournalContents {
  std::string key;
  /// @cluster name -> size.
  std::map<std::string, int64_t> bindings;
  /// Output tensor name -> its partial file.
  std::map<std::string, std::string> partials;
  std::vector<JournalTile> stored;
  /// The last line had no newline (the writer died in the middle of it):
  /// it was left out.
  bool tornTail = false;
};

/// Parses a journal's text. Errors name `path` and the line
/// (`PATH:3: expected 'stored ID TENSOR OFFSETS SHAPE CHECKSUM', got ...`).
/// Empty text is an empty journal (a scheduler died before it wrote one).
absl::StatusOr<JournalContents> parseJournal(const std::string &text,
                                             const std::string &path);

/// The header lines of `contents` (without its stored tiles).
std::string journalHeader(const JournalContents &contents);
/// One `stored` line.
std::string journalLine(const JournalTile &tile);

/// A journal open for a job: locked while the object lives.
class OutputJournal {
public:
  /// Opens (creating) and locks `path`. Another process holding the lock
  /// (another scheduler on the same output) is an error naming the file.
  static absl::StatusOr<OutputJournal> lock(const std::string &path);

  OutputJournal() = default;
  OutputJournal(OutputJournal &&other) noexcept;
  OutputJournal &operator=(OutputJournal &&other) noexcept;
  OutputJournal(const OutputJournal &) = delete;
  OutputJournal &operator=(const OutputJournal &) = delete;
  ~OutputJournal();

  const std::string &path() const { return filePath; }
  /// What the file holds now (at most 64 MiB are read).
  absl::StatusOr<JournalContents> read() const;
  /// Replaces the contents with `contents` (header and stored tiles).
  absl::Status rewrite(const JournalContents &contents);
  /// Appends one stored tile (one write(2) of one line).
  absl::Status append(const JournalTile &tile);
  /// Removes the file and releases the lock (the job is over).
  void remove();

private:
  std::string filePath;
  int fd = -1;
};

} // namespace phobos::storage

#endif // PHOBOS_CLUSTERRUNTIME_OUTPUTJOURNAL_H
