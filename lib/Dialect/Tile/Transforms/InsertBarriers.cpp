//===- InsertBarriers.cpp - Barriers and waits from shared-memory accesses
//-===//
//
// A forward analysis over the kernel's structured control flow. The state
// is what was read and written of shared memory since the last barrier
// (SharedMemoryAccess.h), and the groups of asynchronous copies still in
// flight. An op whose access conflicts with the completed accesses gets a
// barrier in front of it, which empties them; an op that reads (or
// overwrites) what a copy in flight writes first gets an `async_wait` for
// the copy's group, after which the copy's writes are completed writes.
// When a barrier is placed, the waits the reads right after it will need
// are moved in front of it, so that one barrier serves both (the steady
// state of a software pipeline: wait, barrier, start the next copy,
// compute).
//
// Copies into the slots of a staged buffer are told apart by the slot's
// `lag` (which iteration's data it holds): a read of this iteration's slot
// waits only for the group that fills it. Reads and writes of slots are
// told apart the same way: a store into the slot two iterations ahead
// does not conflict with a dot reading this iteration's. A loop body starts
// from what was pending before the loop joined with what its end leaves, lags
// shifted by one iteration, computed to a fixed point before anything is placed
// in it; a branch leaves the union of its sides. A TMA copy gets a barrier
// after the last reads of what it overwrites, unless it waits for its
// slot's release on an mbarrier; its own writes are waited for on an
// mbarrier (tile-pipeline places the waits), not here.
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

/// A slot of a staged buffer, by the iteration its data belongs to
/// (lag modulo the stages; -1 when no longer known), and its bytes.
struct SlotWrite {
  Value buffer;
  int64_t lag = -1;
  ByteRange range;
  bool operator==(const SlotWrite &other) const {
    return buffer == other.buffer && lag == other.lag && range == other.range;
  }
  /// The bytes it wrote once complete, as the slot they are.
  ByteRange completed() const {
    ByteRange bytes = range;
    if (buffer && lag >= 0) {
      bytes.slotBuffer = buffer;
      bytes.lag = lag;
    }
    return bytes;
  }
};
using Group = SmallVector<SlotWrite, 2>;

/// Shared memory read and written since the last barrier, and the copies
/// in flight.
struct Pending {
  SmallVector<ByteRange, 4> reads, writes;
  /// Committed groups, oldest first; `open` is not committed yet.
  SmallVector<Group, 4> inflight;
  Group open;

  static void add(SmallVectorImpl<ByteRange> &set, ByteRange range) {
    if (!llvm::is_contained(set, range))
      set.push_back(range);
  }
  static void addAll(Group &group, const Group &more) {
    for (const SlotWrite &write : more)
      if (!llvm::is_contained(group, write))
        group.push_back(write);
  }
  void join(const Pending &other) {
    for (ByteRange range : other.reads)
      add(reads, range);
    for (ByteRange range : other.writes)
      add(writes, range);
    // Groups are aligned on the most recent one.
    if (other.inflight.size() > inflight.size())
      inflight.insert(inflight.begin(),
                      other.inflight.size() - inflight.size(), Group());
    size_t shift = inflight.size() - other.inflight.size();
    for (size_t k = 0; k < other.inflight.size(); ++k)
      addAll(inflight[shift + k], other.inflight[k]);
    addAll(open, other.open);
  }
  bool operator==(const Pending &other) const {
    auto sorted = [](SmallVector<ByteRange, 4> set) {
      llvm::sort(set);
      return set;
    };
    auto sameGroup = [](const Group &a, const Group &b) {
      return a.size() == b.size() &&
             llvm::all_of(a, [&](const SlotWrite &w) {
               return llvm::is_contained(b, w);
             });
    };
    if (inflight.size() != other.inflight.size() ||
        !sameGroup(open, other.open))
      return false;
    for (size_t k = 0; k < inflight.size(); ++k)
      if (!sameGroup(inflight[k], other.inflight[k]))
        return false;
    return sorted(reads) == sorted(other.reads) &&
           sorted(writes) == sorted(other.writes);
  }
  /// Completes all but the `keep` most recent groups.
  void complete(size_t keep) {
    while (inflight.size() > keep) {
      for (const SlotWrite &write : inflight.front())
        add(writes, write.completed());
      inflight.erase(inflight.begin());
    }
  }
  /// Moves every slot's lag one iteration back (the next iteration of the
  /// loop the slots belong to), or forgets the lags.
  void shiftLags(bool forget) {
    auto shift = [&](Group &group) {
      for (SlotWrite &write : group) {
        if (write.lag < 0)
          continue;
        if (forget) {
          write.lag = -1;
          continue;
        }
        int64_t stages =
            cast<SharedMemoryType>(write.buffer.getType()).getShape().front();
        write.lag = (write.lag + stages - 1) % stages;
      }
    };
    for (Group &group : inflight)
      shift(group);
    shift(open);
    // What was read and written of slots since the last barrier, too.
    for (SmallVectorImpl<ByteRange> *set : {&reads, &writes})
      for (ByteRange &range : *set) {
        if (!range.slotBuffer || range.lag < 0)
          continue;
        if (forget) {
          range.lag = -1;
          continue;
        }
        int64_t stages = cast<SharedMemoryType>(range.slotBuffer.getType())
                             .getShape()
                             .front();
        range.lag = (range.lag + stages - 1) % stages;
      }
  }
};

