//===- WarpSpecialize.cpp - A producer warpgroup for a TMA pipeline -------===//
//
// After tile-pipeline, the CTA's thread 0 issues every TMA copy between
// the dots it also takes part in: a refill cannot start before thread 0
// reaches it in program order, however early its slot was released. This
// pass gives the copies their own warpgroup. The kernel is split, from its
// first op that is not scalar bookkeeping on, into a
// `phobos.warp_specialize`:
//
//   producer:  the copies before the loop; a loop over the same range
//              that holds only the refills (each waits for its slot's
//              release) and the index arithmetic they use
//   consumer:  the rest, in order, without the copies
//
// The two only meet at the ring's mbarriers: a copy completes its slot's
// "full" phase, the consumer warps' arrival completes its "empty" one, so
// the split needs every refill to be released (tile-pipeline with
// release-slots where the release is found). Scalar ops the producer needs
// that come after the split are cloned into it; the shared-memory buffers
// and mbarriers are hoisted above the split, where every thread of the
// launch initialises and waits for them, and a consumer barrier stands
// where an mbarrier initialisation's barrier ordered shared-memory writes.
//
//===----------------------------------------------------------------------===//

#include "LoopUtils.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"
#include "Phobos/Dialect/Tile/Transforms/SharedMemoryAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// Clones, into `builder`, what computes `value` from the ops `inside`
/// says are being split off (everything else is used as it is); `mapping`
/// remembers what was cloned. Returns null when that needs an op that is
/// not scalar bookkeeping or a block argument `mapping` does not know.
Value materialize(OpBuilder &builder, IRMapping &mapping, Value value,
                  llvm::function_ref<bool(Operation *)> inside) {
  if (Value known = mapping.lookupOrNull(value))
    return known;
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    Operation *owner = argument.getOwner()->getParentOp();
    return inside(owner) ? Value() : value;
  }
  Operation *def = value.getDefiningOp();
  if (!inside(def))
    return value;
  if (!isScalarPure(*def) && !isa<BufferSlotOp>(def))
    return Value();
  for (Value operand : def->getOperands())
    if (!materialize(builder, mapping, operand, inside))
      return Value();
  builder.clone(*def, mapping);
  return mapping.lookup(value);
}

