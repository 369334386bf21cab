//===- SoftwarePipeline.cpp - Multi-stage copies of dot operands ----------===//
//
// The loads that only feed a dot's shared-memory staging become
// asynchronous copies into a multi-stage buffer, started S-1 iterations
// ahead (S-2 when the loop's wgmma dots stay in flight across iterations). The
// slots carry a `lag` (which iteration's data they hold, relative to the
// current one); tile-insert-barriers derives the waits and barriers from it. On
// sm_90a, operands staged in atom layouts are copied through TMA: one thread
// starts each copy, which arrives on the stage's mbarrier, and the iteration
// that reads a slot waits on that mbarrier. Where the point at which a slot's
// readers are done can be found (after the wgmma wait that retires them), every
// warp arrives there on the slot's "empty" mbarrier, and the copies that refill
// the slot, moved behind the iteration's first wgmma dots, wait for that phase:
// no barrier of the whole CTA orders the refill, so warpgroups drift apart by
// up to an iteration (FlashAttention 3's producer/consumer mbarriers, without a
// producer warp).
//
// Why this file is long: it is one rewrite, LoopPipeliner, whose steps
// (prologue, steady state, waits, releases, drains, a persistent kernel's
// ring across tiles) share the ring's slots, phases and mbarriers.
//
//===----------------------------------------------------------------------===//

#include "LoopUtils.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"
#include "SliceAnalysis.h"
#include "Staging.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// A load that only feeds the shared-memory staging of dots.
struct StagedOperand {
  LoadOp load;
  LocalAllocOp alloc;
  LocalBufferOp buffer;
  /// Staged through registers (registerCopyBytes) instead of copied
  /// asynchronously; `carried` is the loop's tile of the next slot's data.
  bool viaRegisters = false;
  unsigned carried = 0;
};

class LoopPipeliner {
public:
  LoopPipeliner(scf::ForOp loop, int64_t stages)
      : loop(loop), stages(stages), builder(loop) {}

  /// Whether run folds a TMA pipeline's ragged remainder into it (a
  /// persistent kernel's tile loop folds it regardless: its prologue's move
  /// needs it).
  bool foldRemainder = true;
  /// Whether run stages drains (findDrains) in a TMA pipeline's ring.
  bool drainFromRing = true;

  /// The staged operands of the loop body (empty: nothing to pipeline).
  SmallVector<StagedOperand> findOperands() {
    SmallVector<StagedOperand> operands;
    // A remainder loop runs at most once: pipelining it would only add
    // copies that are never used.
    if (runsAtMostOnce(loop))
      return operands;
    // A store (or atomic addition) in the loop may write what a later
    // iteration reads from the same tensor: reading it early would change
    // the result. Other tensors are other memory (a backward pass adds
    // its dQ rows atomically while it stages Q's).
    llvm::SmallDenseSet<Value, 4> written = writtenTensors(loop);
    for (Operation &op : *loop.getBody()) {
      auto load = dyn_cast<LoadOp>(op);
      if (!load || !load->hasOneUse() || written.contains(load.getTensor()))
        continue;
      auto alloc = dyn_cast<LocalAllocOp>(*load->user_begin());
      if (!alloc || alloc->getBlock() != loop.getBody())
        continue;
      if (!llvm::all_of(alloc->getUsers(), [&](Operation *user) {
            return isa<DotOp>(user) && user->getBlock() == loop.getBody();
          }))
        continue;
      // An operand an asynchronous copy would move in narrower pieces than
      // registers can (a transposing buffer: one element a copy) goes
      // through registers.
      int64_t async = copyBytes(load, alloc);
      bool viaRegisters = registerCopyBytes(load, alloc) > async;
      if (async < 4 && !viaRegisters)
        continue;
      bool computable = llvm::all_of(load.getOffsets(), [&](Value offset) {
        return canEvaluate(offset);
      });
      if (!isOutside(load.getTensor(), loop) || !computable)
        continue;
      operands.push_back({load, alloc, {}, viaRegisters});
    }
    return operands;
  }

  /// The dots that read the staged operands, when all of them can return
  /// with their wgmma group in flight: each is a wgmma whose accumulator is
  /// a loop-carried tile only it uses and whose result only goes back to
  /// that tile, and whose shared operands are staged here or defined before
  /// the loop (nothing the loop writes while a group may still read it).
  /// Empty when some cannot.
  SmallVector<DotOp> dotsToKeepInFlight(ArrayRef<StagedOperand> operands) {
    SetVector<Operation *> dots;
    for (const StagedOperand &operand : operands)
      for (Operation *user : operand.alloc->getUsers())
        dots.insert(user);
    SmallVector<DotOp> result;
    auto *yield = loop.getBody()->getTerminator();
    for (Operation *op : dots) {
      auto dot = cast<DotOp>(op);
      auto acc = dyn_cast_or_null<BlockArgument>(dot.getAcc());
      if (dot.getKind() != DotKind::wgmma || !acc ||
          acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0 ||
          !acc.hasOneUse() || !dot->hasOneUse() ||
          *dot->user_begin() != yield)
        return {};
      unsigned position = acc.getArgNumber() - 1;
      if (yield->getOperand(position) != dot.getResult())
        return {};
      for (Value operand : {dot.getA(), dot.getB()}) {
        bool staged = llvm::any_of(operands, [&](StagedOperand s) {
          return s.alloc.getResult() == operand;
        });
        if (!staged && !isOutside(operand, loop))
          return {};
      }
      result.push_back(dot);
    }
    return result;
  }