/// Whether `range` may touch bytes of `set`: with `byteRanges` where they
/// overlap, else anywhere (shared memory as one location); never where
/// both are slots known to be different (ByteRange::disjointSlots).
bool conflictsWithAny(ByteRange range, ArrayRef<ByteRange> set,
                      bool byteRanges) {
  return llvm::any_of(set, [&](ByteRange other) {
    return !range.disjointSlots(other) &&
           (!byteRanges || range.overlaps(other));
  });
}

/// The slot a `!phobos.smem` value names: (buffer, lag) of a buffer_slot.
std::optional<SlotWrite> slotOf(Value value) {
  auto slot = value.getDefiningOp<BufferSlotOp>();
  if (!slot)
    return std::nullopt;
  int64_t stages = slot.getBuffer().getType().getShape().front();
  return SlotWrite{slot.getBuffer(), static_cast<int64_t>(slot.getLag()) % stages,
                   getBufferRange(slot)};
}

class BarrierPlacer {
public:
  /// With `byteRanges`, accesses conflict only where their bytes overlap;
  /// without, shared memory is one location.
  BarrierPlacer(KernelOp kernel, bool byteRanges)
      : kernel(kernel), byteRanges(byteRanges) {}

  unsigned run() {
    Pending state;
    Block &body = kernel.getBody().front();
    processBlock(body, state, /*place=*/true);
    // Nothing may be in flight when the kernel ends.
    if (!state.inflight.empty() || !state.open.empty())
      insertWait(body.getTerminator(), 0, /*place=*/true);
    return placed;
  }

private:
  /// Whether `access` conflicts with the completed accesses of `state`.
  bool conflicts(const SharedMemoryAccess &access, const Pending &state) const {
    // As one location, a write waits only for reads: a location written
    // twice is read in between (allocation reuses bytes only after their
    // last reader; a scratch exchange reads what it wrote), or the first
    // value is dead. An exchange's reads follow its own barrier: only its
    // writes can race with what is pending.
    bool reads = !access.reads.empty() && !access.internalBarrier;
    for (ByteRange range : access.writes)
      if (conflictsWithAny(range, state.reads, byteRanges) ||
          (byteRanges && conflictsWithAny(range, state.writes, byteRanges)))
        return true;
    if (reads)
      for (ByteRange range : access.reads)
        if (conflictsWithAny(range, state.writes, byteRanges))
          return true;
    return false;
  }

