//===- TensorStorage.h - Tensors in file:// storage -------------*- C++ -*-===//
//
// The cluster's storage: one file per tensor, row-major, little-endian, in
// one of two formats.
//
//  - raw: the elements and nothing else (the original implementation's
//    format; its job files name raw f32 files). The shape and element type
//    come from whoever reads it: the job file, or --shape/--dtype.
//  - header: a 64-byte text line first, then the same bytes as raw:
//
//      PHOBOS-TENSOR v1 dtype=f16 shape=3,4<spaces>\n
//
//    padded with spaces to a multiple of 64 bytes (so the data stays
//    aligned); any element type and any rank (`shape=` empty is rank 0).
//
// A file is read as header when it starts with "PHOBOS-TENSOR ", else as
// raw. Regions (super-tiles) are read and written in place with
// pread/pwrite, one contiguous run at a time. Errors name the file and say
// what is wrong (missing, too short, a shape that disagrees). No MLIR, no
// gRPC: phobos-tensor, phobos-pod and phobos-sched share it.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_CLUSTERRUNTIME_TENSORSTORAGE_H
#define PHOBOS_CLUSTERRUNTIME_TENSORSTORAGE_H

#include "Phobos/Support/Numerics.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

namespace phobos::storage {

enum class Format { Raw, Header };

/// What a tensor file holds and where its elements start.
struct TensorInfo {
  Format format = Format::Raw;
  ElementType element = ElementType::F32;
  std::vector<int64_t> shape;
  /// Bytes before the first element (0 for raw).
  int64_t dataOffset = 0;

  int64_t numElements() const;
  int64_t dataBytes() const;
  /// `f32 [256x256] (raw)`.
  std::string describe() const;
};

/// `file:///tmp/a.tensor` -> `/tmp/a.tensor`; a plain path is returned as
/// it is. Other schemes are errors.
absl::StatusOr<std::string> pathFromUri(absl::string_view uri);

/// `256x256` (`scalar` for rank 0).
std::string formatShape(const std::vector<int64_t> &shape);
/// Parses `256x256` (or `256,256`); extents must be positive.
absl::StatusOr<std::vector<int64_t>> parseShape(absl::string_view text);

/// The header line for `info` (padded to a multiple of 64 bytes).
std::string headerText(ElementType element, const std::vector<int64_t> &shape);

/// Reads what `path` holds. A header file describes itself; a raw file
/// needs `expected` (element type and shape) and must hold exactly that
/// many bytes. With both, they must agree. Errors: a missing or unreadable
/// file, a damaged header, a size that does not match (a truncated file).
absl::StatusOr<TensorInfo>
inspectFile(const std::string &path,
            std::optional<std::pair<ElementType, std::vector<int64_t>>>
                expected = std::nullopt);

/// An open tensor file for region reads and writes.
class TensorFile {
public:
  /// How writeRegion puts a box into the file.
  enum class WriteMethod {
    /// Through a mapping on the local file systems (tmpfs, ramfs, ext2/3/4,
    /// XFS, btrfs), pwrite elsewhere (NFS, FUSE, ...: there a mapping's
    /// writes reach other machines only at writeback). Resolved at open.
    Auto,
    /// pwrite(2), one call per contiguous run of the box.
    Syscall,
    /// memcpy into a shared mapping of the pages the box spans. Linux holds
    /// a file's inode lock for every write(2), so processes writing parts of
    /// one file take turns; page faults on a shared mapping do not.
    Mapping,
  };

  /// Opens an existing regular file whose layout `info` describes (from
  /// inspectFile); `writable` opens it for writing too (never creates).
  static absl::StatusOr<TensorFile> open(const std::string &path,
                                         const TensorInfo &info,
                                         bool writable,
                                         WriteMethod method = WriteMethod::Syscall);
  /// Creates (or replaces) `path` with `info`'s layout, every element zero.
  /// `exclusive`: only a new file (nothing there, not even a link), as the
  /// scheduler's partial outputs are.
  static absl::StatusOr<TensorFile> create(const std::string &path,
                                           const TensorInfo &info,
                                           bool exclusive = false);

  TensorFile() = default;
  TensorFile(TensorFile &&other) noexcept;
  TensorFile &operator=(TensorFile &&other) noexcept;
  TensorFile(const TensorFile &) = delete;
  TensorFile &operator=(const TensorFile &) = delete;
  ~TensorFile();

  const TensorInfo &info() const { return layout; }
  const std::string &path() const { return filePath; }
  /// The method writeRegion uses (never Auto).
  WriteMethod writeMethod() const { return method; }

  /// Reads the box at `offsets` (elements, per axis) of extents `shape`
  /// into `out`, densely, row-major.
  absl::Status readRegion(const std::vector<int64_t> &offsets,
                          const std::vector<int64_t> &shape, void *out) const;
  /// Writes the dense box `data` at `offsets`.
  absl::Status writeRegion(const std::vector<int64_t> &offsets,
                           const std::vector<int64_t> &shape,
                           const void *data) const;
  /// Reads or writes `bytes` of the data at byte `offset` (from the first
  /// element).
  absl::Status readBytes(int64_t offset, int64_t bytes, void *out) const;
  absl::Status writeBytes(int64_t offset, int64_t bytes,
                          const void *data) const;
  /// Flushes written data to the disk (fsync).
  absl::Status sync() const;

private:
  /// Calls `visit(fileByteOffset, regionByteOffset, bytes)` for every
  /// contiguous run of the box.
  template <typename Visit>
  absl::Status forEachRun(const std::vector<int64_t> &offsets,
                          const std::vector<int64_t> &shape,
                          Visit visit) const;

  /// A read that found fewer than `bytes` at `offset`: the file is shorter
  /// than when it was checked.
  absl::Status cutShort(int64_t bytes, int64_t offset) const;

  /// writeRegion through a shared mapping of the box's pages.
  absl::Status writeRegionMapped(const std::vector<int64_t> &offsets,
                                 const std::vector<int64_t> &shape,
                                 const char *data) const;

  int fd = -1;
  WriteMethod method = WriteMethod::Syscall;
  std::string filePath;
  TensorInfo layout;
};

/// One contiguous run of a box: its byte offset in the file, its offset in
/// the box's dense data, its length.
struct MappedRun {
  int64_t fileOffset = 0, dataOffset = 0, bytes = 0;
};

/// Copies `runs` from `data` into a shared mapping whose file offset 0 is at
/// `base`. A page the file system cannot back (it is full, or the file was
/// cut short meanwhile) raises SIGBUS on the first touch; here that ends the
/// copy and returns false instead of ending the process. The SIGBUS handler
/// is installed on the first call; a SIGBUS outside such a copy's mapped
/// bytes (or sent with kill) goes to the handler that was there before (or
/// the default action).
bool copyIntoMapping(char *base, const char *data,
                     const std::vector<MappedRun> &runs);

/// A deterministic pseudo-random value in [-1, 1) for element `index` of a
/// tensor filled with `seed` (counter-based, so a fill can run on any
/// number of threads and give the same bits). Multiples of 2^-23, exact in
/// f32.
double randomValue(uint64_t seed, uint64_t index);

/// The checksum the cluster uses for tiles and tensors: XXH3-64 of bytes.
uint64_t checksum(const void *data, size_t bytes);

} // namespace phobos::storage

#endif // PHOBOS_CLUSTERRUNTIME_TENSORSTORAGE_H
