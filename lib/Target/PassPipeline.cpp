//===- PassPipeline.cpp - The tile-dialect-to-PTX pass pipeline -----------===//

#include "Phobos/Target/PassPipeline.h"
#include "Phobos/Target/PTXEmitter.h"

#include "Phobos/Conversion/Passes.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"
#include "Phobos/Support/Chips.h"
#include "Phobos/Support/Experiments.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>

using namespace mlir;

/// The canonicalizer over per-thread code: an unrolled kernel is one block
/// of 10^4 to 10^5 ops, and the default top-down traversal revisits most of
/// them after every fold, which made it most of the MLIR pipeline's time.
/// Bottom-up folds operands before their users, so one sweep does nearly
/// all the work; the PTX of every example variant is byte-identical.
static std::unique_ptr<Pass> createPerThreadCanonicalizer() {
  GreedyRewriteConfig config;
  config.setUseTopDownTraversal(false);
  return createCanonicalizerPass(config);
}

/// Whether the experiment `without=` leaves the optional pass `name` out
/// (Support/Experiments.cpp lists the passes it may name).
static bool isPassDisabled(StringRef name) {
  return llvm::is_contained(phobos::getExperiments().disabledPasses, name);
}

void phobos::buildPhobosToNVVMPipeline(OpPassManager &pm,
                                       const PhobosToNVVMOptions &options) {
  // Tiles that cannot fit the chip fail first, before any pass spends
  // time on them.
  const ChipInfo *chipInfo = findChip(options.chip);
  int64_t chipSharedBytes = chipInfo ? chipInfo->sharedMemoryBytes : 232448;
  tile::TileCheckResourcesOptions resources;
  resources.maxSharedBytes = chipSharedBytes;
  // The CTA size of a kernel without @launch comes from its tiles, before
  // anything reads it.
  tile::TileChooseCtaOptions cta;
  cta.chip = options.chip;
  pm.addNestedPass<tile::KernelOp>(tile::createTileChooseCta(cta));
  pm.addNestedPass<tile::KernelOp>(tile::createTileCheckResources(resources));
  // A loop that tests a flag fixed before it runs as one copy per value,
  // so that the canonicalizer folds each copy's masks: attention's
  // `causal` (Triton's tutorial makes it a tl.constexpr).
  if (!isPassDisabled("tile-unswitch-loops"))
    pm.addNestedPass<tile::KernelOp>(tile::createTileUnswitchLoops());
  // Tile level: clean up the source's tiles.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &kernel = pm.nest<tile::KernelOp>();
  // GEMM-like grids run in groups of tile rows, for L2 reuse.
  if (!isPassDisabled("tile-group-blocks"))
    kernel.addPass(tile::createTileGroupBlocks());
  // @persistent: the CTAs the GPU holds at once loop over the tiles.
  if (!isPassDisabled("tile-persistent"))
    kernel.addPass(tile::createTilePersistent());
  kernel.addPass(tile::createTileHoistInvariants());
  kernel.addPass(tile::createTileDropMasks());
  kernel.addPass(tile::createTileSplitRaggedLoops());
  // Below a causal diagonal a mask holds for the whole tile: one scalar
  // comparison decides whether the iteration needs it.
  if (!isPassDisabled("tile-skip-full-masks"))
    kernel.addPass(tile::createTileSkipFullMasks());
  kernel.addPass(createCanonicalizerPass());
  kernel.addPass(createCSEPass());
  // Decide how tiles run: instructions, layouts, shared memory.
  tile::TileSelectMmaOptions select;
  select.chip = options.chip;
  kernel.addPass(tile::createTileSelectMma(select));
  // Dots kept in flight hold their operands' and results' registers across
  // the wait; a kernel that spills is compiled once more without them
  // (assembleAvoidingSpills).
  // An option given explicitly wins over its environment variable.
  bool synchronousDots =
      options.synchronousDots.hasValue()
          ? options.synchronousDots.getValue()
          : phobos::getExperiments().syncDots.value_or(options.synchronousDots.getValue());
  // Attention's P @ V under the next iteration's softmax. (Prefetching the
  // next S under this softmax was tried and removed: it holds a second S in
  // registers and lost at D 128; docs/benchmarks-log.md.)
  if (!synchronousDots && !isPassDisabled("tile-defer-dots"))
    kernel.addPass(tile::createTileDeferDots());
  kernel.addPass(tile::createTileAssignLayouts());
  // Running row sums (attention's) combine their lanes once, after the loop.
  if (!isPassDisabled("tile-defer-lane-sums"))
    kernel.addPass(tile::createTileDeferLaneSums());
  kernel.addPass(tile::createTilePromoteShared());
  if (!isPassDisabled("tile-fold-transposed-operands"))
    kernel.addPass(tile::createTileFoldTransposedOperands());
  kernel.addPass(tile::createTileSwizzleShared());
  tile::TilePipelineOptions pipelining;
  pipelining.maxSharedBytes = chipSharedBytes;
  pipelining.dotsInFlight = !synchronousDots;
  pipelining.foldRagged = phobos::getExperiments().foldRagged.value_or(true);
  // The last deferred P @ V reads its operand from the ring (measured
  // faster at short sequences: docs/benchmarks-log.md; `drain-ring=0`
  // loads it through registers).
  pipelining.drainRing = phobos::getExperiments().drainRing.value_or(true);
  kernel.addPass(tile::createTilePipeline(pipelining));
  // The operands loaded once before such a pipeline (attention's Q) by TMA
  // too, not through every thread's registers: only with
  // `tma-invariants=1` until a GPU run has timed and sanitised it.
  if (phobos::getExperiments().tmaInvariants.value_or(false))
    kernel.addPass(tile::createTileTmaInvariants());
  // What tile-pipeline left staged through registers in loops: by
  // asynchronous copies where a kernel spills (or everywhere with
  // async-staging); else only marked, so that a driver knows.
  tile::TileAsyncStagingOptions staging;
  staging.markOnly =
      !(options.asyncStaging.hasValue()
            ? options.asyncStaging.getValue()
            : phobos::getExperiments().asyncStaging.value_or(options.asyncStaging.getValue()));
  kernel.addPass(tile::createTileAsyncStaging(staging));
  // With every layout known: a tile that takes all of a thread's registers
  // fails here, not as ptxas's spills or its "Insufficient registers".
  kernel.addPass(tile::createTileCheckRegisters());
  tile::TileAllocateSharedOptions allocate;
  allocate.maxBytes = chipSharedBytes;
  kernel.addPass(tile::createTileAllocateShared(allocate));
  tile::TileChooseOccupancyOptions occupancy;
  occupancy.maxSharedBytes = chipSharedBytes;
  kernel.addPass(tile::createTileChooseOccupancy(occupancy));
  kernel.addPass(tile::createTileInsertBarriers());
  // Global memory in program order inside a CTA, where the barriers for
  // shared memory do not already give it.
  kernel.addPass(tile::createTileOrderGlobal());
  if (!isPassDisabled("tile-warp-specialize"))
    kernel.addPass(tile::createTileWarpSpecialize());
  // FlashAttention 3's ping-pong: the consumer warpgroups take turns at the
  // tensor cores.
  if (!isPassDisabled("tile-pingpong"))
    kernel.addPass(tile::createTilePingPong());
  // Per-thread code, then the upstream lowerings to llvm/nvvm.
  ConvertTileToGPUOptions perThread;
  perThread.fmaKUnroll =
      options.fmaKUnroll.hasValue()
          ? options.fmaKUnroll.getValue()
          : phobos::getExperiments().fmaKUnroll.value_or(options.fmaKUnroll.getValue());
  perThread.wgmmaFragmentSteps =
      options.wgmmaFragmentSteps.hasValue()
          ? options.wgmmaFragmentSteps.getValue()
          : phobos::getExperiments().wgmmaFragmentSteps.value_or(
                options.wgmmaFragmentSteps.getValue());
  // Vector reductions to global memory (red.global.add.v4.f32) are sm_90's.
  perThread.vectorAtomics = chipInfo && chipInfo->major >= 9;
  perThread.orderEpilogues = phobos::getExperiments().epilogueOrder.value_or(true);
  pm.addPass(createConvertTileToGPU(perThread));
  pm.addPass(createPerThreadCanonicalizer());
  pm.addPass(createCSEPass());
  // The per-thread code is 10^4 to 10^5 ops, and each dialect conversion
  // walks them all: phobos-convert-gpu-to-nvvm does the work of four
  // upstream conversions in one walk. (scf-to-cf keeps its rollback:
  // without it the time it saved went to the last canonicalizer.)
  OpPassManager &gpuModule = pm.nest<gpu::GPUModuleOp>();
  gpuModule.addPass(createSCFToControlFlowPass());
  gpuModule.addPass(createConvertGPUToNVVM());
  pm.addPass(createMarkTensorMapParams());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createPerThreadCanonicalizer());
  pm.addPass(createCSEPass());
  pm.addPass(createCheckTargetDialects());
}

