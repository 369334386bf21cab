//===- EpilogueOrder.cpp - An epilogue's registers, one run at a time -----===//

#include "EpilogueOrder.h"

#include "PatternBase.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace phobos::tile;

namespace {
constexpr llvm::StringLiteral kSliceAttr = "phobos.update_slice";
constexpr llvm::StringLiteral kRegistersAttr = "phobos.update_registers";
constexpr llvm::StringLiteral kWritesAttr = "phobos.update_writes";
constexpr llvm::StringLiteral kReadOnlyAttr = "phobos.read_only";
constexpr llvm::StringLiteral kEpilogueAttr = "phobos.epilogue";

/// Whether no two registers of one thread hold the same element: along
/// every axis no register wraps past the extent and the register offsets
/// differ.
bool registersAreDistinct(TileType type) {
  if (!isa_and_nonnull<DistributedLayoutInterface>(type.getEncoding()))
    return false;
  DistributedLayout layout = layoutOf(type);
  for (const AxisDistribution &axis : layout.getAxes()) {
    if (axis.wraps)
      return false;
    llvm::SmallDenseSet<int64_t, 16> offsets;
    for (int64_t q = 0; q < axis.registers(); ++q)
      if (!offsets.insert(axis.constOffset(q)).second)
        return false;
  }
  return true;
}

bool sameSlice(LoadOp load, StoreOp store) {
  return load.getTensor() == store.getTensor() &&
         load.getOffsets() == store.getOffsets() &&
         load.getPointAxes() == store.getPointAxes() &&
         load.getType() == store.getValue().getType();
}

bool isPureLeaf(Operation *op) {
  return op->getNumRegions() == 0 && !op->hasTrait<OpTrait::IsTerminator>() &&
         isMemoryEffectFree(op);
}

/// The math intrinsics the lowering calls (ThreadEmitter::mathFunction,
/// saturating conversions): pure, though llvm.call_intrinsic does not say so.
bool isPureIntrinsic(Operation *op) {
  auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
  if (!call)
    return false;
  StringRef name = call.getIntrin();
  return llvm::any_of(
      ArrayRef<StringRef>{"llvm.nvvm.ex2.approx.", "llvm.nvvm.lg2.approx.",
                          "llvm.nvvm.rsqrt.approx.", "llvm.tanh.", "llvm.fabs.",
                          "llvm.sqrt.",
                          "llvm.fptosi.sat."},
      [&](StringRef prefix) { return name.starts_with(prefix); });
}

bool isTaggedRead(Operation *op) {
  return op->hasAttr(kSliceAttr) && !op->hasAttr(kWritesAttr);
}

/// Whether the tagged ops `a` and `b` move different registers of one
/// slice.
bool disjoint(Operation *a, Operation *b) {
  if (a->getAttr(kSliceAttr) != b->getAttr(kSliceAttr))
    return false;
  auto left = a->getAttrOfType<DenseI64ArrayAttr>(kRegistersAttr);
  auto right = b->getAttrOfType<DenseI64ArrayAttr>(kRegistersAttr);
  if (!left || !right)
    return false;
  for (int64_t reg : left.asArrayRef())
    if (llvm::is_contained(right.asArrayRef(), reg))
      return false;
  return true;
}

/// Whether the tagged read `read` may move past `op`.
bool mayCross(Operation *read, Operation *op) {
  if (isPureLeaf(op) || isTaggedRead(op))
    return true;
  return op->hasAttr(kWritesAttr) && disjoint(read, op);
}

void interleaveBlock(Block &block) {
  Operation *first = nullptr;
  for (Operation &op : block)
    if (isTaggedRead(&op)) {
      first = &op;
      break;
    }
  if (!first)
    return;
  SmallVector<Operation *> ops;
  for (Operation *op = first; op; op = op->getNextNode())
    ops.push_back(op);
  for (Operation *op : llvm::reverse(ops)) {
    bool read = isTaggedRead(op);
    if (!read && !isPureLeaf(op))
      continue;
    // The first op of the block that uses a result (or holds a user).
    Operation *target = nullptr;
    bool local = true;
    for (Operation *user : op->getUsers()) {
      Operation *ancestor = block.findAncestorOpInBlock(*user);
      if (!ancestor) {
        local = false;
        break;
      }
      if (!target || ancestor->isBeforeInBlock(target))
        target = ancestor;
    }
    if (!local || !target || target == op->getNextNode())
      continue;
    // Only what can move past a store moves: the rest keeps its place.
    bool pastStore = false, crossable = true;
    for (Operation *between = op->getNextNode(); between != target;
         between = between->getNextNode()) {
      pastStore |= between->hasAttr(kWritesAttr);
      // A pure op needs only one store between; a load must cross all.
      if (!read && pastStore)
        break;
      if (read && !mayCross(op, between)) {
        crossable = false;
        break;
      }
    }
    if (pastStore && crossable)
      op->moveBefore(target);
  }
}
} // namespace

