//===- Pipeline.h - The tile-dialect-to-PTX pipeline ------------*- C++ -*-===//
//
// One function builds the GPU pipeline every tool runs (phobos-opt
// --phobos-to-nvvm, phobos-translate --phobos-to-ptx, phobos-compile), and
// one serialises the result to PTX with LLVM's NVPTX back end.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TARGET_PIPELINE_H
#define PHOBOS_TARGET_PIPELINE_H

#include "Phobos/Support/Chips.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace phobos {

struct PhobosToNVVMOptions
    : public mlir::PassPipelineOptions<PhobosToNVVMOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("The GPU to compile for (sm_80, "
                                          "sm_90, ...)"),
                           llvm::cl::init("sm_90")};
  Option<int64_t> fmaKUnroll{
      *this, "fma-k-unroll",
      llvm::cl::desc("Reduction steps per iteration of an FMA dot's rolled K "
                     "loop (0: unroll the whole K slice); "
                     "$PHOBOS_FMA_K_UNROLL overrides it"),
      llvm::cl::init(0)};
  Option<bool> synchronousDots{
      *this, "synchronous-dots",
      llvm::cl::desc("Keep no dot in flight: leave tile-defer-dots out and "
                     "run tile-pipeline with dots-in-flight=false (fewer "
                     "registers; $PHOBOS_SYNC_DOTS overrides it)"),
      llvm::cl::init(false)};
  Option<bool> asyncStaging{
      *this, "async-staging",
      llvm::cl::desc("Stage the dot operands a loop's registers carry to "
                     "shared memory by asynchronous copies instead "
                     "(tile-async-staging; $PHOBOS_ASYNC_STAGING overrides "
                     "it)"),
      llvm::cl::init(false)};
  Option<int64_t> wgmmaFragmentSteps{
      *this, "wgmma-fragment-steps",
      llvm::cl::desc("k-steps of a swap_ab wgmma dot issued per group, each "
                     "loading its own register fragments (0: one group); "
                     "$PHOBOS_WGMMA_FRAGMENT_STEPS overrides it"),
      llvm::cl::init(0)};
};

/// $PHOBOS_FMA_K_UNROLL, when set to a step count: it overrides the
/// pipeline's fma-k-unroll, for A/B measurements (the compiler version
/// names it).
std::optional<int64_t> getFmaKUnrollOverride();

/// $PHOBOS_SYNC_DOTS, when 0 or 1: it overrides the pipeline's
/// synchronous-dots, for A/B measurements (the compiler version names it).
std::optional<bool> getSyncDotsOverride();

/// $PHOBOS_ASYNC_STAGING, when 0 or 1: it overrides the pipeline's
/// async-staging, for A/B measurements (the compiler version names it).
std::optional<bool> getAsyncStagingOverride();

/// $PHOBOS_LEAN_ADDRESSES (0 or 1), for A/B measurements: whether every
/// kernel's PTX comes from PTXEmitter's lean addresses (32-bit shared
/// pointers, no loop strength reduction); nullopt when unset, and then
/// they are a relief for kernels that spill.
std::optional<bool> getLeanAddressesOverride();

/// $PHOBOS_KEEP_INVARIANTS (0 or 1), for A/B measurements: whether every
/// kernel's PTX comes from PTXEmitter with loop invariants kept in their
/// loops (no LICM in LLVM); nullopt when unset, and then that is a relief
/// for kernels that spill.
std::optional<bool> getKeepInvariantsOverride();

/// $PHOBOS_VERIFY_EACH (0 or 1): whether the compile path of the tools
/// (KernelCompiler) verifies the IR after every pass of the GPU pipeline,
/// as phobos-opt does. Unset or 0: it verifies the lowered module once, at
/// the end (the verifier between passes took a third of the MLIR passes'
/// time on the sgemm variants). The code is the same either way.
bool getVerifyEachPass();

/// $PHOBOS_WGMMA_FRAGMENT_STEPS, when set to a step count: it overrides the
/// pipeline's wgmma-fragment-steps, for A/B measurements (the compiler
/// version names it).
std::optional<int64_t> getWgmmaFragmentStepsOverride();

/// Tile clean-ups, MMA selection, layouts, shared memory, the lowering to
/// per-thread code and on to the llvm/nvvm dialects, and the check that
/// nothing else remains.
void buildPhobosToNVVMPipeline(mlir::OpPassManager &pm,
                               const PhobosToNVVMOptions &options);

/// Registers `--phobos-to-nvvm` with phobos-opt.
void registerPhobosToNVVMPipeline();

/// Registers what serialising to PTX needs (LLVM IR translations of the
/// llvm/nvvm/gpu dialects and the NVVM target).
void registerPTXTranslationInterfaces(mlir::DialectRegistry &registry);

/// PTX for every gpu.module kernel in `module` (which has been through the
/// pipeline), for `chip` (PTXEmitter.h). Errors are reported on the module.
mlir::FailureOr<std::string> serializeToPTX(mlir::ModuleOp module,
                                            llvm::StringRef chip);

} // namespace phobos

#endif // PHOBOS_TARGET_PIPELINE_H
