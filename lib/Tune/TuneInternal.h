//===- TuneInternal.h - What the autotuner's parts share --------*- C++ -*-===//
//
// Private to lib/Tune: the problem's tensors, the compile workers and the
// backends that check and time a variant.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_TUNE_TUNEINTERNAL_H
#define PHOBOS_LIB_TUNE_TUNEINTERNAL_H

#include "Phobos/Runtime/HostTensor.h"
#include "Phobos/Runtime/LaunchContract.h"
#include "Phobos/Driver/JitLink.h"
#include "Phobos/Tune/Tuner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

namespace phobos::tile {
class KernelOp;
} // namespace phobos::tile

namespace phobos::tune {

//===----------------------------------------------------------------------===//
// Problems
//===----------------------------------------------------------------------===//

/// A problem made concrete for one contract: every tensor (inputs filled,
/// write-only outputs poisoned), every scalar, the dims.
struct Instance {
  std::vector<HostTensor> tensors; ///< by parameter index; scalars: empty
  llvm::StringMap<double> scalars;
  /// Integer scalars given exactly (Problem::integerScalars).
  llvm::StringMap<int64_t> integerScalars;
  LaunchContract::DimValues dims;
};

/// Fills `problem`'s tensors for `contract` (seeded), as phobos-run does.
llvm::Expected<Instance> instantiate(const LaunchContract &contract,
                                     const Problem &problem,
                                     const llvm::StringMap<double> &scalars,
                                     std::mt19937_64 &rng);

/// The grid of `variant` on `problem`.
llvm::Expected<std::array<int64_t, 3>>
gridFor(const LaunchContract &contract, const Problem &problem,
        const Variant &variant);

/// Why `contract` (one variant) cannot run on `dims`, or "".
std::string pruneReason(const LaunchContract &contract,
                        const llvm::StringMap<int64_t> &dims);

/// reference::ErrorMeasure's relative error over every element (infinite
/// for another shape, a mismatched infinity or NaN).
double maxRelativeError(const HostTensor &got, const HostTensor &expected);

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

/// One variant through the compile workers.
struct CompileOutcome {
  size_t index = 0;
  /// 1: after the front end (contract, pruning); 2: compiled or dropped.
  int stage = 1;
  std::string error;       ///< a compile error (front end, pipeline, ptxas)
  std::string pruned;      ///< why it cannot run here
  LaunchContract contract; ///< from the front end, then the compiled one
  bool reduced = false;
  std::string ptx;
  std::optional<std::string> cubin;
  bool cached = false;
  /// The @aligned promises the specialisation added (stage 2).
  std::vector<std::pair<std::string, int64_t>> specialized;
  double frontendMs = 0, passesMs = 0, llvmMs = 0, ptxasMs = 0, totalMs = 0;
};

/// Compiles variants on `jobs` threads, each with its own context and
/// KernelCompiler. Each variant is reported twice: after the front end
/// (contract, pruning) and when compiled (or dropped).
class CompilePool {
public:
  struct Config {
    std::string sourceFile, source, kernel, spanMapFile, chip, cacheDir;
    bool useCubin = true;
    llvm::StringMap<int64_t> dims;
    /// The extents each variant is specialised for (specializeAlignment);
    /// empty: the general kernels.
    llvm::StringMap<int64_t> specializeDims;
    /// Largest shared memory a CTA may have; negative: unlimited.
    int64_t sharedLimitBytes = -1;
    unsigned jobs = 1;
  };
  CompilePool(Config config, std::vector<Variant> variants);
  ~CompilePool();
  /// The in-process assembler the workers share (nvJitLink), or null when
  /// they start ptxas (no library, or the experiment assembler=ptxas).
  const JitLinker *jitLinker() const { return linker.get(); }
  /// The next report (stage 1 or 2), in completion order; nullopt when
  /// every variant has been reported in both stages.
  std::optional<CompileOutcome> next();

private:
  void work(unsigned worker);
  Config config;
  std::unique_ptr<JitLinker> linker;
  std::vector<Variant> variants;
  std::mutex mutex;
  std::condition_variable ready;
  size_t nextJob = 0;
  size_t reportsLeft;
  std::deque<CompileOutcome> done;
  std::vector<std::thread> threads;
};

//===----------------------------------------------------------------------===//
// Backends
//===----------------------------------------------------------------------===//

/// A variant loaded for running.
struct Loaded {
  virtual ~Loaded() = default;
  LaunchContract contract;
  Variant variant;
};

/// Where variants run: the GPU, or the interpreter standing in for it.
class Backend {
public:
  virtual ~Backend() = default;
  /// "gpu NVIDIA H200 (sm_90, 139 GiB)", "interpreter".
  virtual std::string describe() const = 0;
  /// The chip variants are compiled for and tuning records are kept under.
  virtual std::string chip() const = 0;
  /// Largest shared memory per CTA; negative: unlimited.
  virtual int64_t sharedLimitBytes() const = 0;
  virtual llvm::Expected<std::unique_ptr<Loaded>>
  load(const CompileOutcome &compiled, const Variant &variant,
       mlir::ModuleOp frontEnd) = 0;
  /// Runs once on `instance` (copied: the instance is not changed) and
  /// returns every tensor afterwards.
  virtual llvm::Expected<std::vector<HostTensor>>
  run(Loaded &loaded, const Instance &instance,
      std::array<int64_t, 3> grid) = 0;
  /// Registers per thread and spilled bytes, where the backend knows them.
  virtual std::optional<std::array<int, 2>> resources(Loaded &) {
    return std::nullopt;
  }
  /// Makes `instance` the timed problem (uploaded once).
  virtual llvm::Error prepareTiming(const Instance &instance) = 0;
  /// `repeat` timed runs after `warmup`, in milliseconds.
  virtual llvm::Expected<std::vector<double>>
  time(Loaded &loaded, std::array<int64_t, 3> grid, unsigned warmup,
       unsigned repeat, bool flushL2) = 0;
};

llvm::Expected<std::unique_ptr<Backend>> makeGpuBackend(llvm::StringRef chip);
std::unique_ptr<Backend> makeInterpreterBackend();

} // namespace phobos::tune

#endif // PHOBOS_LIB_TUNE_TUNEINTERNAL_H