void phobos::tile::markEpilogues(KernelOp kernel) {
  Builder b(kernel.getContext());
  // Tensors the kernel only reads: their loads may move past any store.
  for (BlockArgument arg : kernel.getBody().getArguments()) {
    if (!isa<GlobalTensorType>(arg.getType()))
      continue;
    bool readOnly = llvm::all_of(arg.getUsers(), [](Operation *user) {
      return isa<LoadOp, LoadScalarOp, DimOp>(user);
    });
    if (readOnly)
      for (Operation *user : arg.getUsers())
        if (isa<LoadOp>(user))
          user->setAttr(kReadOnlyAttr, b.getUnitAttr());
  }
  kernel.walk([&](StoreOp store) {
    if (isa<MmaLayoutAttr>(store.getValue().getType().getEncoding()))
      store->setAttr(kEpilogueAttr, b.getUnitAttr());
  });
  int64_t next = 0;
  kernel.walk([&](StoreOp store) {
    if (!registersAreDistinct(store.getValue().getType()))
      return;
    IntegerAttr id;
    for (Operation *op = store->getPrevNode(); op; op = op->getPrevNode()) {
      auto load = dyn_cast<LoadOp>(op);
      if (!load || load->hasAttr(kSliceAttr) || !sameSlice(load, store))
        continue;
      if (!id)
        id = b.getI64IntegerAttr(next++);
      load->setAttr(kSliceAttr, id);
    }
    if (id)
      store->setAttr(kSliceAttr, id);
  });
}

int64_t phobos::tile::getInPlaceUpdate(Operation *op) {
  if (auto id = op->getAttrOfType<IntegerAttr>(kSliceAttr))
    return id.getInt();
  return -1;
}

EpilogueTagger::EpilogueTagger(Operation *op, bool writes, Block *block,
                           Block::iterator point)
    : slice(getInPlaceUpdate(op)), writes(writes),
      readOnly(op->hasAttr(kReadOnlyAttr)), epilogue(op->hasAttr(kEpilogueAttr)),
      block(block), point(point),
      last(point == block->begin() ? nullptr : &*std::prev(point)) {}

void EpilogueTagger::tag(ArrayRef<int64_t> registers) {
  Operation *end = point == block->end() ? nullptr : &*point;
  Operation *op = last ? last->getNextNode() : &block->front();
  if (slice >= 0 || readOnly || epilogue) {
    Builder b(block->getParentOp()->getContext());
    for (; op && op != end; op = op->getNextNode()) {
      if (isMemoryEffectFree(op))
        continue;
      if (readOnly)
        op->setAttr(kReadOnlyAttr, b.getUnitAttr());
      if (epilogue)
        op->setAttr(kEpilogueAttr, b.getUnitAttr());
      if (slice < 0)
        continue;
      op->setAttr(kSliceAttr, b.getI64IntegerAttr(slice));
      op->setAttr(kRegistersAttr, b.getDenseI64ArrayAttr(registers));
      if (writes)
        op->setAttr(kWritesAttr, b.getUnitAttr());
    }
  }
  last = end ? end->getPrevNode() : (block->empty() ? nullptr : &block->back());
}