  /// Rewrites the loop into the pipeline; `inFlight` (from
  /// dotsToKeepInFlight, with at least 3 stages) keeps those dots' groups
  /// in flight and copies S-2 iterations ahead; `tma` copies every operand
  /// not staged through registers through TMA (canCopyThroughTma).
  ///
  /// An operand staged through registers is loaded one iteration before
  /// it is stored: the prologue stores the slots the copies fill and loads
  /// the next tile (masked on the axes that move with the loop: those
  /// iterations may not exist), which the loop carries; each iteration
  /// stores it where the copies go and, after its dots, loads the next one,
  /// or its own again past the loop's end (in bounds wherever the original
  /// load is, so it needs no new masks), so the load's latency hides behind
  /// a whole iteration.
  ///
  /// A TMA pipeline outside a tile loop also stages a drain (findDrains):
  /// its copies run one fill past the last iteration, and the dot after
  /// the loop reads that fill's slot once its mbarrier phase completes.
  void run(SmallVectorImpl<StagedOperand> &operands,
           ArrayRef<DotOp> inFlight = {}, bool tma = false,
           bool mayRelease = false, bool everywhere = false,
           int64_t minColumns = 0) {
    // Iterations the copies run ahead: S-1, or S-2 when a slot is still
    // read by an in-flight dot one iteration after its own.
    int64_t ahead = inFlight.empty() ? stages - 1 : stages - 2;
    int64_t copied = llvm::count_if(
        operands, [](const StagedOperand &o) { return !o.viaRegisters; });
    if (copied == 0)
      tma = false;
    // A persistent kernel's tile loop, around a TMA pipeline.
    scf::ForOp tileLoop;
    if (tma) {
      tileLoop = dyn_cast<scf::ForOp>(loop->getParentOp());
      if (!tileLoop || !tileLoop->hasAttr(kTileLoopAttrName))
        tileLoop = nullptr;
    }
    // A TMA pipeline runs its ragged remainder itself: one more iteration
    // of copies and wgmma instead of a masked step through registers after
    // the loop. (In a tile loop, that is decided below, with the
    // prologue's move.)
    if (tma && !tileLoop && foldRemainder)
      if (scf::ForOp remainder = nextLoop();
          remainder && canFold(operands, remainder) &&
          DominanceInfo().properlyDominates(remainder.getUpperBound(), loop))
        fold(remainder);
    SmallVector<Drain> drains;
    if (tma && !tileLoop && drainFromRing &&
        copied == static_cast<int64_t>(operands.size()))
      drains = findDrains(operands);
    Location loc = loop.getLoc();
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();
    Type indexType = lb.getType();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(builder, loc,
                                       builder.getIntegerAttr(indexType, value));
    };

