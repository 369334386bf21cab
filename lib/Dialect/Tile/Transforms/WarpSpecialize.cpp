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
// In a persistent kernel (tile-persistent) the pipelined loop is inside the
// tile loop, which carries the ring's position, and the next tile's first
// copies follow it (tile-pipeline, all released): the producer then runs
// its own tile loop over the same tiles, carrying the same position, with
// the refills' loop and the next tile's copies in it.
//
// A loop tile-unswitch-loops split on a kernel argument leaves one such
// pipeline in each branch of a top-level `scf.if`. The producer then
// branches on the same condition (a kernel-wide value, so both roles take
// the same branch), each branch with that branch's copies; the branches'
// buffers and mbarriers are hoisted too, the mbarriers on bytes of their
// own (tile-allocate-shared).
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

/// Clones what computes `value` from the ops `inside` says are being split
/// off (everything else is used as it is); each op goes to the builder
/// `builders` has for its block, and `mapping` remembers what was cloned.
/// Returns null when that needs an op that is not scalar bookkeeping, an op
/// of a block without a builder, or a block argument `mapping` does not
/// know.
Value materialize(DenseMap<Block *, OpBuilder *> &builders, IRMapping &mapping,
                  Value value, llvm::function_ref<bool(Operation *)> inside) {
  if (Value known = mapping.lookupOrNull(value))
    return known;
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    Operation *owner = argument.getOwner()->getParentOp();
    return inside(owner) ? Value() : value;
  }
  Operation *def = value.getDefiningOp();
  if (!inside(def))
    return value;
  OpBuilder *builder = builders.lookup(def->getBlock());
  if (!builder || (!isScalarPure(*def) && !isa<BufferSlotOp>(def)))
    return Value();
  for (Value operand : def->getOperands())
    if (!materialize(builders, mapping, operand, inside))
      return Value();
  builder->clone(*def, mapping);
  return mapping.lookup(value);
}

/// One TMA pipeline: the copies of a block (the kernel's, or a branch of an
/// `scf.if` at its top level) before its pipelined loop, and the released
/// refills in that loop. In a persistent kernel the pipelined loop is in
/// the tile loop, whose body also starts the next tile's first copies
/// (released too).
struct Pipeline {
  SmallVector<TmaCopyOp> prologue, refills, nextTile;
  scf::ForOp loop, tileLoop;
};

