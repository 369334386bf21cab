//===- KernelCache.h - Compiled kernels on disk, shared by all launchers -*- C++ -*-===//
//
// The kernel cache holds compiled kernel variants (PTX, cubin, launch
// contract) on disk, keyed by the source, the kernel, the variant, the chip
// and the compiler's version, so that a kernel compiles once per chip
// whichever launcher (phobos-run, phobos-compile --cache, the Python
// package) asks first. docs/python.md describes the layout; the Python
// package reads and writes the same format.
//
// Writes are atomic: an entry is built in a staging directory and renamed
// into place, so readers see a whole entry or none, and processes racing to
// compile the same kernel are safe (the first rename wins; the others use
// it). Every file of an entry is listed in its manifest with its SHA-256; an
// entry that does not match is damaged, is removed and is rebuilt, never
// loaded.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_RUNTIME_KERNELCACHE_H
#define PHOBOS_RUNTIME_KERNELCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace phobos {

/// The compiler's version: a hash of its sources and the LLVM version.
llvm::StringRef compilerVersion();

/// `$PHOBOS_CACHE_DIR`, else `$XDG_CACHE_HOME/phobos`, else
/// `$HOME/.cache/phobos`; empty when none can be formed.
std::string defaultKernelCacheDir();

/// What identifies a compiled kernel variant.
struct KernelCacheKey {
  /// The whole source text the kernel was compiled from.
  std::string source;
  std::string kernel;
  /// Every @autotune name of the kernel with its value, in source order.
  std::vector<std::pair<std::string, int64_t>> variant;
  /// `sm_90`, ...; `contract` for an entry that holds only the contract.
  std::string chip;
  /// The @aligned promises a launch specialised the kernel with
  /// (specializeAlignment), sorted by name; empty for the general kernel.
  std::vector<std::pair<std::string, int64_t>> specialized;
  /// The places the kernel was written at beyond the source text, which the
  /// PTX's line info (`.file`, `.loc`) and the contract's `aligned_at` name:
  /// a digest of the files and lines of its ops (a `.ph` file's absolute
  /// path; the Python lines a span map gave). Empty: not keyed (a caller
  /// without locations).
  std::string places;
  /// Whether the PTX carries line info (CompileOptions::lineInfo).
  bool lineInfo = true;
  std::string compiler = compilerVersion().str();

  /// The hex SHA-256 of the key's fields (the layout is in docs/python.md).
  std::string digest() const;
};

/// A cache entry as read back.
struct KernelCacheEntry {
  std::string directory;
  /// The launch contract with `chip` (and `files`), as phobos-compile writes it.
  llvm::json::Value contract = nullptr;
  std::optional<std::string> ptx;
  std::optional<std::string> cubin;
};

class KernelCache {
public:
  explicit KernelCache(std::string root) : root(std::move(root)) {}

  const std::string &getRoot() const { return root; }
  /// `<root>/v1/<first two hex digits>/<digest>`.
  std::string entryDirectory(llvm::StringRef digest) const;

  /// The entry of `digest` when it is present and intact. A damaged entry
  /// (a file missing, changed or unreadable) is removed, and `damage` (when
  /// given) says what was wrong, so that the caller rebuilds it.
  std::optional<KernelCacheEntry> lookup(llvm::StringRef digest,
                                         std::string *damage = nullptr) const;

  /// Publishes an entry atomically. When another process published the same
  /// key first, its entry is returned instead.
  llvm::Expected<KernelCacheEntry>
  store(const KernelCacheKey &key, const llvm::json::Value &contract,
        std::optional<llvm::StringRef> ptx,
        std::optional<llvm::StringRef> cubin) const;

private:
  std::string root;
};

} // namespace phobos

#endif // PHOBOS_RUNTIME_KERNELCACHE_H
