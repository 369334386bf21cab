//===- TileToGPU.cpp - Laid-out tile kernels to per-thread GPU code -------===//
//
// The convert-tile-to-gpu pass: the type converter (a laid-out tile becomes
// its registers, 1:N), the conversion target (the phobos dialect is
// illegal), the structural SCF conversions that carry registers through
// loops and branches, and the op-family patterns (PatternBase.h). Before
// converting, each kernel is checked for what the lowering needs, so that
// what cannot be lowered is reported at its source location with what is
// missing, and nothing is lowered half-way. Also phobos-check-target-dialects.
//
//===----------------------------------------------------------------------===//

#include "EpilogueOrder.h"
#include "PatternBase.h"

#include "Phobos/Conversion/Passes.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"

namespace phobos {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#define GEN_PASS_DEF_CHECKTARGETDIALECTS
#include "Phobos/Conversion/Passes.h.inc"
} // namespace phobos

using namespace mlir;
using namespace phobos;
using namespace phobos::tile;

namespace {

/// The values a thread holds of each kind of value.
class TileToGPUTypeConverter : public TypeConverter {
public:
  explicit TileToGPUTypeConverter(MLIRContext *context) {
    addConversion([](Type type) { return type; });
    // A laid-out tile: the registers one thread holds, in DistributedLayout
    // order. A tile without a layout has no conversion.
    addConversion([](TileType type, SmallVectorImpl<Type> &results)
                      -> std::optional<LogicalResult> {
      auto layout =
          dyn_cast_or_null<DistributedLayoutInterface>(type.getEncoding());
      if (!layout)
        return failure();
      results.append(layout.getNumRegisters(type.getShape()),
                     type.getElementType());
      return success();
    });
    // A global tensor: its base pointer and dynamic extents (the ABI).
    addConversion([context](GlobalTensorType type,
                            SmallVectorImpl<Type> &results) {
      results.push_back(LLVM::LLVMPointerType::get(context, 1));
      for (int64_t axis = 0; axis < type.getRank(); ++axis)
        if (type.isDynamicDim(axis))
          results.push_back(IntegerType::get(context, 32));
      return success();
    });
    // A shared-memory buffer: its base pointer.
    addConversion([context](SharedMemoryType) {
      return LLVM::LLVMPointerType::get(context, 3);
    });
  }
};

/// Whether `op` reads or writes shared memory once lowered.
bool usesSharedMemory(Operation *op) {
  if (isa<LocalAllocOp, LocalStoreOp, LocalLoadOp, AsyncCopyOp, TmaCopyOp,
          LocalBarriersOp>(op) ||
      getScratchBytes(op) > 0)
    return true;
  auto dot = dyn_cast<DotOp>(op);
  return dot && (isa<SharedMemoryType>(dot.getA().getType()) ||
                 isa<SharedMemoryType>(dot.getB().getType()));
}

bool isF64Transcendental(Operation *op) {
  if (!isa<ExpOp, Exp2Op, LogOp, Log2Op, TanhOp, math::ExpOp, math::Exp2Op,
           math::LogOp, math::Log2Op, math::TanhOp>(op))
    return false;
  Type type = op->getResult(0).getType();
  if (auto tile = dyn_cast<TileType>(type))
    type = tile.getElementType();
  return type.isF64();
}

/// Reports, at their locations, the ops of `kernel` the patterns cannot
/// lower, saying what is missing.
LogicalResult checkLowerable(KernelOp kernel) {
  bool barriers = kernel->hasAttr(KernelOp::kBarriersAttrName);
  WalkResult result = kernel.walk([&](Operation *op) -> WalkResult {
    for (Type type : op->getResultTypes())
      if (auto tile = dyn_cast<TileType>(type))
        if (!isa_and_nonnull<DistributedLayoutInterface>(tile.getEncoding()))
          return op->emitOpError("has a tile without a layout; run "
                                 "tile-assign-layouts first");
    if (auto dot = dyn_cast<DotOp>(op)) {
      auto a = dyn_cast<SharedMemoryType>(dot.getA().getType());
      auto b = dyn_cast<SharedMemoryType>(dot.getB().getType());
      // A wgmma may read A from registers (isWgmmaRegisterOperand).
      bool registerA = !a && isWgmmaRegisterOperand(dot, dot.getA().getType());
      // A swap_ab dot may read B's fragments from registers.
      auto bTile = dyn_cast<TileType>(dot.getB().getType());
      bool registerB =
          !b && dot.getSwapAb() && bTile &&
          bTile.getEncoding() == getSwappedWgmmaFragmentLayout(
                                     dot.getContext(), getNumWarps(kernel)) &&
          bTile.getDimSize(0) % 8 == 0 && bTile.getElementType().isF32();
      if ((!a && !registerA) || (!b && !registerB))
        return dot.emitOpError(
            "operands must be in shared memory (run tile-promote-shared)");
      // ldmatrix reads 16-byte rows of 16-bit operands.
      auto rowBytes = [](SharedMemoryType type) {
        auto layout = cast<SharedLayoutAttr>(type.getLayout());
        return layout.getRowLength(type.getShape()) *
               getElementBytes(type.getElementType());
      };
      auto isAtom = [](SharedMemoryType type) {
        return cast<SharedLayoutAttr>(type.getLayout()).getAtom() != 0;
      };
      // wgmma: operands in tile-promote-shared's atom layouts, the result in
      // the mma layout; with swap_ab, A in shared memory, B N-major there or
      // already in registers, the result in the transposed fragment layout.
      bool wgmmaOperandsOk = true;
      if (dot.getKind() == DotKind::wgmma && dot.getSwapAb())
        wgmmaOperandsOk =
            a && isAtom(a) &&
            dot.getType().getEncoding() ==
                getSwappedWgmmaAccumulatorLayout(dot.getContext(),
                                                 getNumWarps(kernel)) &&
            (registerB ||
             (isAtom(b) && b.getElementType() == a.getElementType() &&
              cast<SharedLayoutAttr>(b.getLayout()).getOrder().front() == 1));
      else if (dot.getKind() == DotKind::wgmma)
        wgmmaOperandsOk = (!a || isAtom(a)) && b && isAtom(b) &&
                          isa<MmaLayoutAttr>(dot.getType().getEncoding());
      if (!wgmmaOperandsOk)
        return dot.emitOpError("wgmma operands must be in the atom layouts of "
                               "tile-promote-shared, the result in an mma "
                               "layout (with swap_ab: its transposed "
                               "fragments, B N-major)");
      if (dot.getKind() == DotKind::mma_sync && a &&
          isa<MmaLayoutAttr>(dot.getType().getEncoding()) &&
          !a.getElementType().isF32() &&
          (rowBytes(a) % 16 != 0 || rowBytes(b) % 16 != 0))
        return dot.emitOpError("mma_sync operands need shared-memory rows of "
                               "a multiple of 16 bytes (pad the buffer)");
    }
    if (isF64Transcendental(op))
      return op->emitOpError("f64 exp, exp2, log, log2 and tanh are not supported on the GPU");
    if (!barriers && usesSharedMemory(op))
      return op->emitOpError("uses shared memory, but its barriers are not "
                             "placed; run tile-insert-barriers first");
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct ConvertTileToGPU
    : phobos::impl::ConvertTileToGPUBase<ConvertTileToGPU> {
  using ConvertTileToGPUBase::ConvertTileToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (fmaKUnroll < 0) {
      module.emitError("convert-tile-to-gpu: fma-k-unroll must be 0 (unroll "
                       "the whole K slice) or a positive step count, not ")
          << fmaKUnroll.getValue();
      return signalPassFailure();
    }
    if (wgmmaFragmentSteps < 0) {
      module.emitError("convert-tile-to-gpu: wgmma-fragment-steps must be 0 "
                       "(one group) or a positive step count, not ")
          << wgmmaFragmentSteps.getValue();
      return signalPassFailure();
    }
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    bool ok = true;
    for (KernelOp kernel : kernels)
      ok &= succeeded(checkLowerable(kernel));
    if (!ok)
      return signalPassFailure();

    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), "phobos_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    builder.setInsertionPointToStart(gpuModule.getBody());
    auto shared = LLVM::GlobalOp::create(
        builder, module.getLoc(),
        LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, "phobos_smem",
        Attribute(), /*alignment=*/1024, /*addrSpace=*/3);

    TileToGPUTypeConverter converter(context);
    TileLoweringState state(gpuModule, shared, fmaKUnroll, wgmmaFragmentSteps,
                            vectorAtomics);
    RewritePatternSet patterns(context);
    ConversionTarget target(*context);
    target.addIllegalDialect<TileDialect>();
    target.addLegalDialect<arith::ArithDialect, gpu::GPUDialect,
                           LLVM::LLVMDialect, NVVM::NVVMDialect,
                           math::MathDialect>();
    // Transcendentals take the NVPTX fast paths instead of libdevice.
    target.addIllegalOp<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op,
                        math::SqrtOp, math::RsqrtOp,
                        math::TanhOp, math::AbsFOp, math::AbsIOp>();
    // Any other op is legal only without tiles, tensors or buffers.
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    populateKernelToGPUPatterns(converter, patterns, state);
    populateMemoryToGPUPatterns(converter, patterns, state);
    populateComputeToGPUPatterns(converter, patterns, state);
    populateReductionToGPUPatterns(converter, patterns, state);
    populateSharedMemoryToGPUPatterns(converter, patterns, state);
    populateAsyncCopyToGPUPatterns(converter, patterns, state);
    populateTmaToGPUPatterns(converter, patterns, state);
    populateDotToGPUPatterns(converter, patterns, state);
    populateAtomicToGPUPatterns(converter, patterns, state);
    for (KernelOp kernel : kernels)
      markEpilogues(kernel);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    phobos::tile::orderEpilogues(gpuModule, orderEpilogues);
  }
};

struct CheckTargetDialects
    : phobos::impl::CheckTargetDialectsBase<CheckTargetDialects> {
  using CheckTargetDialectsBase::CheckTargetDialectsBase;

  void runOnOperation() override {
    getOperation().walk([&](gpu::GPUModuleOp module) {
      module.walk([&](Operation *op) {
        if (op == module.getOperation() || isa<gpu::GPUModuleOp>(op))
          return;
        StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace()
                                             : StringRef();
        if (dialect == "llvm" || dialect == "nvvm")
          return;
        op->emitError("'") << op->getName()
                           << "' is left after lowering; only llvm and nvvm "
                              "ops may reach PTX";
        signalPassFailure();
      });
    });
  }
};

} // namespace
