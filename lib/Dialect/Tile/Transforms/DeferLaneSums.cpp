//===- DeferLaneSums.cpp - Loop-carried row sums combined once ------------===//
//
// Attention's running sum, `l = c * l + rowsum(p)`, reduces each row of p
// across the lanes that share it (two butterfly shuffles and two adds for
// a quad of the mma accumulator) on every iteration, although l is read
// only after the loop and only through multiplications by per-row values
// and additions. Each lane can instead carry the sum of its own registers:
// c * l_lane + p_lane summed over lanes is c * l + rowsum(p). This pass
// marks such reductions `keep_lane_partials` and adds one
// `combine_lane_partials` sum after the loop (FlashAttention 2 keeps its
// row sums per thread in the same way and reduces them across the quad at
// the end). The values are unchanged; only the GPU lowering differs.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEDEFERLANESUMS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// The distribution of `type`'s axis `axis`, or nothing without a
/// distributed layout.
std::optional<AxisDistribution> axisOf(Type type, unsigned axis) {
  std::optional<DistributedLayout> layout = getDistributedLayout(type);
  if (!layout || axis >= cast<TileType>(type).getRank())
    return std::nullopt;
  return layout->axis(axis);
}

/// The sums of one loop-carried value that may stay per lane.
struct Candidate {
  /// The lanes the carried value's copies sit in along the axis; every sum
  /// kept per lane must spread its operand over the same lanes.
  AxisDistribution lanes;
  SmallVector<ReduceOp> sums;
  /// The additions and multiplications between them and the yield.
  llvm::SmallPtrSet<Operation *, 8> ops;
  bool valid = true;
};

/// Walks the value a loop yields for its carried `carried` back to the
/// ops that build it: the carried value itself, sums along `axis` over the
/// lanes of one warp (kept per lane), additions of two such values, and
/// multiplications of one by a value that does not depend on them (so is
/// the same in every lane). Each op on the way must have no other use.
void collect(Value value, BlockArgument carried, unsigned axis,
             Candidate &candidate) {
  if (!candidate.valid)
    return;
  if (value == carried)
    return;
  Operation *def = value.getDefiningOp();
  if (!def || !value.hasOneUse() ||
      def->getBlock() != carried.getOwner()) {
    candidate.valid = false;
    return;
  }
  if (auto sum = dyn_cast<ReduceOp>(def)) {
    std::optional<AxisDistribution> along =
        axisOf(sum.getOperand().getType(), axis);
    if (sum.getKind() != ReduceKind::sum || sum.getAxis() != axis ||
        sum.getKeepLanePartials() || sum.getCombineLanePartials() ||
        sum.getType() != carried.getType() || !along ||
        along->laneMod <= 1 || along->warpMod != 1 ||
        along->laneDiv != candidate.lanes.laneDiv ||
        along->laneMod != candidate.lanes.laneMod) {
      candidate.valid = false;
      return;
    }
    candidate.sums.push_back(sum);
    return;
  }
  auto dependsOnCarried = [&](Value operand) {
    SmallVector<Value> work{operand};
    llvm::SmallPtrSet<Value, 8> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (v == carried)
        return true;
      if (!seen.insert(v).second)
        continue;
      if (Operation *op = v.getDefiningOp())
        if (op->getBlock() == carried.getOwner())
          llvm::append_range(work, op->getOperands());
    }
    return false;
  };
  if (auto add = dyn_cast<AddOp>(def)) {
    if (add.getType() != carried.getType()) {
      candidate.valid = false;
      return;
    }
    candidate.ops.insert(add);
    collect(add.getLhs(), carried, axis, candidate);
    collect(add.getRhs(), carried, axis, candidate);
    return;
  }
  if (auto mul = dyn_cast<MulOp>(def)) {
    if (mul.getType() != carried.getType()) {
      candidate.valid = false;
      return;
    }
    Value lhs = mul.getLhs(), rhs = mul.getRhs();
    bool lhsPartial = dependsOnCarried(lhs) ||
                      isa_and_nonnull<ReduceOp>(lhs.getDefiningOp());
    Value partial = lhsPartial ? lhs : rhs;
    Value factor = lhsPartial ? rhs : lhs;
    // The factor must be the same in every lane: a value the loop does not
    // build from the carried sum or the sums kept per lane.
    if (dependsOnCarried(factor) ||
        isa_and_nonnull<ReduceOp>(factor.getDefiningOp())) {
      candidate.valid = false;
      return;
    }
    candidate.ops.insert(mul);
    collect(partial, carried, axis, candidate);
    return;
  }
  candidate.valid = false;
}

/// Whether `value` is a tile of zeros (a fill of the constant 0).
bool isZeroFill(Value value) {
  auto fill = value.getDefiningOp<FillOp>();
  if (!fill)
    return false;
  FloatAttr constant;
  return matchPattern(fill.getValue(), m_Constant(&constant)) &&
         constant.getValue().isZero();
}

struct TileDeferLaneSums
    : phobos::tile::impl::TileDeferLaneSumsBase<TileDeferLaneSums> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    // Loops in program order: a loop whose carried sum continues from an
    // earlier deferred loop (the remainder of a split loop) keeps it per
    // lane, and the combine moves after it.
    DenseMap<Value, ReduceOp> pendingCombines;
    for (scf::ForOp loop : loops) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [index, carried] : llvm::enumerate(loop.getRegionIterArgs())) {
        auto type = dyn_cast<TileType>(carried.getType());
        if (!type || !type.getElementType().isF32() || type.getRank() != 2)
          continue;
        // A row sum [R, 1] (axis 1) or a column sum [1, C] (axis 0).
        unsigned axis = type.getShape()[1] == 1 ? 1 : 0;
        if (type.getShape()[axis] != 1)
          continue;
        std::optional<AxisDistribution> resultAxis = axisOf(type, axis);
        if (!resultAxis || resultAxis->warpMod != 1 || resultAxis->laneMod <= 1)
          continue;
        Value init = loop.getInitArgs()[index];
        auto pending = pendingCombines.find(init);
        bool continues = pending != pendingCombines.end() && init.hasOneUse();
        if (!continues && !isZeroFill(init))
          continue;
        // Inside the loop the carried value only feeds its own update.
        Candidate candidate;
        candidate.lanes = *resultAxis;
        collect(yield.getOperand(index), carried, axis, candidate);
        if (!candidate.valid || candidate.sums.empty() ||
            !llvm::all_of(carried.getUsers(), [&](Operation *user) {
              return candidate.ops.contains(user);
            }))
          continue;
        for (ReduceOp sum : candidate.sums)
          sum.setKeepLanePartials(true);
        ++numDeferred;
        Value result = loop.getResult(index);
        if (continues) {
          // The earlier loop's partials flow into this one: its combine
          // goes, and this loop's result is combined instead.
          ReduceOp earlier = pending->second;
          loop.getInitArgsMutable()[index].assign(earlier.getOperand());
          earlier.erase();
          pendingCombines.erase(pending);
        }
        OpBuilder builder(loop->getContext());
        builder.setInsertionPointAfter(loop);
        auto combine = ReduceOp::create(builder, loop.getLoc(), type,
                                        ReduceKind::sum, result, axis);
        combine.setCombineLanePartials(true);
        result.replaceAllUsesExcept(combine.getResult(), combine);
        pendingCombines[combine.getResult()] = combine;
      }
    }
  }
};

} // namespace