    // The buffers, and the prologue: iterations 0 .. S-2.
    builder.setInsertionPoint(loop);
    for (StagedOperand &operand : operands)
      operand.buffer = LocalBufferOp::create(
          builder, operand.alloc.getLoc(),
          getStagedType(operand.alloc.getType(), stages), IntegerAttr());
    barriers = Value();
    if (tma) {
      MLIRContext *context = builder.getContext();
      auto type = SharedMemoryType::get(
          context, {stages}, builder.getI64Type(),
          SharedLayoutAttr::get(context, {0}, /*padding=*/0));
      barriers = LocalBarriersOp::create(
          builder, loc, type,
          builder.getI32IntegerAttr(static_cast<int32_t>(copied)),
          IntegerAttr());
    }
    // In a persistent kernel's tile loop (tile-persistent) the mbarriers
    // live across tiles: they are made once, before the tile loop, and the
    // ring's position counts the fills of every tile before this one (the
    // tile loop carries it), so that a slot's k-th fill still completes
    // its mbarrier's phase k.
    Value base, nextBase;
    bool overlap = false;
    if (tileLoop) {
      barriers.getDefiningOp()->moveBefore(tileLoop);
      // The next tile's first copies can then start before this tile's
      // epilogue: when every operand comes through TMA and nothing after
      // the loop but its results' epilogue reads the ring.
      overlap = copied == static_cast<int64_t>(operands.size()) &&
                prologueCanMove(operands, tileLoop);
      if (overlap) {
        for (StagedOperand &operand : operands)
          operand.buffer->moveBefore(tileLoop);
        ub = loop.getUpperBound();
      }
      builder.setInsertionPoint(tileLoop);
      unsigned position = tileLoop.getInitArgs().size();
      tileLoop = addIterArgs(builder, tileLoop, ValueRange{constant(0)});
      base = tileLoop.getRegionIterArgs()[position];
      builder.setInsertionPoint(loop);
      // The loop's fills: ceil((ub - lb) / step), none when ub <= lb.
      Value trips = arith::MaxSIOp::create(
          builder, loc, constant(0),
          arith::CeilDivSIOp::create(
              builder, loc, arith::SubIOp::create(builder, loc, ub, lb), step));
      nextBase = arith::AddIOp::create(builder, loc, base, trips);
      tileLoop.getBody()->getTerminator()->setOperand(position, nextBase);
    }
    // The copies fill the ring up to the loop's bound, or one fill further
    // (the iteration `trips`) for a drain.
    Value fillBound = ub, drainFill;
    if (!drains.empty()) {
      builder.setInsertionPoint(loop);
      LoopEnd end = buildLoopEnd(builder, loc, loop);
      drainFill = end.trips;
      fillBound = arith::AddIOp::create(builder, loc, end.end, step);
    }
    // The slot of the ring's `position`-th fill after `from` (if any).
    auto ringSlot = [&](Value from, Value position) -> Value {
      if (from)
        position = arith::AddIOp::create(builder, loc, from, position);
      return toI32(
          arith::RemSIOp::create(builder, loc, position, constant(stages)));
    };
    bool commits = !tma && copied > 0;
    // The next tile's prologue copies (a persistent kernel's overlap), each
    // with its fill's offset from the ring base: released like refills.
    SmallVector<std::pair<TmaCopyOp, int64_t>> nextTileCopies;
    bool collect = false;
    // The prologue's copies of the tile `outer` gives (the tile loop's
    // values for another tile; empty: this one), whose ring starts at
    // `ringBase` (null: slot 0), where `tileEnable` (if any) holds.
    auto prologue = [&](IRMapping &outer, Value ringBase, Value tileEnable) {
      Value first = evaluate(lb, outer), bound = evaluate(fillBound, outer),
            stride = evaluate(step, outer);
      for (int64_t s = 0; s < ahead; ++s) {
        Value iteration = arith::AddIOp::create(
            builder, loc, first,
            arith::MulIOp::create(builder, loc, stride, constant(s)));
        Value enable = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::slt, iteration, bound);
        if (tileEnable)
          enable = arith::AndIOp::create(builder, loc, enable, tileEnable);
        IRMapping mapping = outer;
        mapping.map(loop.getInductionVar(), iteration);
        Value prologueSlot =
            ringBase ? ringSlot(ringBase, constant(s)) : toI32(constant(s));
        for (StagedOperand &operand : operands) {
          if (operand.viaRegisters)
            storeInto(operand, loadFor(operand, mapping), prologueSlot, s);
          else if (TmaCopyOp copy = copyInto(operand, prologueSlot,
                                             /*lag=*/s, enable, mapping);
                   copy && collect)
            nextTileCopies.push_back({copy, s});
        }
        if (commits)
          AsyncCommitOp::create(builder, loc);
      }
    };
    if (overlap) {
      // The first tile's, before the tile loop.
      builder.setInsertionPoint(tileLoop);
      across = tileLoop;
      IRMapping outer;
      Value firstTile = tileLoop.getLowerBound();
      outer.map(tileLoop.getInductionVar(), firstTile);
      outer.map(base, tileLoop.getInitArgs().back());
      prologue(outer, tileLoop.getInitArgs().back(),
               arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                     firstTile, tileLoop.getUpperBound()));
      across = nullptr;
      builder.setInsertionPoint(loop);
    } else {
      IRMapping none;
      prologue(none, base, Value());
    }
    // The tiles the loop carries: iteration `ahead`'s.
    SmallVector<Value> carried;
    {
      IRMapping mapping;
      mapping.map(
          loop.getInductionVar(),
          arith::AddIOp::create(
              builder, loc, lb,
              arith::MulIOp::create(builder, loc, step, constant(ahead))));
      for (StagedOperand &operand : operands)
        if (operand.viaRegisters) {
          operand.carried = loop.getInitArgs().size() + carried.size();
          carried.push_back(loadFor(operand, mapping));
        }
    }
    if (!carried.empty()) {
      loop = addIterArgs(builder, loop, carried);
      lb = loop.getLowerBound();
      ub = loop.getUpperBound();
      step = loop.getStep();
    }

    // The steady state: start iteration i + ahead, compute on slot i % S.
    builder.setInsertionPointToStart(loop.getBody());
    Value iv = loop.getInductionVar();
    Value index = arith::DivSIOp::create(
        builder, loc, arith::SubIOp::create(builder, loc, iv, lb), step);
    Value slot = ringSlot(base, index);
    Value nextSlot = ringSlot(
        base, arith::AddIOp::create(builder, loc, index, constant(ahead)));
    Value next = arith::AddIOp::create(
        builder, loc, iv,
        arith::MulIOp::create(builder, loc, step, constant(ahead)));
    Value more = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                       next, fillBound);
    IRMapping mapping;
    mapping.map(iv, next);
    SmallVector<TmaCopyOp> refills;
    for (StagedOperand &operand : operands) {
      if (operand.viaRegisters)
        storeInto(operand, loop.getRegionIterArgs()[operand.carried], nextSlot,
                  ahead);
      else if (TmaCopyOp refill =
                   copyInto(operand, nextSlot, /*lag=*/ahead, more, mapping))
        refills.push_back(refill);
    }
    if (commits)
      AsyncCommitOp::create(builder, loc);
    // After the dots, the tile the next iteration stores.
    if (!carried.empty()) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      builder.setInsertionPoint(yield);
      // Past the loop's end it loads this iteration's tile again (which
      // the original load reads inside the tensor wherever it promises to):
      // no masks where there were none.
      Value following = arith::AddIOp::create(
          builder, loc, iv,
          arith::MulIOp::create(builder, loc, step, constant(ahead + 1)));
      Value exists = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::slt, following, ub);
      IRMapping after;
      after.map(iv,
                arith::SelectOp::create(builder, loc, exists, following, iv));
      for (StagedOperand &operand : operands)
        if (operand.viaRegisters)
          yield->setOperand(operand.carried,
                            loadFor(operand, after, /*masked=*/false));
    }

    // TMA: the slot's k-th fill completes its mbarrier's phase k; wait for
    // it before the first read.
    if (tma) {
      Operation *first = nullptr;
      for (StagedOperand &operand : operands)
        if (!operand.viaRegisters &&
            (!first || operand.alloc->isBeforeInBlock(first)))
          first = operand.alloc;
      builder.setInsertionPoint(first);
      Value ring =
          base ? arith::AddIOp::create(builder, loc, base, index).getResult()
               : index;
      Value fill = arith::DivSIOp::create(builder, loc, ring, constant(stages));
      Value parity =
          toI32(arith::RemSIOp::create(builder, loc, fill, constant(2)));
      MbarrierWaitOp::create(builder, loc, barriers, slot, parity);
    }

    // In-flight dots: a wait after the loop retires the last group before
    // anything reads the accumulator.
    builder.setInsertionPointAfter(loop);
    SmallVector<std::pair<DotOp, WgmmaWaitOp>> lastWaits;
    for (DotOp dot : inFlight) {
      dot.setInFlightAttr(builder.getI32IntegerAttr(1));
      unsigned position =
          cast<BlockArgument>(dot.getAcc()).getArgNumber() - 1;
      Value result = loop.getResult(position);
      auto wait = WgmmaWaitOp::create(builder, dot.getLoc(), result, Value(),
                                      builder.getI32IntegerAttr(0));
      result.replaceAllUsesExcept(wait.getResult(), wait);
      lastWaits.push_back({dot, wait});
    }

    if (overlap) {
      // The next tile's, after this tile's last reads of the ring (the
      // loop, and the waits that retire its dots), before its epilogue:
      // its copies land while this tile's results are stored. (Before the
      // loads and buffers the copies replace are erased.)
      Operation *after = loop;
      for (auto &[dot, wait] : lastWaits)
        if (after->isBeforeInBlock(wait))
          after = wait;
      builder.setInsertionPointAfter(after);
      across = tileLoop;
      IRMapping outer;
      Value nextTile = arith::AddIOp::create(
          builder, loc, tileLoop.getInductionVar(), tileLoop.getStep());
      outer.map(tileLoop.getInductionVar(), nextTile);
      outer.map(base, nextBase);
      collect = true;
      prologue(outer, nextBase,
               arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                     nextTile, tileLoop.getUpperBound()));
      collect = false;
      across = nullptr;
    }

    // A drain reads the fill of iteration `trips`, once its phase completes.
    if (!drains.empty()) {
      builder.setInsertionPoint(drains.front().alloc);
      Value drainSlot = ringSlot(Value(), drainFill);
      Value parity = toI32(arith::RemSIOp::create(
          builder, loc,
          arith::DivSIOp::create(builder, loc, drainFill, constant(stages)),
          constant(2)));
      MbarrierWaitOp::create(builder, loc, barriers, drainSlot, parity);
      for (Drain &drain : drains) {
        builder.setInsertionPoint(drain.alloc);
        Value filled = BufferSlotOp::create(
            builder, drain.alloc.getLoc(), drain.alloc.getType(),
            drain.operand->buffer, drainSlot, builder.getI64IntegerAttr(0));
        drain.alloc.replaceAllUsesWith(filled);
        drain.alloc.erase();
        drain.load.erase();
      }
      drained = true;
    }

    SmallVector<Value> currentSlots;
    for (StagedOperand &operand : operands) {
      builder.setInsertionPoint(operand.alloc);
      Value current = BufferSlotOp::create(
          builder, operand.alloc.getLoc(), operand.alloc.getType(),
          operand.buffer, slot, builder.getI64IntegerAttr(0));
      currentSlots.push_back(current);
      operand.alloc.replaceAllUsesWith(current);
      operand.alloc.erase();
      operand.load.erase();
    }
    for (auto [dot, wait] : lastWaits)
      if (dot.getSwapAb())
        holdFragments(dot, wait);

    // Refills released by mbarriers instead of a barrier: only when every
    // operand comes through TMA (a slot stored by every thread needs the
    // barrier anyway), in a loop that runs once per kernel or whose ring a
    // persistent kernel's tile loop carries with its next tile's prologue
    // (the mbarriers' phases count the ring's fills), and when the
    // readers' release comes at least one iteration before the refill that
    // waits for it.
    if (tma && mayRelease && copied == static_cast<int64_t>(operands.size()) &&
        (runsOncePerKernel(loop) || overlap)) {
      // Measured, the release pays only where the slots' readers are
      // retired by a wgmma wait of their own iteration (tile-defer-dots'
      // form) and the dots the refills follow are wide enough to hide the
      // wait (attention at D 128 and BC 128, not BC 64); with synchronous
      // dots (attention at D 64, two CTAs an SM) or a GEMM's dot retired in
      // the next iteration the barrier stays, unless `everywhere`
      // (docs/benchmarks-log.md has the A/B).
      std::optional<Release> release = findRelease(currentSlots);
      bool pays = release && (everywhere || (release->iterationsLater == 0 &&
                                             isa<WgmmaWaitOp>(release->after) &&
                                             firstDotColumns() >= minColumns));
      // Across tiles only a release in the slot's own iteration: the one
      // an iteration later would leave the tile's last slot unreleased.
      if (pays && ahead + release->iterationsLater <= stages - 1 &&
          (!base || release->iterationsLater == 0)) {
        Value ring = index;
        if (base) {
          builder.setInsertionPointAfter(index.getDefiningOp());
          ring = arith::AddIOp::create(builder, loc, base, index);
        }
        Value empty = releaseSlots(*release, refills, ring, slot, ahead);
        // The next tile's first fills wait for their slots' releases too.
        for (auto [copy, offset] : nextTileCopies) {
          builder.setInsertionPoint(copy);
          Value position =
              arith::AddIOp::create(builder, loc, nextBase, constant(offset));
          releasedCopy(copy, empty, releaseParity(position));
        }
      }
    }
    loop->setAttr("phobos.pipeline_stages",
                  builder.getI64IntegerAttr(stages));
  }

  /// Whether a persistent kernel's prologue can move out of the tile loop's
  /// body (tile `t`'s before the loop, tile `t + step`'s before tile `t`'s
  /// epilogue): every value the copies and the loop's bounds use can be
  /// computed for another tile (pure ops without regions), and after the
  /// loop nothing reads the staged tiles. A ragged remainder after it
  /// (tile-split-ragged-loops, differing only by the in-bounds promises)
  /// is folded into the loop, which then runs to the bound: its TMA copies
  /// fill zeros past it, as the remainder's masked loads read.
  bool prologueCanMove(MutableArrayRef<StagedOperand> operands,
                       scf::ForOp tileLoop) {
    std::function<bool(Value)> computable = [&](Value value) -> bool {
      if (isOutside(value, tileLoop) || value == loop.getInductionVar() ||
          value == tileLoop.getInductionVar())
        return true;
      Operation *def = value.getDefiningOp();
      return def && def->getNumRegions() == 0 && isPure(def) &&
             llvm::all_of(def->getOperands(), computable);
    };
    for (StagedOperand &operand : operands)
      if (!llvm::all_of(operand.load.getOffsets(), computable))
        return false;
    // The next tile's copies run beside this tile's epilogue: it must not
    // write what they read.
    if (tileLoop
            ->walk([&](Operation *op) {
              Value written;
              if (auto store = dyn_cast<StoreOp>(op))
                written = store.getTensor();
              else if (auto store = dyn_cast<StoreScalarOp>(op))
                written = store.getTensor();
              else if (auto add = dyn_cast<AtomicAddOp>(op))
                written = add.getTensor();
              bool read = written && llvm::any_of(operands, [&](auto &o) {
                            return o.load.getTensor() == written;
                          });
              return read ? WalkResult::interrupt() : WalkResult::advance();
            })
            .wasInterrupted())
      return false;
    if (!computable(loop.getLowerBound()) || !computable(loop.getStep()))
      return false;
    scf::ForOp remainder = nextLoop();
    if (!remainder)
      return computable(loop.getUpperBound());
    if (!canFold(operands, remainder) ||
        !computable(remainder.getUpperBound()))
      return false;
    fold(remainder);
    return true;
  }

  /// A load after the loop that reads a staged operand's tile for the
  /// iteration past the last, for dots only: tile-defer-dots' last P @ V
  /// reads V there (isSameAt at isLoopEnd).
  struct Drain {
    StagedOperand *operand;
    LoadOp load;
    LocalAllocOp alloc;
  };

  /// The drains of `operands` after the loop, in order.
  SmallVector<Drain> findDrains(MutableArrayRef<StagedOperand> operands) {
    SmallVector<Drain> drains;
    // The ring fetches the tile during the loop: a write of its tensor
    // between the loop and the load would leave the fetched tile stale.
    llvm::SmallDenseSet<Value, 4> written;
    for (Operation *op = loop->getNextNode(); op; op = op->getNextNode()) {
      for (Value tensor : writtenTensors(op))
        written.insert(tensor);
      auto load = dyn_cast<LoadOp>(op);
      if (!load || !load->hasOneUse() || written.contains(load.getTensor()))
        continue;
      auto alloc = dyn_cast<LocalAllocOp>(*load->user_begin());
      if (!alloc || alloc->getBlock() != loop->getBlock() ||
          !llvm::all_of(alloc->getUsers(), llvm::IsaPred<DotOp>))
        continue;
      for (StagedOperand &operand : operands) {
        LoadOp staged = operand.load;
        if (operand.viaRegisters || staged.getTensor() != load.getTensor() ||
            operand.alloc.getType() != alloc.getType() ||
            staged.getPointAxesAttr() != load.getPointAxesAttr())
          continue;
        Value at;
        bool same = llvm::all_of(
            llvm::zip_equal(staged.getOffsets(), load.getOffsets()),
            [&](auto pair) {
              return isSameAt(std::get<0>(pair), std::get<1>(pair), loop, at);
            });
        if (same && at && isLoopEnd(at, loop)) {
          drains.push_back({&operand, load, alloc});
          break;
        }
      }
    }
    return drains;
  }

  /// The first loop after this one in its block, if any: the ragged
  /// remainder tile-split-ragged-loops made, where there is one.
  scf::ForOp nextLoop() {
    for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
      if (auto next = dyn_cast<scf::ForOp>(op))
        return next;
    return nullptr;
  }

  /// Whether the loop can run `remainder`'s iterations itself: `remainder`
  /// is the ragged remainder of this loop (differing only by the in-bounds
  /// promises of its accesses), every staged operand is copied through TMA
  /// (a copy past the bound fills zeros, as the remainder's masked loads
  /// read) and the loop's body does nothing else than stage the operands
  /// and compute on them (pure ops and dots: on those zeros they compute
  /// what the remainder computes on its masked loads' zeros).
  bool canFold(ArrayRef<StagedOperand> operands, scf::ForOp remainder) {
    if (remainder.getLowerBound() != loop.getUpperBound() ||
        !remainder->hasAttr(kRaggedRemainderAttrName) ||
        !llvm::equal(remainder.getInitArgs(), loop.getResults()))
      return false;
    if (llvm::any_of(operands,
                     [](const StagedOperand &o) { return o.viaRegisters; }))
      return false;
    for (Operation &op : loop.getBody()->without_terminator()) {
      bool staged = llvm::any_of(operands, [&](StagedOperand o) {
        return o.load.getOperation() == &op || o.alloc.getOperation() == &op;
      });
      if (!staged && !isa<DotOp>(op) &&
          (op.getNumRegions() != 0 || !isPure(&op)))
        return false;
    }
    return true;
  }

  /// Runs the loop to `remainder`'s bound and erases `remainder`.
  void fold(scf::ForOp remainder) {
    loop.getUpperBoundMutable().assign(remainder.getUpperBound());
    for (auto [result, init] :
         llvm::zip_equal(remainder.getResults(), remainder.getInitArgs()))
      result.replaceAllUsesWith(init);
    folded = remainder;
    remainder.erase();
  }

  /// A swap_ab dot kept in flight reads its B fragments from registers,
  /// which must stay allocated until its group is retired: ptxas (CUDA 13.0)
  /// may reuse a wgmma's A registers for later values while the group still
  /// reads them (wrong results on the H200). The fragments become a register
  /// tile loaded before the dot and carried to the next iteration, where the
  /// wait that retires the group before the next load holds them, as the
  /// wait after the loop (`last`) holds the last ones. The dot's in-flight
  /// group then overlaps the next iteration's barrier, copies and mbarrier
  /// wait.
  void holdFragments(DotOp dot, WgmmaWaitOp last) {
    MLIRContext *context = builder.getContext();
    Location loc = dot.getLoc();
    auto slot = cast<SharedMemoryType>(dot.getB().getType());
    auto kernel = dot->getParentOfType<KernelOp>();
    auto fragments = TileType::get(
        context, slot.getShape(), slot.getElementType(),
        getSwappedWgmmaFragmentLayout(context, getNumWarps(kernel)));
    // No group is in flight before the first iteration: any tile holds.
    builder.setInsertionPoint(loop);
    Value zero = arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(slot.getElementType(), 0.0));
    Value init = FillOp::create(builder, loc, fragments, zero);
    unsigned position = loop.getInitArgs().size();
    loop = addIterArgs(builder, loop, ValueRange{init});
    Value held = loop.getRegionIterArgs()[position];
    builder.setInsertionPoint(dot);
    auto wait = WgmmaWaitOp::create(builder, loc, dot.getAcc(), held,
                                    builder.getI32IntegerAttr(0));
    dot.getAccMutable().assign(wait.getResult());
    Value loaded = LocalLoadOp::create(builder, loc, fragments, dot.getB());
    dot.getBMutable().assign(loaded);
    loop.getBody()->getTerminator()->setOperand(position, loaded);
    last.getHeldMutable().assign(loop.getResult(position));
  }