  /// Whether `op` conflicts with what `state` has pending, where a TMA
  /// refill that waits for its slot's release (tile-pipeline's empty
  /// mbarriers, on which every reader of the slots arrives when done) is
  /// ordered after the reads of its buffer's slots by that wait, and only
  /// conflicts with accesses of the bytes it writes (one thread issues it:
  /// there is nothing for LLVM to move across a barrier in front of it).
  bool conflictsAt(Operation *op, const SharedMemoryAccess &access,
                   const Pending &state) const {
    auto copy = dyn_cast<TmaCopyOp>(op);
    auto slot = copy && copy.getReleased()
                    ? copy.getDestination().getDefiningOp<BufferSlotOp>()
                    : BufferSlotOp();
    if (!slot)
      return conflicts(access, state);
    Pending others = state;
    ByteRange ring = getBufferRange(slot.getBuffer());
    auto ofRing = [&](const ByteRange &range) {
      return range.slotBuffer == slot.getBuffer() || !range.overlaps(ring);
    };
    llvm::erase_if(others.reads, ofRing);
    llvm::erase_if(others.writes, ofRing);
    return conflicts(access, others);
  }

  /// How many in-flight groups may stay in flight when `op` runs: the
  /// groups older than the newest one that writes what `op` reads or
  /// writes complete. `state.inflight.size()` when nothing need wait; -1
  /// when the copy is not even committed.
  int64_t groupsThatMayStay(Operation *op, const Pending &state) {
    SharedMemoryAccess access = getSharedMemoryAccess(op, kernel);
    // Slots are told apart by lag; every other access by its bytes.
    SmallVector<SlotWrite> slots;
    SmallVector<ByteRange> ranges;
    for (Value operand : op->getOperands())
      if (std::optional<SlotWrite> slot = slotOf(operand))
        slots.push_back(*slot);
    auto isSlotRange = [&](ByteRange range) {
      return llvm::any_of(slots, [&](const SlotWrite &slot) {
        return slot.range.begin == range.begin && slot.range.end == range.end;
      });
    };
    for (ByteRange range : access.reads)
      if (!isSlotRange(range))
        ranges.push_back(range);
    for (ByteRange range : access.writes)
      if (!isSlotRange(range))
        ranges.push_back(range);
    auto needs = [&](const Group &group) {
      for (const SlotWrite &write : group) {
        for (const SlotWrite &slot : slots)
          if (write.buffer == slot.buffer &&
              (write.lag < 0 || write.lag == slot.lag))
            return true;
        if (llvm::any_of(ranges, [&](ByteRange range) {
              return range.overlaps(write.range);
            }))
          return true;
      }
      return false;
    };
    if (needs(state.open))
      return -1;
    for (size_t k = state.inflight.size(); k-- > 0;)
      if (needs(state.inflight[k]))
        return static_cast<int64_t>(state.inflight.size() - 1 - k);
    return static_cast<int64_t>(state.inflight.size());
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
    if (isa<AsyncCommitOp>(op)) {
      state.inflight.push_back(state.open);
      state.open.clear();
      return;
    }
    if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      state.complete(wait.getPending());
      return;
    }
    SharedMemoryAccess access = getSharedMemoryAccess(op, kernel);
    if (access.isBarrier) {
      state.reads.clear();
      state.writes.clear();
      return;
    }
    if (access.empty())
      return;

    // Copies in flight that this op reads or overwrites complete first.
    int64_t stay = groupsThatMayStay(op, state);
    if (stay < 0) {
      // It needs a copy that is not even committed: commit and drain.
      insertBefore<AsyncCommitOp>(op, place);
      state.inflight.push_back(state.open);
      state.open.clear();
      stay = 0;
    }
    if (stay < static_cast<int64_t>(state.inflight.size())) {
      insertWait(op, stay, place);
      state.complete(stay);
    }

    if (conflictsAt(op, access, state)) {
      // The waits the next reads need join this barrier.
      int64_t ahead = waitsAhead(op, state);
      if (ahead < static_cast<int64_t>(state.inflight.size())) {
        insertWait(op, ahead, place);
        state.complete(ahead);
      }
      insertBefore<BarrierOp>(op, place);
      state.reads.clear();
      state.writes.clear();
    }

