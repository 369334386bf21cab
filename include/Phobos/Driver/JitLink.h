//===- JitLink.h - PTX to cubin inside the process ---------------*- C++
//-*-===//
//
// CUDA's nvJitLink library assembles PTX into a cubin as ptxas does, but in
// the calling process: no ptxas process per variant, no temporary files.
// It is opened at run time (like libcuda), so Phobos builds and runs
// without it; the autotuner's compile pool opens it once and falls back to
// ptxas when it is missing.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DRIVER_JITLINK_H
#define PHOBOS_DRIVER_JITLINK_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace phobos {

struct AssemblyReport;

/// An opened libnvJitLink (CUDA 13's entry points). Thread-safe: each
/// assembly has its own nvJitLink handle.
class JitLinker {
public:
  /// Opens the library: $PHOBOS_NVJITLINK if set, else libnvJitLink.so.13
  /// on the loader's path, else next to ptxas (`<cuda>/lib64`). Null, with
  /// the reason in `why`, when none opens or lacks an entry point.
  static std::unique_ptr<JitLinker> open(std::string *why = nullptr);
  ~JitLinker();

  /// The cubin of `ptx` for `chip` (`sm_90a`), or nvJitLink's error log.
  /// With `report`, ptxas's resource lines fill it (as `ptxas -v`); where
  /// nvJitLink has none (a cubin from CUDA's JIT cache), it assembles the
  /// PTX again with a comment that makes it new to the cache.
  llvm::Expected<std::string> assemble(llvm::StringRef ptx,
                                       llvm::StringRef chip,
                                       AssemblyReport *report = nullptr) const;

  /// The library file that was opened.
  const std::string &path() const { return libraryPath; }

private:
  JitLinker() = default;
  struct Api;
  void *library = nullptr;
  std::unique_ptr<Api> api;
  std::string libraryPath;
};

} // namespace phobos

#endif // PHOBOS_DRIVER_JITLINK_H