namespace {
/// Puts the straight-line tail of an epilogue's block (from `start`) in the
/// order its non-movable ops (anchors: stores, barriers, in-place reads)
/// need it: before each anchor, the movable ops it depends on that are not
/// placed yet, in their original order, and the read-only loads of the next
/// kPrefetchAnchors anchors, so that their latency overlaps this anchor's
/// arithmetic. Movable: pure ops, the pure math intrinsics, shuffles (which
/// stay in their block, so every lane still runs them) and loads of tensors
/// the kernel never writes (nothing in it can change what they read), whose
/// users are all in the block.
class EpilogueScheduler {
public:
  static constexpr size_t kPrefetchAnchors = 2;

  EpilogueScheduler(Block &block, Operation *start) : block(block) {
    for (Operation *op = start; op; op = op->getNextNode()) {
      tail.insert(op);
      position[op] = position.size();
    }
  }

  void run() {
    SmallVector<Operation *> anchors;
    for (Operation &op : block)
      if (tail.contains(&op) && !movable(&op)) {
        anchorIndex[&op] = anchors.size();
        anchors.push_back(&op);
      }
    for (auto [k, anchor] : llvm::enumerate(anchors)) {
      for (size_t n = k + 1; n <= k + kPrefetchAnchors && n < anchors.size(); ++n)
        prefetch(anchors[n], anchor, k);
      place(anchor, anchor);
    }
    // What no anchor needs (dead values, or values only they use) goes
    // last, after what it uses.
    Operation *end = anchors.empty() ? nullptr : anchors.back();
    SmallVector<Operation *> rest;
    for (Operation &op : block)
      if (tail.contains(&op) && pending(&op))
        rest.push_back(&op);
    for (Operation *op : rest) {
      if (!pending(op))
        continue;
      Operation *before = end && end->hasTrait<OpTrait::IsTerminator>() ? end : nullptr;
      place(op, before);
      placed.insert(op);
      if (before)
        op->moveBefore(before);
      else
        op->moveBefore(&block, block.end());
    }
  }

private:
  bool movable(Operation *op) {
    auto [it, inserted] = movableCache.try_emplace(op, false);
    if (!inserted)
      return it->second;
    // (NVVM's ops stay: some that order the tensor cores, such as
    // wgmma.fence, declare no effects.)
    bool arithmetic = isPureLeaf(op) && op->getNumResults() > 0 &&
                      !isa<NVVM::NVVMDialect>(op->getDialect());
    bool kind = arithmetic || isPureIntrinsic(op) || isa<NVVM::ShflOp>(op) ||
                op->hasAttr(kReadOnlyAttr);
    it->second = kind && llvm::all_of(op->getUsers(), [&](Operation *user) {
                   return block.findAncestorOpInBlock(*user) != nullptr;
                 });
    return it->second;
  }
  /// The tail ops whose results `op` (or an op nested in it) uses.
  SmallVector<Operation *> inputs(Operation *op) {
    SmallVector<Operation *> result;
    op->walk([&](Operation *nested) {
      for (Value value : nested->getOperands()) {
        Operation *def = value.getDefiningOp();
        if (def && def->getBlock() == &block && tail.contains(def))
          result.push_back(def);
      }
    });
    return result;
  }
  bool pending(Operation *op) { return !placed.contains(op) && movable(op); }
  /// Moves the pending ops `op` depends on before `before` (null: to the
  /// end of the block), operands first.
  void place(Operation *op, Operation *before) {
    // The pending ops it depends on, in their original order (a
    // topological one, in which the lowering emitted each tile op for all
    // its registers: the cone's elements stay interleaved, op by op, for
    // the scheduler to overlap).
    SmallVector<Operation *> cone, work = inputs(op);
    llvm::SmallPtrSet<Operation *, 32> seen;
    while (!work.empty()) {
      Operation *current = work.pop_back_val();
      if (!pending(current) || !seen.insert(current).second)
        continue;
      cone.push_back(current);
      llvm::append_range(work, inputs(current));
    }
    llvm::sort(cone, [&](Operation *a, Operation *b) {
      return position.lookup(a) < position.lookup(b);
    });
    for (Operation *current : cone) {
      placed.insert(current);
      if (before)
        current->moveBefore(before);
      else
        current->moveBefore(&block, block.end());
    }
  }
  /// Whether every anchor `op` depends on through pending ops comes before
  /// the anchor numbered `index`.
  bool readyBefore(Operation *op, size_t index) {
    SmallVector<Operation *> work = inputs(op);
    llvm::SmallPtrSet<Operation *, 32> seen;
    while (!work.empty()) {
      Operation *current = work.pop_back_val();
      if (!seen.insert(current).second)
        continue;
      auto anchor = anchorIndex.find(current);
      if (anchor != anchorIndex.end()) {
        if (anchor->second >= index)
          return false;
        continue;
      }
      if (pending(current))
        llvm::append_range(work, inputs(current));
    }
    return true;
  }
  /// Places the read-only loads `anchor` depends on (and what they need)
  /// before `before`, the anchor numbered `index`, where nothing they need
  /// comes after it.
  void prefetch(Operation *anchor, Operation *before, size_t index) {
    SmallVector<Operation *> work = inputs(anchor);
    llvm::SmallPtrSet<Operation *, 32> seen;
    while (!work.empty()) {
      Operation *current = work.pop_back_val();
      if (!pending(current) || !seen.insert(current).second)
        continue;
      if (current->hasAttr(kReadOnlyAttr)) {
        if (!readyBefore(current, index))
          continue;
        place(current, before);
        placed.insert(current);
        current->moveBefore(before);
        continue;
      }
      llvm::append_range(work, inputs(current));
    }
  }