struct TileWarpSpecialize
    : phobos::tile::impl::TileWarpSpecializeBase<TileWarpSpecialize> {
  using TileWarpSpecializeBase::TileWarpSpecializeBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Block &body = kernel.getBody().front();
    if (!(everywhere || kernel.getWarpSpecialize()) ||
        kernel.getCtaSize() % WarpSpecializeOp::kProducerThreads != 0 ||
        llvm::any_of(body,
                     [](Operation &op) { return isa<WarpSpecializeOp>(op); }))
      return;
    // The copies: at the top level before one pipelined loop, or released
    // refills directly in it.
    SmallVector<TmaCopyOp> prologue, refills;
    scf::ForOp loop;
    bool fits = true;
    kernel.walk([&](TmaCopyOp copy) {
      Operation *parent = copy->getParentOp();
      if (parent == kernel.getOperation()) {
        prologue.push_back(copy);
        return;
      }
      auto forOp = dyn_cast<scf::ForOp>(parent);
      if (!forOp || forOp->getParentOp() != kernel.getOperation() ||
          !forOp->hasAttr("phobos.pipeline_stages") || !copy.getReleased() ||
          (loop && loop != forOp)) {
        fits = false;
        return;
      }
      loop = forOp;
      refills.push_back(copy);
    });
    if (!fits || !loop || prologue.empty() ||
        llvm::any_of(prologue, [&](TmaCopyOp copy) {
          return !copy->isBeforeInBlock(loop);
        }))
      return;
    std::optional<int32_t> consumerRegisters = registersForConsumers(kernel);
    if (!consumerRegisters)
      return;

    // The buffers and mbarriers go first, for every thread of the launch.
    // An mbarrier's initialisation ends in a CTA barrier, which
    // tile-insert-barriers counted on for the shared-memory writes before
    // it (attention's Q): where there are such writes, they move to the
    // consumers and a barrier of theirs takes its place.
    bool unordered = false;
    for (Operation &op : body.without_terminator()) {
      if (isa<LocalBarriersOp>(op) && unordered) {
        OpBuilder before(&op);
        BarrierOp::create(before, op.getLoc());
      }
      if (isa<LocalBarriersOp, BarrierOp>(op))
        unordered = false;
      else
        op.walk([&](Operation *nested) {
          unordered |= !getSharedMemoryAccess(nested, kernel).writes.empty();
        });
    }
    Operation *first = &body.front();
    for (Operation &op : llvm::make_early_inc_range(body))
      if (isa<LocalBufferOp, LocalBarriersOp>(op)) {
        if (&op != first)
          op.moveBefore(first);
        else
          first = op.getNextNode();
      }
    Operation *split = nullptr;
    for (Operation &op : body.without_terminator())
      if (!isScalarPure(op) && !isa<LocalBufferOp, LocalBarriersOp>(op)) {
        split = &op;
        break;
      }
    if (!split)
      return;
    auto afterSplit = [&](Operation *op) {
      Operation *top = body.findAncestorOpInBlock(*op);
      return top && (top == split || split->isBeforeInBlock(top));
    };

    // The producer's program, built before anything moves; given up (and
    // erased) when a copy needs what the producer cannot compute (the
    // hoisted buffers and the barrier above stay: neither changes what
    // the kernel does).
    OpBuilder builder(split);
    auto specialized = WarpSpecializeOp::create(
        builder, kernel.getLoc(), static_cast<int32_t>(producerRegisters),
        *consumerRegisters);
    Block *producer = builder.createBlock(&specialized.getProducer());
    Block *consumer = builder.createBlock(&specialized.getConsumer());
    auto inside = [&](Operation *op) {
      return op != specialized.getOperation() && afterSplit(op);
    };
    builder.setInsertionPointToEnd(producer);
    IRMapping mapping;
    auto cloneCopy = [&](TmaCopyOp copy) {
      for (Value operand : copy->getOperands())
        if (!materialize(builder, mapping, operand, inside))
          return false;
      builder.clone(*copy, mapping);
      return true;
    };
    bool built = true;
    for (TmaCopyOp copy : prologue)
      built = built && cloneCopy(copy);
    Value lower, upper, step;
    if (built) {
      lower = materialize(builder, mapping, loop.getLowerBound(), inside);
      upper = materialize(builder, mapping, loop.getUpperBound(), inside);
      step = materialize(builder, mapping, loop.getStep(), inside);
      built = lower && upper && step;
    }
    if (built) {
      auto copies =
          scf::ForOp::create(builder, loop.getLoc(), lower, upper, step);
      mapping.map(loop.getInductionVar(), copies.getInductionVar());
      builder.setInsertionPoint(copies.getBody()->getTerminator());
      for (TmaCopyOp refill : refills)
        built = built && cloneCopy(refill);
    }
    if (!built) {
      specialized.erase();
      return;
    }

    // The consumers: everything from the split on, without the copies.
    SmallVector<Operation *> rest;
    for (Operation &op : llvm::make_range(Block::iterator(split), body.end()))
      if (!op.hasTrait<OpTrait::IsTerminator>() && !isa<TmaCopyOp>(op))
        rest.push_back(&op);
    for (TmaCopyOp copy : llvm::concat<TmaCopyOp>(prologue, refills))
      copy.erase();
    for (Operation *op : rest)
      op->moveBefore(consumer, consumer->end());
    // The copies' index arithmetic the consumers no longer use.
    IRRewriter rewriter(kernel.getContext());
    (void)runRegionDCE(rewriter, specialized->getRegions());
    ++numSpecialized;
  }

  /// What each consumer thread may hold once the producer warpgroup keeps
  /// `producerRegisters`: the rest of the registers the CTA's SM share
  /// gives it, rounded down to a multiple of 8 (setmaxnreg's unit), at most
  /// 256. None when the options make no sense.
  std::optional<int32_t> registersForConsumers(KernelOp kernel) {
    if (producerRegisters < 24 || producerRegisters > 256 ||
        producerRegisters % 8 != 0) {
      kernel.emitError("tile-warp-specialize: producer-registers must be a "
                       "multiple of 8 from 24 to 256, got ")
          << static_cast<int64_t>(producerRegisters);
      signalPassFailure();
      return std::nullopt;
    }
    int64_t blocks = std::max<int64_t>(1, kernel.getMinBlocks().value_or(1));
    int64_t share = kRegistersPerSM / blocks -
                    WarpSpecializeOp::kProducerThreads * producerRegisters;
    int64_t each = std::min<int64_t>(256, share / kernel.getCtaSize() / 8 * 8);
    if (each < 24)
      return std::nullopt;
    return static_cast<int32_t>(each);
  }
};

} // namespace
