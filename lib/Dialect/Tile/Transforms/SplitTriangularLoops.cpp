//===- SplitTriangularLoops.cpp - Whole blocks apart from the diagonal ----===//
//
// A loop whose mask compares a block of columns with a block of rows, one
// of them moving with the loop, runs as the iterations where the mask holds
// everywhere (without it) and the ones on the diagonal (with it).
//
//===----------------------------------------------------------------------===//

#include "LoopUtils.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILESPLITTRIANGULARLOOPS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {
/// `base + arange(extent)`, as a row [E] or reshaped to a column [E, 1].
struct IndexBlock {
  Value base;
  int64_t extent;
};

/// A comparison that holds everywhere once `a - b <= k` (in the scalars'
/// terms), where `a` or `b` is the loop's induction variable.
struct Triangle {
  CmpOp cmp;
  Value a, b;
  int64_t k;
};
} // namespace

static std::optional<IndexBlock> matchBlock(Value value) {
  if (auto reshape = value.getDefiningOp<ReshapeOp>()) {
    ArrayRef<int64_t> shape = reshape.getType().getShape();
    if (shape.size() != 2 || shape[1] != 1)
      return std::nullopt;
    value = reshape.getSource();
  }
  auto add = value.getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  Value lhs = add.getLhs(), rhs = add.getRhs();
  if (isa<TileType>(lhs.getType()))
    std::swap(lhs, rhs);
  auto range = rhs.getDefiningOp<ArangeOp>();
  if (!range || isa<TileType>(lhs.getType()) ||
      !lhs.getType().isInteger(32))
    return std::nullopt;
  return IndexBlock{lhs, cast<TileType>(range.getType()).getDimSize(0)};
}

/// The first comparison in `loop`'s own body between a block that moves
/// with the loop and one that does not.
static std::optional<Triangle> findTriangle(scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  for (Operation &op : *loop.getBody()) {
    auto cmp = dyn_cast<CmpOp>(op);
    if (!cmp)
      continue;
    // As `lhs <= rhs` or `lhs < rhs`.
    Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
    bool strict;
    switch (cmp.getPredicate()) {
    case CmpPredicate::le:
      strict = false;
      break;
    case CmpPredicate::lt:
      strict = true;
      break;
    case CmpPredicate::ge:
      strict = false;
      std::swap(lhs, rhs);
      break;
    case CmpPredicate::gt:
      strict = true;
      std::swap(lhs, rhs);
      break;
    default:
      continue;
    }
    std::optional<IndexBlock> small = matchBlock(lhs), large = matchBlock(rhs);
    if (!small || !large)
      continue;
    // Every element holds when max(lhs) <= min(rhs) (strictly: <):
    // small.base + E - 1 <= large.base, i.e. a - b <= 1 - E (or -E).
    bool moves = small->base == iv, fixed = isOutside(small->base, loop);
    bool otherMoves = large->base == iv,
         otherFixed = isOutside(large->base, loop);
    if (!((moves && otherFixed) || (fixed && otherMoves)))
      continue;
    int64_t k = (strict ? 0 : 1) - small->extent;
    return Triangle{cmp, small->base, large->base, k};
  }
  return std::nullopt;
}

namespace {
struct TileSplitTriangularLoops
    : phobos::tile::impl::TileSplitTriangularLoopsBase<
          TileSplitTriangularLoops> {
  using TileSplitTriangularLoopsBase::TileSplitTriangularLoopsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      split(loop);
  }

  void split(scf::ForOp loop) {
    APInt stepValue;
    if (!matchPattern(loop.getStep(), m_ConstantInt(&stepValue)) ||
        stepValue.getSExtValue() <= 0 ||
        !loop.getInductionVar().getType().isInteger(32))
      return;
    std::optional<Triangle> triangle = findTriangle(loop);
    if (!triangle)
      return;
    Value iv = loop.getInductionVar();
    bool prefix = triangle->a == iv;
    OpBuilder builder(loop);
    Location loc = triangle->cmp.getLoc();
    Type i32 = builder.getI32Type();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(builder, loc, i32, value);
    };
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();
    Value point;
    if (prefix) {
      // iv <= b + k: the iterations before lb + (floor((b + k - lb) / S)
      // + 1) * S.
      Value last = arith::SubIOp::create(
          builder, loc,
          arith::AddIOp::create(builder, loc, triangle->b,
                                constant(triangle->k)),
          lb);
      Value count = arith::AddIOp::create(
          builder, loc, arith::FloorDivSIOp::create(builder, loc, last, step),
          constant(1));
      point = arith::AddIOp::create(
          builder, loc, lb, arith::MulIOp::create(builder, loc, count, step));
    } else {
      // a - iv <= k, iv >= a - k: the iterations from lb + ceil((a - k -
      // lb) / S) * S.
      Value first = arith::SubIOp::create(
          builder, loc,
          arith::SubIOp::create(builder, loc, triangle->a,
                                constant(triangle->k)),
          lb);
      point = arith::AddIOp::create(
          builder, loc, lb,
          arith::MulIOp::create(
              builder, loc,
              arith::CeilDivSIOp::create(builder, loc, first, step), step));
    }
    point = arith::MaxSIOp::create(
        builder, loc, lb, arith::MinSIOp::create(builder, loc, ub, point));

    // The first loop runs to the split point, the second (the original)
    // from it, carrying on from the first's results.
    IRMapping mapping;
    auto first = cast<scf::ForOp>(builder.clone(*loop.getOperation(), mapping));
    first.getUpperBoundMutable().assign(point);
    loop.getLowerBoundMutable().assign(point);
    loop.getInitArgsMutable().assign(first.getResults());
    // Where the comparison holds everywhere (the first loop of a prefix,
    // the second of a suffix), it becomes a tile of true.
    Operation *cmp = prefix ? mapping.lookup(triangle->cmp.getResult()).getDefiningOp()
                            : triangle->cmp.getOperation();
    OpBuilder inside(cmp);
    Value always = arith::ConstantIntOp::create(inside, loc, 1, 1);
    cmp->getResult(0).replaceAllUsesWith(
        FillOp::create(inside, loc, cmp->getResult(0).getType(), always)
            .getResult());
    cmp->erase();
    ++numSplit;
  }
};
} // namespace