private:
  /// Whether `value` can be computed for another iteration: the induction
  /// variable, values from outside the loop, and pure ops of those.
  bool canEvaluate(Value value) {
    if (value == loop.getInductionVar() || isOutside(value, loop))
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumRegions() != 0 || !isPure(def))
      return false;
    return llvm::all_of(def->getOperands(),
                        [&](Value operand) { return canEvaluate(operand); });
  }

  /// `value` for the iteration `mapping` maps the induction variable to,
  /// built at the builder's insertion point.
  Value evaluate(Value value, IRMapping &mapping) {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    if (isOutside(value, across ? across : loop))
      return value;
    Operation *def = value.getDefiningOp();
    for (Value operand : def->getOperands())
      evaluate(operand, mapping);
    Operation *clone = builder.clone(*def, mapping);
    return clone->getResult(cast<OpResult>(value).getResultNumber());
  }

  /// The operand's load for the iteration `mapping` gives; `masked`: also
  /// on every axis whose offset moves with the loop (for an iteration that
  /// may not exist).
  Value loadFor(StagedOperand &operand, IRMapping &mapping,
                bool masked = true) {
    LoadOp load = operand.load;
    SmallVector<Value> offsets;
    for (Value offset : load.getOffsets())
      offsets.push_back(evaluate(offset, mapping));
    SmallVector<bool> inBounds(load.getOffsets().size(), false);
    if (std::optional<ArrayRef<bool>> given = load.getInBounds())
      inBounds.assign(given->begin(), given->end());
    if (masked)
      for (auto [axis, offset] : llvm::enumerate(load.getOffsets()))
        if (dependsOnLoop(offset, loop))
          inBounds[axis] = false;
    auto clone = LoadOp::create(
        builder, load.getLoc(), load.getType(), load.getTensor(), offsets,
        load.getPointAxesAttr(), builder.getDenseBoolArrayAttr(inBounds));
    return clone.getResult();
  }

  /// Stores `value` into slot `slotIndex` of the operand's buffer.
  void storeInto(StagedOperand &operand, Value value, Value slotIndex,
                 int64_t lag) {
    Value slot = BufferSlotOp::create(
        builder, operand.load.getLoc(), operand.alloc.getType(), operand.buffer,
        slotIndex, builder.getI64IntegerAttr(lag));
    LocalStoreOp::create(builder, operand.load.getLoc(), value, slot);
  }

  /// Starts the copy of the operand's tile for the iteration `mapping`
  /// gives into slot `slotIndex`; returns it when it is a TMA copy.
  TmaCopyOp copyInto(StagedOperand &operand, Value slotIndex, int64_t lag,
                     Value enable, IRMapping &mapping) {
    LoadOp load = operand.load;
    SmallVector<Value> offsets;
    for (Value offset : load.getOffsets())
      offsets.push_back(evaluate(offset, mapping));
    Value slot = BufferSlotOp::create(builder, load.getLoc(),
                                      operand.alloc.getType(), operand.buffer,
                                      slotIndex, builder.getI64IntegerAttr(lag));
    if (barriers)
      return TmaCopyOp::create(builder, load.getLoc(), load.getTensor(),
                               offsets, slot, barriers, slotIndex, Value(),
                               Value(), enable);
    AsyncCopyOp::create(builder, load.getLoc(), load.getTensor(), offsets,
                        slot, enable, TypeAttr::get(load.getType()),
                        load.getPointAxesAttr(), load.getInBoundsAttr());
    return TmaCopyOp();
  }

  /// The columns of the body's first wgmma dot (a tf32 dot's count twice:
  /// its instructions cover half as many).
  int64_t firstDotColumns() {
    for (Operation &op : loop.getBody()->without_terminator())
      if (auto dot = dyn_cast<DotOp>(op);
          dot && dot.getKind() == DotKind::wgmma) {
        auto type = cast<TileType>(dot.getResult().getType());
        int64_t columns = type.getShape().back();
        Type element = getElementTypeOrSelf(dot.getA().getType());
        return element.isF32() ? 2 * columns : columns;
      }
    return 0;
  }

  /// Where the reads of an iteration's slots are done.
  struct Release {
    /// The op after which no wgmma group that reads them is in flight.
    Operation *after;
    /// 0: `after` in the same iteration; 1: in the next one.
    int64_t iterationsLater;
  };

  /// The first point of the body, this iteration or the next, after which
  /// every read of `slots` (this iteration's slots, read directly by ops of
  /// the body) is done. A wgmma dot issues one group and returns with at
  /// most `in_flight` in flight (none without), a wgmma wait leaves
  /// `pending`; any other reader reads synchronously. A group issued before
  /// n others is retired by a wait for at most n. None when a reader, a
  /// dot or a wait is in a nested region or the reads are not done by the
  /// end of the next iteration.
  std::optional<Release> findRelease(ArrayRef<Value> slots) {
    Block *body = loop.getBody();
    SmallPtrSet<Operation *, 4> readers;
    for (Value slot : slots)
      for (Operation *user : slot.getUsers()) {
        if (user->getBlock() != body)
          return std::nullopt;
        readers.insert(user);
      }
    if (readers.empty())
      return std::nullopt;
    // Readers whose group may be in flight, with the groups issued since.
    SmallVector<std::pair<Operation *, int64_t>> inFlight;
    auto retireAllBut = [&](int64_t pending) {
      llvm::erase_if(inFlight, [&](const auto &reader) {
        return reader.second >= pending;
      });
    };
    bool started = false;
    for (int64_t pass = 0; pass < 2; ++pass)
      for (Operation &op : body->without_terminator()) {
        bool isReader = readers.contains(&op);
        started |= isReader;
        if (!started)
          continue;
        if (auto dot = dyn_cast<DotOp>(op);
            dot && dot.getKind() == DotKind::wgmma) {
          for (auto &reader : inFlight)
            ++reader.second;
          if (pass == 0 && isReader)
            inFlight.push_back({&op, 0});
          retireAllBut(dot.getInFlight().value_or(0));
        } else if (auto wait = dyn_cast<WgmmaWaitOp>(op)) {
          retireAllBut(wait.getPending());
        }
        // A nested region (a mask's branch) issues and retires no group.
        if (op.getNumRegions() != 0 && op.walk([](Operation *nested) {
              return WalkResult(failure(isa<DotOp, WgmmaWaitOp>(nested)));
            }).wasInterrupted())
          return std::nullopt;
        // Done once the last reader has run and nothing it read is in
        // flight.
        bool lastReaderRan =
            pass == 1 || llvm::none_of(readers, [&](Operation *reader) {
              return op.isBeforeInBlock(reader);
            });
        if (lastReaderRan && inFlight.empty())
          return Release{&op, pass};
      }
    return std::nullopt;
  }

  /// The parity of the release the fill at ring position `position` waits
  /// for: the k-th fill of a slot (k = position / S) waits for the k-1-th
  /// release, parity (k + 1) mod 2, which a fresh mbarrier has completed.
  Value releaseParity(Value position) {
    Location loc = loop.getLoc();
    Type type = position.getType();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(builder, loc,
                                       builder.getIntegerAttr(type, value));
    };
    Value fill = arith::DivSIOp::create(builder, loc, position,
                                        constant(stages));
    return toI32(arith::RemSIOp::create(
        builder, loc, arith::AddIOp::create(builder, loc, fill, constant(1)),
        constant(2)));
  }

  /// `copy` made to wait first for phase `parity` of its slot's `empty`
  /// mbarrier.
  static void releasedCopy(TmaCopyOp copy, Value empty, Value parity) {
    OpBuilder at(copy);
    TmaCopyOp::create(at, copy.getLoc(), copy.getTensor(), copy.getOffsets(),
                      copy.getDestination(), copy.getBarriers(),
                      copy.getIndex(), empty, parity, copy.getEnable());
    copy.erase();
  }

  /// Every warp arrives on the slot's empty mbarrier where `release` says
  /// its reads are done; the refills wait for the phase before theirs.
  /// `index` counts the ring's fills (with a persistent kernel's base).
  /// Returns the empty mbarriers.
  Value releaseSlots(const Release &release, ArrayRef<TmaCopyOp> refills,
                     Value index, Value slot, int64_t ahead) {
    Location loc = loop.getLoc();
    auto kernel = loop->getParentOfType<KernelOp>();
    Type indexType = index.getType();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(
          builder, loc, builder.getIntegerAttr(indexType, value));
    };
    builder.setInsertionPoint(barriers.getDefiningOp());
    Value empty = LocalBarriersOp::create(
        builder, loc, barriers.getType(),
        builder.getI32IntegerAttr(static_cast<int32_t>(getNumWarps(kernel))),
        IntegerAttr());
    // Iteration i releases the slot of iteration i - iterationsLater (none
    // before the first).
    builder.setInsertionPointAfter(release.after);
    MbarrierArriveOp arrive;
    if (release.iterationsLater == 0) {
      arrive = MbarrierArriveOp::create(builder, loc, empty, slot, Value());
    } else {
      Value previous = toI32(arith::RemSIOp::create(
          builder, loc,
          arith::AddIOp::create(builder, loc, index, constant(stages - 1)),
          constant(stages)));
      Value exists = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::sgt, index, constant(0));
      arrive = MbarrierArriveOp::create(builder, loc, empty, previous, exists);
    }
    // The refills move behind the body's first run of wgmma dots: every
    // thread waits there for the slot's release, which the slowest warp
    // gave an iteration earlier, so warpgroups may drift apart by up to the
    // rest of an iteration (a wait in front of the dots would hold them
    // together as a barrier does). The copies still run `ahead` iterations
    // ahead, less the dots' issue.
    Operation *anchor = nullptr;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto dot = dyn_cast<DotOp>(op);
      if (dot && dot.getKind() == DotKind::wgmma)
        anchor = &op;
      else if (anchor && !isa<BufferSlotOp>(op) &&
               !isa<arith::ArithDialect>(op.getDialect()))
        break;
    }
    // This iteration's release, when it follows those dots, goes first.
    if (anchor == release.after)
      anchor = arrive;
    if (anchor)
      for (TmaCopyOp refill : refills)
        refill->moveAfter(anchor), anchor = refill;
    // The refill of fill i + ahead waits for that slot's previous release.
    builder.setInsertionPoint(refills.front());
    Value parity = releaseParity(
        arith::AddIOp::create(builder, loc, index, constant(ahead)));
    for (TmaCopyOp refill : refills)
      releasedCopy(refill, empty, parity);
    released = true;
    return empty;
  }

  /// Slots and phases are i32, the ops' operands, whatever the loop's index
  /// type: the ring's arithmetic runs in the loop's type (an i64 loop may
  /// count past 2^31) and only its results, below S, are narrowed.
  Value toI32(Value value) {
    if (value.getType().isInteger(32))
      return value;
    return arith::TruncIOp::create(builder, value.getLoc(),
                                   builder.getI32Type(), value);
  }

  scf::ForOp loop;
  int64_t stages;
  OpBuilder builder;
  /// While a persistent kernel's next tile's copies are made: the tile
  /// loop, whose values `evaluate` computes again for that tile.
  scf::ForOp across;
  /// The TMA copies' mbarriers (null: cp.async).
  Value barriers;

