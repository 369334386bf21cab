//===- PassPipeline.h - The tile-dialect-to-PTX pass pipeline ---*- C++ -*-===//
//
// One function builds the GPU pipeline every tool runs (phobos-opt
// --phobos-to-nvvm, phobos-translate --phobos-to-ptx, phobos-compile), and
// one serialises the result to PTX with LLVM's NVPTX back end.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TARGET_PASSPIPELINE_H
#define PHOBOS_TARGET_PASSPIPELINE_H

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
                     "loop (0: unroll the whole K slice); the "
                     "experiment fma-k-unroll overrides it"),
      llvm::cl::init(0)};
  Option<bool> synchronousDots{
      *this, "synchronous-dots",
      llvm::cl::desc("Keep no dot in flight: leave tile-defer-dots out and "
                     "run tile-pipeline with dots-in-flight=false (fewer "
                     "registers; the experiment sync-dots overrides it)"),
      llvm::cl::init(false)};
  Option<bool> asyncStaging{
      *this, "async-staging",
      llvm::cl::desc("Stage the dot operands a loop's registers carry to "
                     "shared memory by asynchronous copies instead "
                     "(tile-async-staging; the experiment async-staging "
                     "overrides it)"),
      llvm::cl::init(false)};
  Option<int64_t> wgmmaFragmentSteps{
      *this, "wgmma-fragment-steps",
      llvm::cl::desc("k-steps of a swap_ab wgmma dot issued per group, each "
                     "loading its own register fragments (0: one group); "
                     "the experiment wgmma-fragment-steps overrides it"),
      llvm::cl::init(0)};
};

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

#endif // PHOBOS_TARGET_PASSPIPELINE_H
