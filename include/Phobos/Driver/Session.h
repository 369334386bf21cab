//===- Session.h - The front door: source to kernels to launches -*- C++ -*-===//
//
// The one path every entrance takes from Phobos source to something that
// runs: phobos-compile, phobos-run, phobos-sched (for the pods), the C API
// (include/phobos-c/Compiler.h) and, through it, the Python package.
//
//   getOrCompile: kernel cache lookup -> GPU pipeline -> PTX -> assembly
//                 with the spill-relief ladder -> kernel cache store
//   Session:      a program loaded once (text and span map), its variants
//                 compiled through getOrCompile or run on the interpreter,
//                 with every diagnostic captured at the user's line.
//
// docs/architecture.md ("The front door") draws the data flow.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DRIVER_SESSION_H
#define PHOBOS_DRIVER_SESSION_H

#include "Phobos/Driver/Compiler.h"
#include "Phobos/Interpreter/Interpreter.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace phobos {

namespace frontend {
class SpanMap;
} // namespace frontend

/// The chip name that builds a launch contract alone (no GPU pipeline).
inline constexpr llvm::StringLiteral kContractOnlyChip = "contract";

/// How a kernel variant is built and where it is kept: the caller's choices
/// on the compile path.
struct CompileOptions {
  /// The target ("sm_90a"), or kContractOnlyChip.
  std::string chip = "sm_90a";
  /// Assemble a cubin with ptxas where one is found (the PTX alone runs
  /// too: the CUDA driver compiles it).
  bool assemble = true;
  /// The ptxas to run; empty: findPtxas().
  std::string ptxas;
  /// The kernel cache's root; empty: nothing is looked up or stored.
  std::string cacheDir;
  /// A cache entry without a cubin is compiled again when a cubin can be
  /// made (the tuner times cubins); otherwise its PTX is used.
  bool needCubin = false;
  /// Assembles PTX in place of the ptxas process (the tuner's nvJitLink in
  /// process); empty: ptxas.
  std::function<llvm::Expected<std::string>(llvm::StringRef ptx,
                                            AssemblyReport *report)>
      assembler;
  /// The most shared memory a CTA may use; negative: no limit. A kernel that
  /// needs more stops before LLVM: no PTX, nothing assembled or stored
  /// (KernelBuild::sharedMemoryExceeded).
  int64_t sharedLimitBytes = -1;
  /// Line info in the PTX and the cubin: `.file`/`.loc` at the user's lines
  /// (the `.ph` file, or the Python lines of a span map), for
  /// compute-sanitizer, cuda-gdb and Nsight Compute. The same registers
  /// and spills; ptxas orders a few instructions otherwise in some kernels,
  /// and the cubin is about 3x larger (docs/debugging.md).
  bool lineInfo = true;
};

/// What names a kernel in the kernel cache beyond the kernel op itself.
struct BuildKey {
  /// The whole source text the kernel came from; empty: not cached.
  std::string source;
  /// The cache's name for the kernel when it is not the op's own (a cluster
  /// leaf: "leaf@cluster:matmul"); empty: the op's.
  std::string kernel;
  /// The @aligned promises specializeAlignment added, sorted by name.
  std::vector<std::pair<std::string, int64_t>> specialized;
};

/// One kernel variant, as the kernel cache holds it.
struct KernelBuild {
  /// The contract, the chip and the PTX (empty for a contract alone). The
  /// kernel of the cubin: a relieved one may have another contract.
  CompiledKernel kernel;
  std::optional<std::string> cubin;
  /// What ptxas reported of the cubin (built here, not read back).
  AssemblyReport report;
  /// The cache entry's directory; empty when not cached.
  std::string cacheEntry;
  bool fromCache = false;
  /// What a tool may print as notes (a damaged cache entry, rebuilt).
  std::vector<std::string> notes;
  /// Why ptxas made no cubin (the PTX still runs: the CUDA driver compiles
  /// it).
  std::string assemblyError;
  /// Why the build could not be stored in the cache (it is still usable).
  std::string storeError;
  /// Warnings printed while building, as a tool prints them (Session only).
  std::string diagnostics;
  /// The kernel needs more shared memory than CompileOptions allows.
  bool sharedMemoryExceeded = false;
  /// Where the time of a fresh build went: the pipeline, LLVM, and the
  /// assembly with its reliefs, in milliseconds.
  CompileTimings timings;
  double assembleMs = 0;
};

