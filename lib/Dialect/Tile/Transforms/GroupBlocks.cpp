//===- GroupBlocks.cpp - Grouped CTA order for GEMM-like grids ------------===//
//
// The hardware starts CTAs in x-fastest order. In a GEMM whose block.x picks
// A's rows and block.y B's columns, the CTAs running together then share one
// column of B and read all of A: at 8192^3 that is A (128 MiB of f16) read
// again for every pair of columns, more than L2 holds. Relabelling the CTAs
// so that consecutive ones cover `group-size` rows of tiles and then move
// along the columns (Triton's GROUP_SIZE_M) makes the CTAs of one wave share
// a few rows of A and a few columns of B.
//
// The relabelling (`phobos.block_id ... group G`, BlockIdOp::groupedIndex)
// is a bijection of the launched grid, so it is correct for any kernel
// (CTAs run in no promised order); it is applied only where the dots'
// operands show the GEMM pattern, because elsewhere (attention: block.x picks query rows,
// block.y the head whose K and V every CTA of that head reads) x-fastest
// order is already the one that shares data.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEGROUPBLOCKS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {
/// Bit i set: the value depends on `phobos.block_id` of axis i.
using AxisSet = unsigned;

/// The block axes `value` is computed from, following operands through
/// ops without regions (loop-carried values and arguments end the walk).
AxisSet blockAxesOf(Value value, DenseMap<Value, AxisSet> &memo,
                    int depth = 0) {
  auto found = memo.find(value);
  if (found != memo.end())
    return found->second;
  AxisSet axes = 0;
  Operation *def = value.getDefiningOp();
  if (def && depth < 32) {
    if (auto id = dyn_cast<BlockIdOp>(def))
      axes = 1u << static_cast<unsigned>(id.getAxis());
    else if (def->getNumRegions() == 0)
      for (Value operand : def->getOperands())
        axes |= blockAxesOf(operand, memo, depth + 1);
  }
  memo[value] = axes;
  return axes;
}

/// The load a dot operand comes from, through element-wise single-input ops
/// (casts, scales), or null.
LoadOp operandLoad(Value operand) {
  for (int depth = 0; depth < 4; ++depth) {
    Operation *def = operand.getDefiningOp();
    if (!def)
      return nullptr;
    if (auto load = dyn_cast<LoadOp>(def))
      return load;
    if (def->getNumOperands() != 1 || def->getNumRegions() != 0)
      return nullptr;
    operand = def->getOperand(0);
  }
  return nullptr;
}

/// Whether some dot in a loop reads A with offsets from exactly one of
/// block.x and block.y, and B from exactly the other.
bool isGemmLike(KernelOp kernel) {
  DenseMap<Value, AxisSet> memo;
  auto axesOfLoad = [&](LoadOp load) {
    AxisSet axes = 0;
    for (Value offset : load.getOffsets())
      axes |= blockAxesOf(offset, memo);
    return axes;
  };
  const AxisSet x = 1u << static_cast<unsigned>(Axis::x);
  const AxisSet y = 1u << static_cast<unsigned>(Axis::y);
  bool found = false;
  kernel.walk([&](DotOp dot) {
    if (found || !dot->getParentOfType<scf::ForOp>())
      return;
    LoadOp a = operandLoad(dot.getA());
    LoadOp b = operandLoad(dot.getB());
    if (!a || !b)
      return;
    AxisSet axesA = axesOfLoad(a) & (x | y);
    AxisSet axesB = axesOfLoad(b) & (x | y);
    found = (axesA == x && axesB == y) || (axesA == y && axesB == x);
  });
  return found;
}

struct TileGroupBlocks
    : phobos::tile::impl::TileGroupBlocksBase<TileGroupBlocks> {
  using TileGroupBlocksBase::TileGroupBlocksBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (groupSize < 2 || !isGemmLike(kernel))
      return;
    bool changed = false;
    auto group = IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                  static_cast<int32_t>(groupSize));
    kernel.walk([&](BlockIdOp id) {
      if (id.getAxis() == Axis::z || id.getGroup())
        return;
      id.setGroupAttr(group);
      changed = true;
    });
    numGrouped += changed;
  }
};
} // namespace
