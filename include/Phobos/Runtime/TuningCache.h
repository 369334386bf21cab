//===- TuningCache.h - Tuned variants on disk, by kernel, chip and shape -*- C++ -*-===//
//
// What the autotuner found, kept beside the compiled kernels in the kernel
// cache (`<root>/v1/tuning/`), so that the next launch of a kernel with the
// same problem shape on the same chip uses the winner without searching:
// phobos-run and the Python package look here when no variant is given,
// phobos-tune writes here. A record is one JSON file per key, written
// atomically (a temporary file renamed into place), so racing writers
// leave one whole record. docs/python.md describes the layout.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_RUNTIME_TUNINGCACHE_H
#define PHOBOS_RUNTIME_TUNINGCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace phobos {

/// What a tuned choice depends on.
struct TuningKey {
  /// The whole source text, as for KernelCacheKey.
  std::string source;
  std::string kernel;
  /// `sm_90`, ...; `interpreter` for choices made on the CPU interpreter.
  std::string chip;
  /// The problem's shape: every named tensor extent (dims bound at launch,
  /// and @autotune names that are extents), any order (sorted here).
  std::vector<std::pair<std::string, int64_t>> dims;
  std::string compiler;
  /// The search timed the general kernels (`--no-specialize`), not the ones
  /// specialised for the extents that launches compile by default: another
  /// record, since the winner may differ.
  bool general = false;

  TuningKey();
  /// `M=4096,N=4096` in name order.
  std::string dimsText() const;
  /// The hex SHA-256 of the key's fields (the layout is in docs/python.md).
  std::string digest() const;
};

class TuningCache {
public:
  explicit TuningCache(std::string root) : root(std::move(root)) {}

  /// `<root>/v1/tuning/<first two hex digits>/<digest>.json`.
  std::string recordPath(llvm::StringRef digest) const;

  /// The record of `key`, when one is present and names its key; a record
  /// that does not parse is removed.
  std::optional<llvm::json::Object> lookup(const TuningKey &key) const;

  /// The winner's @autotune values from a record, in the record's order.
  static std::optional<std::vector<std::pair<std::string, int64_t>>>
  variantOf(const llvm::json::Object &record);

  /// Writes `record` (the fields `format`, `key`, `kernel`, `chip`, `dims`
  /// and `compiler` are added) for `key`, atomically.
  llvm::Error store(const TuningKey &key, llvm::json::Object record) const;

private:
  std::string root;
};

} // namespace phobos

#endif // PHOBOS_RUNTIME_TUNINGCACHE_H