void phobos::registerPhobosToNVVMPipeline() {
  // Registered by hand rather than with PassPipelineRegistration, so that
  // a chip Phobos cannot target and a pass manager on another op are
  // errors instead of a silent default and an abort in OpPassManager::nest.
  registerPassPipeline(
      "phobos-to-nvvm",
      "Lower laid-out phobos kernels to a gpu.module of llvm/nvvm ops",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        PhobosToNVVMOptions options;
        if (failed(options.parseFromString(text)))
          return errorHandler("phobos-to-nvvm: cannot parse the options '" +
                              text + "'");
        if (!isValidChip(options.chip))
          return errorHandler("phobos-to-nvvm: unsupported chip '" +
                              options.chip.getValue() + "'; Phobos targets " +
                              supportedChips());
        if (pm.getOpAnchorName() != ModuleOp::getOperationName())
          return errorHandler(
              "phobos-to-nvvm runs on a builtin.module (it nests on the "
              "phobos.kernel and gpu.module ops itself), not on '" +
              pm.getOpAnchorName() +
              "'; write --pass-pipeline='builtin.module(phobos-to-nvvm)'");
        buildPhobosToNVVMPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(PhobosToNVVMOptions());
      });
}

void phobos::registerPTXTranslationInterfaces(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

FailureOr<std::string> phobos::serializeToPTX(ModuleOp module,
                                              StringRef chip) {
  if (!isValidChip(chip))
    return module.emitError("unsupported chip '")
           << chip << "'; Phobos targets " << supportedChips();
  return PTXEmitter(chip, phobos::getExperiments().leanAddresses.value_or(false),
                    phobos::getExperiments().keepInvariants.value_or(false))
      .emit(module);
}
