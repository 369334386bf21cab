//===- InsertBarriers.cpp - Barriers from shared-memory accesses ----------===//
//
// A forward analysis over the kernel's structured control flow. The state
// is what was read and written of shared memory since the last barrier
// (byte ranges, SharedMemoryAccess.h); an op whose access conflicts with
// it (it reads what was written, or writes what was read or written) gets
// a barrier in front of it, which empties the state. A loop body starts
// from what was pending before the loop joined with what its end leaves
// (the previous iteration), computed to a fixed point before barriers are
// placed in it; a branch leaves the union of its sides.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/Passes.h"
#include "Phobos/Dialect/Tile/Transforms/SharedMemoryAccess.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// Shared memory read and written since the last barrier.
struct Pending {
  SmallVector<ByteRange, 4> reads, writes;

  static void add(SmallVectorImpl<ByteRange> &set, ByteRange range) {
    if (!llvm::is_contained(set, range))
      set.push_back(range);
  }
  void join(const Pending &other) {
    for (ByteRange range : other.reads)
      add(reads, range);
    for (ByteRange range : other.writes)
      add(writes, range);
  }
  bool operator==(const Pending &other) const {
    auto sorted = [](SmallVector<ByteRange, 4> set) {
      llvm::sort(set);
      return set;
    };
    return sorted(reads) == sorted(other.reads) &&
           sorted(writes) == sorted(other.writes);
  }
  bool empty() const { return reads.empty() && writes.empty(); }
};

bool overlapsAny(ByteRange range, ArrayRef<ByteRange> set) {
  return llvm::any_of(set, [&](ByteRange other) { return range.overlaps(other); });
}

class BarrierPlacer {
public:
  /// With `byteRanges`, accesses conflict only where their bytes overlap;
  /// without, shared memory is one location.
  BarrierPlacer(KernelOp kernel, bool byteRanges)
      : kernel(kernel), byteRanges(byteRanges) {}

  unsigned run() {
    Pending state;
    processBlock(kernel.getBody().front(), state, /*place=*/true);
    return placed;
  }

private:
  /// Whether `access` conflicts with `state`.
  bool conflicts(const SharedMemoryAccess &access, const Pending &state) const {
    // As one location, a write waits only for reads: a location written
    // twice is read in between (allocation reuses bytes only after their
    // last reader; a scratch exchange reads what it wrote), or the first
    // value is dead. An exchange's reads follow its own barrier: only its
    // writes can race with what is pending.
    bool reads = !access.reads.empty() && !access.internalBarrier;
    if (!byteRanges)
      return (!access.writes.empty() && !state.reads.empty()) ||
             (reads && !state.writes.empty());
    for (ByteRange range : access.writes)
      if (overlapsAny(range, state.reads) || overlapsAny(range, state.writes))
        return true;
    if (reads)
      for (ByteRange range : access.reads)
        if (overlapsAny(range, state.writes))
          return true;
    return false;
  }

  void processBlock(Block &block, Pending &state, bool place) {
    for (Operation &op : block)
      processOp(&op, state, place);
  }

  void processOp(Operation *op, Pending &state, bool place) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return processLoop({&loop.getRegion()}, state, place);
    if (auto loop = dyn_cast<scf::WhileOp>(op))
      return processWhile(loop, state, place);
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      Pending thenState = state, elseState = state;
      processRegion(branch.getThenRegion(), thenState, place);
      processRegion(branch.getElseRegion(), elseState, place);
      state = thenState;
      state.join(elseState);
      return;
    }
    if (op->getNumRegions() != 0) {
      // Any other region may run any number of times.
      SmallVector<Region *> regions;
      for (Region &region : op->getRegions())
        regions.push_back(&region);
      return processLoop(regions, state, place);
    }
    SharedMemoryAccess access = getSharedMemoryAccess(op, kernel);
    if (access.isBarrier) {
      state = Pending();
      return;
    }
    if (access.empty())
      return;
    if (conflicts(access, state)) {
      insertBarrierBefore(op, place);
      state = Pending();
    }
    if (access.internalBarrier)
      state = Pending();
    else
      for (ByteRange range : access.writes)
        Pending::add(state.writes, range);
    for (ByteRange range : access.reads)
      Pending::add(state.reads, range);
  }

  /// A barrier before `op`, or (dry run) only counted.
  void insertBarrierBefore(Operation *op, bool place) {
    ++counted;
    if (!place)
      return;
    OpBuilder builder(op);
    BarrierOp::create(builder, op->getLoc());
    ++placed;
  }

  void processRegion(Region &region, Pending &state, bool place) {
    for (Block &block : region)
      processBlock(block, state, place);
  }

  /// The condition region runs first, then (while it holds) the body and
  /// the condition again; the loop exits after the condition.
  void processWhile(scf::WhileOp loop, Pending &state, bool place) {
    Pending entry = state;
    while (true) {
      Pending end = entry;
      processRegion(loop.getBefore(), end, /*place=*/false);
      processRegion(loop.getAfter(), end, /*place=*/false);
      Pending next = state;
      next.join(end);
      if (next == entry)
        break;
      entry = next;
    }
    processRegion(loop.getBefore(), entry, place);
    Pending afterState = entry;
    processRegion(loop.getAfter(), afterState, place);
    state = entry;
  }

  /// The state at the start of `regions` (run in order, any number of
  /// times) when `before` is pending on entry: a fixed point of joining
  /// what one pass over them leaves. Sets `barriers` to how many barriers
  /// one pass places from there.
  Pending loopEntry(ArrayRef<Region *> regions, const Pending &before,
                    unsigned &barriers) {
    Pending entry = before;
    while (true) {
      Pending end = entry;
      unsigned start = counted;
      for (Region *region : regions)
        processRegion(*region, end, /*place=*/false);
      barriers = counted - start;
      Pending next = before;
      next.join(end);
      if (next == entry)
        return entry;
      entry = next;
    }
  }

  /// `regions` run in order, any number of times. When what is pending
  /// before the loop is what makes the body place more barriers (a buffer
  /// written before the loop and read in it), one barrier before the loop
  /// replaces them.
  void processLoop(ArrayRef<Region *> regions, Pending &state, bool place) {
    unsigned withState = 0, fromEmpty = 0;
    Pending entry = loopEntry(regions, state, withState);
    if (!state.empty()) {
      Pending clean = loopEntry(regions, Pending(), fromEmpty);
      if (fromEmpty < withState) {
        insertBarrierBefore(regions.front()->getParentOp(), place);
        state = Pending();
        entry = clean;
      }
    }
    Pending end = entry;
    for (Region *region : regions)
      processRegion(*region, end, place);
    state = entry;
    state.join(end);
  }

  KernelOp kernel;
  bool byteRanges;
  /// Barriers placed, and barriers placed or counted by dry runs.
  unsigned placed = 0, counted = 0;
};

struct TileInsertBarriers
    : phobos::tile::impl::TileInsertBarriersBase<TileInsertBarriers> {
  using TileInsertBarriersBase::TileInsertBarriersBase;
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    numBarriers += BarrierPlacer(kernel, byteRanges).run();
    kernel->setAttr(KernelOp::kBarriersAttrName, UnitAttr::get(&getContext()));
  }
};

} // namespace