    // A TMA copy's writes become visible through its mbarrier, which the
    // readers wait on: only its conflict with earlier reads (the barrier
    // above) is this analysis's.
    if (isa<TmaCopyOp>(op))
      return;
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      SlotWrite write{copy.getDestination(), -1,
                      getBufferRange(copy.getDestination())};
      if (std::optional<SlotWrite> slot = slotOf(copy.getDestination()))
        write = *slot;
      state.open.push_back(write);
      return;
    }
    if (access.internalBarrier) {
      state.reads.clear();
      state.writes.clear();
    } else {
      for (ByteRange range : access.writes)
        Pending::add(state.writes, range);
    }
    for (ByteRange range : access.reads)
      Pending::add(state.reads, range);
  }

  /// The fewest groups that may stay in flight for the ops after `op` in
  /// its block, up to the next op that needs a barrier of its own, so that
  /// none of them waits for a copy committed before `op`.
  int64_t waitsAhead(Operation *op, const Pending &state) {
    int64_t keep = static_cast<int64_t>(state.inflight.size());
    for (Operation *next = op; next; next = next->getNextNode()) {
      // A commit only adds newer groups; an explicit wait or a region ends
      // the look.
      if (next->getNumRegions() != 0 || isa<AsyncWaitOp>(next))
        break;
      if (next->hasTrait<OpTrait::IsTerminator>())
        break;
      int64_t stay = groupsThatMayStay(next, state);
      if (stay >= 0)
        keep = std::min(keep, stay);
    }
    return keep;
  }

  /// A barrier (or a commit) before `op`; in a dry run barriers are only
  /// counted.
  template <typename Op>
  void insertBefore(Operation *op, bool place) {
    constexpr bool barrier = std::is_same_v<Op, BarrierOp>;
    if (barrier)
      ++counted;
    if (!place)
      return;
    OpBuilder builder(op);
    Op::create(builder, op->getLoc());
    if (barrier)
      ++placed;
  }

  void insertWait(Operation *op, int64_t pending, bool place) {
    if (!place)
      return;
    OpBuilder builder(op);
    AsyncWaitOp::create(builder, op->getLoc(),
                        builder.getI32IntegerAttr(static_cast<int32_t>(pending)));
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
      end.shiftLags(/*forget=*/true);
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
    state.shiftLags(/*forget=*/true);
  }

  /// The state at the start of `regions` (run in order, any number of
  /// times) when `before` is pending on entry: a fixed point of joining
  /// what one pass over them leaves, the slots' lags moved to the next
  /// iteration. Sets `barriers` to how many barriers one pass places.
  Pending loopEntry(ArrayRef<Region *> regions, const Pending &before,
                    unsigned &barriers) {
    Pending entry = before;
    for (int round = 0;; ++round) {
      Pending end = entry;
      unsigned start = counted;
      for (Region *region : regions)
        processRegion(*region, end, /*place=*/false);
      barriers = counted - start;
      end.shiftLags(/*forget=*/false);
      Pending next = before;
      next.join(end);
      // Lags and groups are finite; a long chain of joins means the
      // in-flight groups keep growing: forget the lags to converge.
      if (round > 16)
        next.shiftLags(/*forget=*/true);
      if (next == entry)
        return entry;
      entry = next;
    }
  }

  /// `regions` run in order, any number of times. When what is pending
  /// before the loop is what makes the body place more barriers (a buffer
  /// written before the loop and only read in it), one barrier before the
  /// loop replaces them.
  void processLoop(ArrayRef<Region *> regions, Pending &state, bool place) {
    unsigned withState = 0, fromEmpty = 0;
    Pending entry = loopEntry(regions, state, withState);
    if (!state.reads.empty() || !state.writes.empty()) {
      Pending clean = state;
      clean.reads.clear();
      clean.writes.clear();
      Pending cleanEntry = loopEntry(regions, clean, fromEmpty);
      if (fromEmpty < withState) {
        insertBefore<BarrierOp>(regions.front()->getParentOp(), place);
        state = clean;
        entry = cleanEntry;
      }
    }
    Pending end = entry;
    for (Region *region : regions)
      processRegion(*region, end, place);
    state = entry;
    end.shiftLags(/*forget=*/false);
    state.join(end);
    // After the loop, its slots' lags mean nothing.
    state.shiftLags(/*forget=*/true);
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