  Block &block;
  llvm::DenseSet<Operation *> tail, placed;
  llvm::DenseMap<Operation *, bool> movableCache;
  llvm::DenseMap<Operation *, size_t> anchorIndex, position;
};

/// Orders the tail of `block` from after the last loop, branch (an op with
/// regions that the lowering of a load or store did not emit) or op of the
/// tensor cores' and barriers' (NVVM's but shuffles, inline assembly) before
/// its first epilogue store.
void scheduleEpilogue(Block &block) {
  Operation *start = &block.front();
  for (Operation &op : block) {
    if (op.hasAttr(kEpilogueAttr))
      break;
    bool tagged = op.hasAttr(kReadOnlyAttr) || op.hasAttr(kSliceAttr);
    bool machine = isa<LLVM::InlineAsmOp>(op) ||
                   (isa<NVVM::NVVMDialect>(op.getDialect()) && !isa<NVVM::ShflOp>(op));
    if (!tagged && (op.getNumRegions() || machine))
      start = op.getNextNode();
  }
  if (start)
    EpilogueScheduler(block, start).run();
}
} // namespace

void phobos::tile::orderEpilogues(Operation *root, bool byStore) {
  SmallVector<Block *> blocks, epilogues;
  bool any = false;
  root->walk([&](Operation *op) {
    if (op->hasAttr(kSliceAttr)) {
      any = true;
      blocks.push_back(op->getBlock());
    }
    if (byStore && op->hasAttr(kEpilogueAttr)) {
      any = true;
      epilogues.push_back(op->getBlock());
    }
  });
  if (!any)
    return;
  llvm::SmallDenseSet<Block *, 4> seen;
  for (Block *block : blocks)
    if (seen.insert(block).second)
      interleaveBlock(*block);
  seen.clear();
  for (Block *block : epilogues)
    if (seen.insert(block).second)
      scheduleEpilogue(*block);
  root->walk([](Operation *op) {
    op->removeAttr(kSliceAttr);
    op->removeAttr(kRegistersAttr);
    op->removeAttr(kWritesAttr);
    op->removeAttr(kReadOnlyAttr);
    op->removeAttr(kEpilogueAttr);
  });
}
