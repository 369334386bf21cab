//===- InPlaceUpdates.cpp - Read, compute, write back, per register -------===//

#include "InPlaceUpdates.h"

#include "PatternBase.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace phobos::tile;

namespace {
constexpr llvm::StringLiteral kSliceAttr = "phobos.update_slice";
constexpr llvm::StringLiteral kRegistersAttr = "phobos.update_registers";
constexpr llvm::StringLiteral kWritesAttr = "phobos.update_writes";

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

void phobos::tile::markInPlaceUpdates(KernelOp kernel) {
  Builder b(kernel.getContext());
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

UpdateTagger::UpdateTagger(int64_t slice, bool writes, Block *block,
                           Block::iterator point)
    : slice(slice), writes(writes), block(block), point(point),
      last(point == block->begin() ? nullptr : &*std::prev(point)) {}

void UpdateTagger::tag(ArrayRef<int64_t> registers) {
  Operation *end = point == block->end() ? nullptr : &*point;
  Operation *op = last ? last->getNextNode() : &block->front();
  if (slice >= 0) {
    Builder b(block->getParentOp()->getContext());
    for (; op && op != end; op = op->getNextNode()) {
      if (isMemoryEffectFree(op))
        continue;
      op->setAttr(kSliceAttr, b.getI64IntegerAttr(slice));
      op->setAttr(kRegistersAttr, b.getDenseI64ArrayAttr(registers));
      if (writes)
        op->setAttr(kWritesAttr, b.getUnitAttr());
    }
  }
  last = end ? end->getPrevNode() : (block->empty() ? nullptr : &block->back());
}

void phobos::tile::interleaveInPlaceUpdates(Operation *root) {
  SmallVector<Block *> blocks;
  bool any = false;
  root->walk([&](Operation *op) {
    if (op->hasAttr(kSliceAttr)) {
      any = true;
      blocks.push_back(op->getBlock());
    }
  });
  if (!any)
    return;
  llvm::SmallDenseSet<Block *, 4> seen;
  for (Block *block : blocks)
    if (seen.insert(block).second)
      interleaveBlock(*block);
  root->walk([](Operation *op) {
    op->removeAttr(kSliceAttr);
    op->removeAttr(kRegistersAttr);
    op->removeAttr(kWritesAttr);
  });
}