/// The one compile path: the kernel cache's entry for `kernel` (a bound,
/// specialised variant; not changed) when `options.cacheDir` holds an
/// intact one, else the GPU pipeline, PTX, assembly avoiding spills
/// (assembleAvoidingSpills with every available relief) and a cache store.
/// The pipeline's errors go to the kernel's context's diagnostic handler
/// and end in failure. `compiler`, when given, is reused (its pass managers
/// are built once); it must target `options.chip`.
mlir::FailureOr<KernelBuild> getOrCompile(tile::KernelOp kernel,
                                          const BuildKey &key,
                                          const CompileOptions &options,
                                          KernelCompiler *compiler = nullptr);

/// A failure a Session reports: every diagnostic as a tool prints it (at
/// the user's line, through the span map when there is one), and where the
/// first error is.
class SessionError : public llvm::ErrorInfo<SessionError> {
public:
  static char ID;
  SessionError(std::string message, std::string file = "", unsigned line = 0,
               unsigned column = 0)
      : message(std::move(message)), file(std::move(file)), line(line),
        column(column) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override;
  const std::string &getMessage() const { return message; }
  /// The first error's file, line and column; empty and 0 where it has
  /// none (a bad argument).
  const std::string &getFile() const { return file; }
  unsigned getLine() const { return line; }
  unsigned getColumn() const { return column; }

private:
  std::string message;
  std::string file;
  unsigned line, column;
};

/// A Phobos program loaded once: its kernels compiled through getOrCompile
/// or run on the interpreter, one variant at a time. Not thread-safe.
class Session {
public:
  Session();
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Loads `text` (called `fileName` in messages) in place of any earlier
  /// program and checks that it parses. With `spanMapJson` (SpanMap's JSON
  /// form), every message names the place the map gives.
  llvm::Error load(llvm::StringRef text, llvm::StringRef fileName,
                   llvm::StringRef spanMapJson = "");

  /// The names of the program's kernels, in source order.
  llvm::Expected<std::vector<std::string>> kernelNames();

  /// Kernel `kernel`'s @autotune space: each dimension's name and values as
  /// the language expands them (`[16, 8192]`: 16, 32, ..., 8192), in source
  /// order, the default first.
  llvm::Expected<std::vector<std::pair<std::string, std::vector<int64_t>>>>
  autotuneSpace(llvm::StringRef kernel);

  /// getOrCompile of the variant `variant` (@autotune values; the others
  /// take their first) of kernel `kernel`, specialised for the extents
  /// `specializeDims` (specializeAlignment; empty: the general kernel).
  /// A failure carries the diagnostics.
  llvm::Expected<KernelBuild>
  getOrCompile(llvm::StringRef kernel, const llvm::StringMap<int64_t> &variant,
               const llvm::StringMap<int64_t> &specializeDims,
               const CompileOptions &options);

  /// The variant a search stored in the tuning cache at `cacheDir` for
  /// kernel `kernel` of this program on `chip` ("interpreter" for the CPU)
  /// and the extents `dims` (`general`: a search of the general kernels), in
  /// @autotune order; an empty list when none is stored.
  llvm::Expected<std::vector<std::pair<std::string, int64_t>>>
  tunedVariant(llvm::StringRef kernel, llvm::StringRef chip,
               const llvm::StringMap<int64_t> &dims, bool general,
               llvm::StringRef cacheDir);

  /// Runs the variant on the interpreter over `options.grid` with `args`
  /// (in parameter order, checked against the contract by the caller). A
  /// run-time error is reported at the user's line. With `options.races`
  /// (the race check), the races found are collected there and also make
  /// the error: each at the user's lines of both accesses.
  llvm::Error interpret(llvm::StringRef kernel,
                        const llvm::StringMap<int64_t> &variant,
                        llvm::ArrayRef<interp::Argument> args,
                        const interp::Options &options);

  /// Runs `body` over the loaded program: its source manager (the text is
  /// the main buffer, named as loaded), the session's context and its span
  /// map (null without one). For what builds on the session beyond the
  /// driver (the visualizer, through the C API). A failure of `body`
  /// becomes a SessionError with the diagnostics it emitted, at the user's
  /// lines.
  llvm::Error
  withProgram(llvm::function_ref<mlir::LogicalResult(
                  llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
                  const frontend::SpanMap *spanMap)>
                  body);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Emits one race of the race check as an error at the later access, with
/// a note at the other (the tensor by its parameter's name in `contract`):
/// what phobos-run prints and what the session's error carries.
void reportRace(const LaunchContract &contract, const interp::Race &race);

} // namespace phobos

#endif // PHOBOS_DRIVER_SESSION_H
