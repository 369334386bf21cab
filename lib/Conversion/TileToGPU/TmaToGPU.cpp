//===- TmaToGPU.cpp - TMA copies and mbarriers ----------------------------===//
//
// An mbarrier array is its base pointer; thread 0 initialises every
// mbarrier, fences the initialisation for the async proxy (the TMA unit
// arrives on them) and the CTA waits at a barrier. A TMA copy is issued by
// thread 0 (in a warp_specialize producer, the producer's first thread)
// when enabled: one `mbarrier.arrive.expect_tx` with the bytes of
// the whole destination, then one `cp.async.bulk.tensor` per atom column
// of the destination, each a box of `rows x atom` elements at column
// `offset + j * atom` (of the plane the first offset names, for a 3-D
// tensor), through the kernel's tensor map for that tensor and box; before
// a copy that refills a released slot every thread waits for the phase of
// the slot's "empty" mbarrier. An mbarrier wait is
// `mbarrier.try_wait.parity` in a loop, by every thread. An arrival is one
// per warp: the warp's lanes converge (`bar.warp.sync`), then lane 0
// arrives.
//
//===----------------------------------------------------------------------===//

#include "PatternBase.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

/// Bytes of one mbarrier.
constexpr int64_t kMbarrierBytes = 8;
/// The time limit of one `mbarrier.try_wait` (the op loops past it).
constexpr int64_t kTryWaitNanoseconds = 10000000;

/// The mbarrier `index` (i32) of the array at `base`.
Value mbarrierAt(ThreadEmitter &e, Value base, Value index) {
  return LLVM::GEPOp::create(e.b, e.loc, base.getType(), e.b.getI8Type(),
                             base,
                             ValueRange{e.mul(index, e.i32(kMbarrierBytes))});
}

/// The mbarrier of the slot an op's `index` names in its `barriers`.
template <typename Adaptor>
Value slotBarrier(ThreadEmitter &e, Adaptor adaptor) {
  return mbarrierAt(e, adaptor.getBarriers().front(),
                    adaptor.getIndex().front());
}

/// Runs `body` only in the threads whose `id` (the thread or the lane) is
/// `first`, where `enable` (null: always) holds.
template <typename Body>
void inOneThread(ThreadEmitter &e, Value id, Value first, Value enable,
                 Body body) {
  Value isFirst =
      arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::eq, id, first);
  auto branch =
      scf::IfOp::create(e.b, e.loc, e.andI(isFirst, enable), /*else=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(branch.thenBlock()->getTerminator());
  body();
}

struct LocalBarriersLowering : TileToGPUPattern<LocalBarriersOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(LocalBarriersOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    Value base = allocatedShared(e, op);
    int64_t count = op.getType().getShape().front();
    inOneThread(e, e.tid, e.i32(0), Value(), [&] {
      for (int64_t k = 0; k < count; ++k)
        NVVM::MBarrierInitOp::create(rewriter, op.getLoc(),
                                     mbarrierAt(e, base, e.i32(k)),
                                     e.i32(op.getArrivals()), Value());
      NVVM::FenceMbarrierInitOp::create(rewriter, op.getLoc());
    });
    e.barrier();
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct TmaCopyLowering : TileToGPUPattern<TmaCopyOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(TmaCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    KernelFrame &frame = e.frame;
    auto found = frame.tensorMapOf.find(op);
    if (found == frame.tensorMapOf.end())
      return rewriter.notifyMatchFailure(op, "no tensor map for this copy");
    Value map = frame.tensorMaps[found->second];
    SharedMemoryType type = op.getDestination().getType();
    auto layout = cast<SharedLayoutAttr>(type.getLayout());
    int64_t rows = type.getShape()[0], cols = type.getShape()[1];
    int64_t atom = layout.getAtom();
    int64_t elementBytes = getElementBytes(type.getElementType());
    Value destination = adaptor.getDestination().front();
    Value barrier = slotBarrier(e, adaptor);
    // A 3-D tensor's first offset is the plane (TMA's outermost axis).
    size_t rank = adaptor.getOffsets().size();
    Value row = adaptor.getOffsets()[rank - 2].front();
    Value col = adaptor.getOffsets()[rank - 1].front();
    Value plane = rank == 3 ? adaptor.getOffsets()[0].front() : Value();
    Value enable = optionalOperand(adaptor.getEnable());
    // The destination as a shared::cluster address (this CTA's own), which
    // PTX 8.0's bulk tensor copy takes.
    auto clusterPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 7);
    // The slot's release, waited for by every thread: a loop in thread 0
    // alone (a path the warpgroup diverges on) makes ptxas serialise the
    // wgmma groups in flight around it.
    if (!adaptor.getReleased().empty())
      NVVM::MBarrierTryWaitParityOp::create(
          rewriter, op.getLoc(),
          mbarrierAt(e, adaptor.getReleased().front(),
                     adaptor.getIndex().front()),
          adaptor.getParity().front(), e.i32(kTryWaitNanoseconds));
    inOneThread(e, e.tid, e.firstThread(), enable, [&] {
      NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, op.getLoc(), Type(), barrier,
          e.i32(rows * cols * elementBytes), NVVM::MemScopeKind::CTA,
          /*relaxed=*/false, Value());
      for (int64_t j = 0; j < cols / atom; ++j) {
        Value box = LLVM::GEPOp::create(
            rewriter, op.getLoc(), destination.getType(), rewriter.getI8Type(),
            destination, ValueRange{e.i32(j * rows * atom * elementBytes)});
        Value target =
            LLVM::AddrSpaceCastOp::create(rewriter, op.getLoc(), clusterPtr,
                                          box);
        SmallVector<Value, 3> coordinates{e.add(col, e.i32(j * atom)), row};
        if (plane)
          coordinates.push_back(plane);
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            rewriter, op.getLoc(), target, map, coordinates, barrier,
            ValueRange{}, Value(), Value(), NVVM::TMALoadMode::TILE,
            /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct MbarrierWaitLowering : TileToGPUPattern<MbarrierWaitOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(MbarrierWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    Value barrier = slotBarrier(e, adaptor);
    // The op loops until the phase completes (the PTX instruction alone
    // may give up after a time limit).
    NVVM::MBarrierTryWaitParityOp::create(rewriter, op.getLoc(), barrier,
                                          adaptor.getPhase().front(),
                                          e.i32(kTryWaitNanoseconds));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MbarrierArriveLowering : TileToGPUPattern<MbarrierArriveOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(MbarrierArriveOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    Value barrier = slotBarrier(e, adaptor);
    Value enable = optionalOperand(adaptor.getEnable());
    // Every lane is done with what it read before lane 0 arrives for them.
    NVVM::SyncWarpOp::create(rewriter, op.getLoc(), e.i32(-1));
    inOneThread(e, e.lane, e.i32(0), enable, [&] {
      NVVM::MBarrierArriveOp::create(rewriter, op.getLoc(), Type(), barrier,
                                     Value());
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void phobos::tile::populateTmaToGPUPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            TileLoweringState &state) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LocalBarriersLowering, TmaCopyLowering, MbarrierWaitLowering,
               MbarrierArriveLowering>(converter, context, state);
}