public:
  /// Whether run() released the slots through mbarriers.
  bool released = false;
  /// The remainder loop run() folded into the loop and erased, if any.
  Operation *folded = nullptr;
  /// Whether run() staged drains in the ring.
  bool drained = false;
};

struct TilePipeline : phobos::tile::impl::TilePipelineBase<TilePipeline> {
  using TilePipelineBase::TilePipelineBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel.getPipeline())
      return;
    int64_t requested = kernel.getPipelineStages()
                            ? int64_t(*kernel.getPipelineStages())
                            : int64_t(stages);
    SmallVector<scf::ForOp> loops;
    // (Not a persistent kernel's tile loop, which pipelining a loop in it
    // may replace.)
    kernel.walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(kTileLoopAttrName))
        loops.push_back(loop);
    });
    llvm::StringMap<int64_t> aligned = alignedDims(kernel);
    llvm::SmallPtrSet<Operation *, 2> erased;
    for (scf::ForOp loop : loops) {
      if (erased.contains(loop))
        continue;
      LoopPipeliner pipeliner(loop, 0);
      SmallVector<StagedOperand> operands = pipeliner.findOperands();
      if (operands.empty())
        continue;
      SmallVector<DotOp> inFlight;
      if (dotsInFlight)
        inFlight = pipeliner.dotsToKeepInFlight(operands);
      int64_t chosen = requested > 0
                           ? requested
                           : defaultStages(kernel, loop, operands,
                                           !inFlight.empty());
      if (chosen < 2)
        continue;
      if (chosen < 3)
        inFlight.clear();
      bool useTma =
          tma && llvm::all_of(operands, [&](StagedOperand o) {
            return o.viaRegisters || canCopyThroughTma(o.load, o.alloc.getType(), kernel, aligned);
          });
      LoopPipeliner pipelined(loop, chosen);
      pipelined.foldRemainder = foldRagged;
      pipelined.drainFromRing = drainRing;
      // A producer warpgroup (@warp_specialize) needs every slot released.
      pipelined.run(operands, inFlight, useTma, releaseSlots,
                    releaseEverywhere || kernel.getWarpSpecialize(),
                    releaseMinColumns);
      numReleased += pipelined.released;
      numDrained += pipelined.drained;
      if (pipelined.folded)
        erased.insert(pipelined.folded);
      int64_t viaRegisters = llvm::count_if(
          operands, [](const StagedOperand &o) { return o.viaRegisters; });
      if (useTma)
        numTma += operands.size() - viaRegisters;
      numRegisters += viaRegisters;
      numInFlight += inFlight.size();
      ++numLoops;
      numStages += chosen;
      numCopies += operands.size() - viaRegisters;
    }
  }

  /// Three stages, or two when three do not fit next to the buffers live
  /// during the loop; with dots in flight (which copy one iteration less
  /// ahead), four when they fit.
  int64_t defaultStages(KernelOp kernel, scf::ForOp loop,
                        ArrayRef<StagedOperand> operands, bool inFlight) {
    // Bytes with the padding that aligning the buffer's start may cost
    // (a slot: its stride, which keeps the next slot aligned).
    auto footprint = [](SharedMemoryType type) {
      auto layout = cast<SharedLayoutAttr>(type.getLayout());
      return getSharedMemoryBytes(type) + layout.getBaseAlignment() - 1;
    };
    int64_t staged = 0, others = 0, scratch = 0;
    for (StagedOperand operand : operands)
      staged += getSlotStrideBytes(getStagedType(operand.alloc.getType(), 1));
    kernel.walk([&](Operation *op) {
      scratch = std::max(scratch, getScratchBytes(op));
      if (!isa<LocalAllocOp, LocalBufferOp>(op) ||
          llvm::any_of(operands, [&](StagedOperand o) {
            return o.alloc.getOperation() == op;
          }))
        return;
      if (isLiveDuring(op, loop))
        others += footprint(cast<SharedMemoryType>(op->getResult(0).getType()));
    });
    // Scratch follows every buffer; and a TMA pipeline's mbarriers.
    others += scratch + 64;
    if (inFlight && 4 * staged + others <= maxSharedBytes)
      return 4;
    return 3 * staged + others <= maxSharedBytes ? 3 : 2;
  }

  /// Whether the buffer `alloc` makes may hold data while `loop` runs (as
  /// tile-allocate-shared's live ranges see it): made in the loop, read in
  /// it, or made before it and read after it. A buffer of another loop
  /// shares bytes with this one's slots.
  static bool isLiveDuring(Operation *alloc, scf::ForOp loop) {
    if (loop->isAncestor(alloc))
      return true;
    Block *block = loop->getBlock();
    Operation *at = block->findAncestorOpInBlock(*alloc);
    bool before = at && at->isBeforeInBlock(loop);
    for (Operation *user : alloc->getUsers()) {
      if (loop->isAncestor(user))
        return true;
      Operation *use = block->findAncestorOpInBlock(*user);
      if (!at || !use || (before && loop->isBeforeInBlock(use)))
        return true;
    }
    return false;
  }
};

} // namespace