/// Moves the buffers and mbarriers of `block` before `first` (advanced past
/// those already first).
void hoistBuffers(Block &block, Operation *&first) {
  for (Operation &op : llvm::make_early_inc_range(block))
    if (isa<LocalBufferOp, LocalBarriersOp>(op)) {
      if (&op != first)
        op.moveBefore(first);
      else
        first = op.getNextNode();
    }
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
    // The copies: at the kernel's top level before one pipelined loop and
    // released refills in it; or the same in each branch of one `scf.if`
    // at the top level (a loop unswitched on a kernel argument).
    scf::IfOp branch;
    auto holdsPipeline = [&](Block *block) {
      if (block == &body)
        return true;
      auto parent = dyn_cast<scf::IfOp>(block->getParentOp());
      if (!parent || parent->getBlock() != &body || (branch && branch != parent))
        return false;
      branch = parent;
      return true;
    };
    // A persistent kernel's tile loop at the kernel's top level.
    auto tileLoopOf = [&](Operation *op) {
      auto forOp = dyn_cast_or_null<scf::ForOp>(op);
      return forOp && forOp->hasAttr(kTileLoopAttrName) &&
                     forOp->getBlock() == &body
                 ? forOp
                 : scf::ForOp();
    };
    llvm::MapVector<Block *, Pipeline> pipelines;
    bool fits = true;
    kernel.walk([&](TmaCopyOp copy) {
      if (holdsPipeline(copy->getBlock())) {
        pipelines[copy->getBlock()].prologue.push_back(copy);
        return;
      }
      Operation *parent = copy->getParentOp();
      if (scf::ForOp tiles = tileLoopOf(parent); tiles && copy.getReleased()) {
        Pipeline &pipeline = pipelines[&body];
        fits &= !pipeline.tileLoop || pipeline.tileLoop == tiles;
        pipeline.tileLoop = tiles;
        pipeline.nextTile.push_back(copy);
        return;
      }
      auto forOp = dyn_cast<scf::ForOp>(parent);
      scf::ForOp tiles = forOp ? tileLoopOf(forOp->getParentOp()) : nullptr;
      if (!forOp || !(tiles || holdsPipeline(forOp->getBlock())) ||
          !forOp->hasAttr("phobos.pipeline_stages") || !copy.getReleased()) {
        fits = false;
        return;
      }
      Pipeline &pipeline = pipelines[tiles ? &body : forOp->getBlock()];
      if ((pipeline.loop && pipeline.loop != forOp) ||
          (tiles && pipeline.tileLoop && pipeline.tileLoop != tiles))
        fits = false;
      pipeline.loop = forOp;
      if (tiles)
        pipeline.tileLoop = tiles;
      pipeline.refills.push_back(copy);
    });
    if (!fits || pipelines.empty() || (branch && pipelines.count(&body)) ||
        llvm::any_of(pipelines, [](auto &entry) {
          Pipeline &pipeline = entry.second;
          Operation *loop = pipeline.tileLoop ? pipeline.tileLoop
                                              : pipeline.loop.getOperation();
          return !pipeline.loop || pipeline.prologue.empty() ||
                 (pipeline.tileLoop &&
                  pipeline.loop->getParentOp() != pipeline.tileLoop) ||
                 llvm::any_of(pipeline.prologue, [&](TmaCopyOp copy) {
                   return !copy->isBeforeInBlock(loop);
                 });
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
    orderWrites(body, /*unordered=*/false, kernel, branch);
    Operation *first = &body.front();
    hoistBuffers(body, first);
    if (branch)
      for (Region &region : branch->getRegions())
        for (Block &block : region)
          hoistBuffers(block, first);
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
    DenseMap<Block *, OpBuilder *> builders{{&body, &builder}};
    bool built = true;
    if (branch) {
      // The producer takes the same branch as the consumers: the condition
      // is a kernel-wide value.
      Value condition =
          materialize(builders, mapping, branch.getCondition(), inside);
      built = condition != nullptr;
      if (built) {
        auto copies = scf::IfOp::create(builder, branch.getLoc(), condition,
                                        /*withElseRegion=*/true);
        builder.setInsertionPoint(copies);
        for (auto [from, to] : llvm::zip(branch->getRegions(),
                                          copies->getRegions()))
          if (!from.empty())
            mapping.map(&from.front(), &to.front());
      }
    }
    for (auto &[block, pipeline] : pipelines) {
      if (!built)
        break;
      OpBuilder here = builder;
      if (block != &body)
        here.setInsertionPoint(mapping.lookup(block)->getTerminator());
      built = buildProducer(pipeline, here, builders, mapping, inside);
      builders.erase(block);
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
    for (auto &entry : pipelines)
      for (TmaCopyOp copy : llvm::concat<TmaCopyOp>(entry.second.prologue,
                                                    entry.second.refills,
                                                    entry.second.nextTile))
        copy.erase();
    for (Operation *op : rest)
      op->moveBefore(consumer, consumer->end());
    // The copies' index arithmetic the consumers no longer use.
    IRRewriter rewriter(kernel.getContext());
    (void)runRegionDCE(rewriter, specialized->getRegions());
    ++numSpecialized;
  }

  /// Where shared-memory writes before an mbarrier array's initialisation
  /// were ordered only by its barrier, puts a barrier in its place (the
  /// array moves to the kernel's start). `unordered`: whether writes came
  /// before `block` with no barrier since. Returns the state at its end.
  static bool orderWrites(Block &block, bool unordered, KernelOp kernel,
                          scf::IfOp branch) {
    for (Operation &op : block.without_terminator()) {
      if (isa<LocalBarriersOp>(op) && unordered) {
        OpBuilder before(&op);
        BarrierOp::create(before, op.getLoc());
      }
      if (isa<LocalBarriersOp, BarrierOp>(op)) {
        unordered = false;
      } else if (&op == branch.getOperation()) {
        bool after = false;
        for (Region &region : op.getRegions())
          after |= region.empty()
                       ? unordered
                       : orderWrites(region.front(), unordered, kernel, branch);
        unordered = after;
      } else {
        op.walk([&](Operation *nested) {
          unordered |= !getSharedMemoryAccess(nested, kernel).writes.empty();
        });
      }
    }
    return unordered;
  }

  /// Clones `pipeline`'s copies at `here`: the prologue's, then a loop over
  /// the pipelined loop's range with the refills. False when a copy needs
  /// what the producer cannot compute.
  static bool buildProducer(Pipeline &pipeline, OpBuilder &here,
                            DenseMap<Block *, OpBuilder *> &builders,
                            IRMapping &mapping,
                            llvm::function_ref<bool(Operation *)> inside) {
    Block *block = (pipeline.tileLoop ? pipeline.tileLoop : pipeline.loop)
                       ->getBlock();
    builders[block] = &here;
    auto cloneCopy = [&](TmaCopyOp copy, OpBuilder &at) {
      for (Value operand : copy->getOperands())
        if (!materialize(builders, mapping, operand, inside))
          return false;
      at.clone(*copy, mapping);
      return true;
    };
    for (TmaCopyOp copy : pipeline.prologue)
      if (!cloneCopy(copy, here))
        return false;
    if (!pipeline.tileLoop)
      return buildRefills(pipeline, here, builders, mapping, inside, cloneCopy);
    // A persistent kernel: the tile loop again, over the same tiles and
    // carrying the same scalars (the ring's position), with the refills'
    // loop and the next tile's first copies.
    scf::ForOp tiles = pipeline.tileLoop;
    auto bound = [&](Value value) {
      return materialize(builders, mapping, value, inside);
    };
    Value lower = bound(tiles.getLowerBound()),
          upper = bound(tiles.getUpperBound()), step = bound(tiles.getStep());
    SmallVector<Value> inits;
    for (Value init : tiles.getInitArgs())
      inits.push_back(init.getType().isIntOrIndex() ? bound(init) : Value());
    if (!lower || !upper || !step || llvm::is_contained(inits, Value()))
      return false;
    auto copies =
        scf::ForOp::create(here, tiles.getLoc(), lower, upper, step, inits);
    mapping.map(tiles.getInductionVar(), copies.getInductionVar());
    mapping.map(tiles.getRegionIterArgs(), copies.getRegionIterArgs());
    // (A loop without iteration arguments comes with its yield.)
    Block *tileBody = copies.getBody();
    Operation *yield = tileBody->mightHaveTerminator()
                           ? tileBody->getTerminator()
                           : nullptr;
    OpBuilder inTile = yield ? OpBuilder(yield) : OpBuilder::atBlockEnd(tileBody);
    builders[tiles.getBody()] = &inTile;
    bool built = buildRefills(pipeline, inTile, builders, mapping, inside,
                              cloneCopy);
    if (yield)
      inTile.setInsertionPoint(yield);
    else
      inTile.setInsertionPointToEnd(tileBody);
    built = built && llvm::all_of(pipeline.nextTile, [&](TmaCopyOp copy) {
              return cloneCopy(copy, inTile);
            });
    SmallVector<Value> yielded;
    for (Value value : tiles.getBody()->getTerminator()->getOperands())
      yielded.push_back(built ? bound(value) : Value());
    builders.erase(tiles.getBody());
    if (!built || llvm::is_contained(yielded, Value()))
      return false;
    if (!yield)
      scf::YieldOp::create(inTile, tiles.getLoc(), yielded);
    return true;
  }

  /// Clones the refills of `pipeline` at `here`: a loop over the pipelined
  /// loop's range that holds only them.
  static bool buildRefills(Pipeline &pipeline, OpBuilder &here,
                           DenseMap<Block *, OpBuilder *> &builders,
                           IRMapping &mapping,
                           llvm::function_ref<bool(Operation *)> inside,
                           llvm::function_ref<bool(TmaCopyOp, OpBuilder &)>
                               cloneCopy) {
    scf::ForOp loop = pipeline.loop;
    Value lower = materialize(builders, mapping, loop.getLowerBound(), inside);
    Value upper = materialize(builders, mapping, loop.getUpperBound(), inside);
    Value step = materialize(builders, mapping, loop.getStep(), inside);
    if (!lower || !upper || !step)
      return false;
    auto copies = scf::ForOp::create(here, loop.getLoc(), lower, upper, step);
    mapping.map(loop.getInductionVar(), copies.getInductionVar());
    // What the refills need from before the loop goes before it.
    here.setInsertionPoint(copies);
    OpBuilder inLoop(copies.getBody()->getTerminator());
    builders[loop.getBody()] = &inLoop;
    bool cloned = llvm::all_of(pipeline.refills, [&](TmaCopyOp refill) {
      return cloneCopy(refill, inLoop);
    });
    builders.erase(loop.getBody());
    return cloned;
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
