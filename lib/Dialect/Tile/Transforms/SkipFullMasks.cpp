//===- SkipFullMasks.cpp - Uniform branches around masks that hold --------===//
//
// A causal mask compares a block of the loop's positions with a block of
// positions fixed outside the loop: `k0 + arange(BC) <= row + arange(BR)`.
// Below the diagonal every element holds, and only the last BR / BC
// iterations of a row block need the compare and the `where`. Both ranges
// are intervals ([k0, k0 + BC - 1] and [row, row + BR - 1]), so whether
// the whole tile holds is one comparison of scalars the CTA shares. This
// pass computes it and puts each `where` on such a mask under a uniform
// branch: the iterations that prove the mask skip its elementwise compare
// and select. Splitting the loop at the diagonal instead (Triton's
// tutorial writes the two halves by hand) was measured: it cost attention
// four registers and its second CTA per SM (docs/benchmarks-log.md); the
// branch keeps one loop and its pipelining.
//
//===----------------------------------------------------------------------===//

#include "LoopUtils.h"

#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILESKIPFULLMASKS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// A block of consecutive positions `base + arange(length)`, as a tile of
/// one axis (possibly reshaped to a row or a column) or a scalar
/// (length 1).
struct Positions {
  Value base;
  int64_t length = 0;
};

/// `value` as positions, or nothing when it is not `base + arange(E)`
/// (either order, reshaped to at most one axis longer than 1) or an i32
/// scalar.
std::optional<Positions> getPositions(Value value) {
  if (value.getType().isInteger(32))
    return Positions{value, 1};
  if (auto reshape = value.getDefiningOp<ReshapeOp>()) {
    ArrayRef<int64_t> shape = reshape.getType().getShape();
    if (llvm::count_if(shape, [](int64_t size) { return size != 1; }) > 1)
      return std::nullopt;
    value = reshape.getSource();
  }
  auto add = value.getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  Value base = add.getLhs(), range = add.getRhs();
  if (!range.getDefiningOp<ArangeOp>())
    std::swap(base, range);
  auto arange = range.getDefiningOp<ArangeOp>();
  if (!arange || !base.getType().isInteger(32))
    return std::nullopt;
  return Positions{base, cast<TileType>(arange.getType()).getDimSize(0)};
}

/// Where a mask holds for a whole iteration: `iv < threshold` (`below`)
/// or `iv >= threshold`, with threshold = base + offset.
struct Bound {
  Value base;
  int64_t offset;
  bool below;
};

/// The bounds under which `cmp` holds everywhere in an iteration of
/// `loop`, or nothing when it does not compare the loop's positions with
/// invariant ones.
std::optional<Bound> getBound(CmpOp cmp, scf::ForOp loop) {
  std::optional<Positions> lhs = getPositions(cmp.getLhs());
  std::optional<Positions> rhs = getPositions(cmp.getRhs());
  if (!lhs || !rhs)
    return std::nullopt;
  Value iv = loop.getInductionVar();
  CmpPredicate predicate = cmp.getPredicate();
  // The loop's positions on the left: `iv + [0, E) pred [r, r + F)`.
  if (rhs->base == iv && lhs->base != iv) {
    std::swap(lhs, rhs);
    switch (predicate) {
    case CmpPredicate::lt: predicate = CmpPredicate::gt; break;
    case CmpPredicate::le: predicate = CmpPredicate::ge; break;
    case CmpPredicate::gt: predicate = CmpPredicate::lt; break;
    case CmpPredicate::ge: predicate = CmpPredicate::le; break;
    default: break;
    }
  }
  if (lhs->base != iv || !isOutside(rhs->base, loop))
    return std::nullopt;
  // Every element holds when the extreme pair does:
  //   iv + E - 1 <= r  <=>  iv < r - E + 2    (le)
  //   iv + E - 1 <  r  <=>  iv < r - E + 1    (lt)
  //   iv >= r + F - 1                         (ge)
  //   iv >  r + F - 1  <=>  iv >= r + F       (gt)
  int64_t e = lhs->length, f = rhs->length;
  switch (predicate) {
  case CmpPredicate::le: return Bound{rhs->base, 2 - e, true};
  case CmpPredicate::lt: return Bound{rhs->base, 1 - e, true};
  case CmpPredicate::ge: return Bound{rhs->base, f - 1, false};
  case CmpPredicate::gt: return Bound{rhs->base, f, false};
  default: return std::nullopt;
  }
}

/// The bounds under which the mask `condition` (compares of positions,
/// joined by `and`) holds everywhere; false when some part is not such a
/// compare.
bool collectBounds(Value condition, scf::ForOp loop,
                   SmallVectorImpl<Bound> &bounds) {
  if (auto both = condition.getDefiningOp<AndOp>())
    return collectBounds(both.getLhs(), loop, bounds) &&
           collectBounds(both.getRhs(), loop, bounds);
  auto cmp = condition.getDefiningOp<CmpOp>();
  std::optional<Bound> bound = cmp ? getBound(cmp, loop) : std::nullopt;
  if (bound)
    bounds.push_back(*bound);
  return bound.has_value();
}

/// Clones into `builder` what computes `value` inside `body` (the mask's
/// compares, `and`s and positions), reusing what `mapping` knows.
Value cloneMask(OpBuilder &builder, IRMapping &mapping, Value value,
                Block *body) {
  if (Value known = mapping.lookupOrNull(value))
    return known;
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != body)
    return value;
  for (Value operand : def->getOperands())
    cloneMask(builder, mapping, operand, body);
  return builder.clone(*def, mapping)->getResult(0);
}

/// Erases `op` and what only it used inside `body`, once nothing uses it.
void eraseIfDead(Operation *op, Block *body) {
  if (!op || op->getBlock() != body || !op->use_empty() ||
      !isPure(op))
    return;
  SmallVector<Operation *> operands;
  for (Value operand : op->getOperands())
    operands.push_back(operand.getDefiningOp());
  op->erase();
  for (Operation *operand : operands)
    eraseIfDead(operand, body);
}

struct TileSkipFullMasks
    : phobos::tile::impl::TileSkipFullMasksBase<TileSkipFullMasks> {
  using TileSkipFullMasksBase::TileSkipFullMasksBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      // A ragged remainder's mask never holds everywhere.
      if (runsAtMostOnce(loop))
        continue;
      SmallVector<SelectOp> selects(loop.getBody()->getOps<SelectOp>());
      for (SelectOp select : selects)
        skip(select, loop);
    }
  }

  /// Puts `select` under `scf.if` on where its mask holds everywhere: the
  /// first value there, the mask and the select (cloned) otherwise.
  void skip(SelectOp select, scf::ForOp loop) {
    SmallVector<Bound> bounds;
    if (select.getTrueValue().getType() != select.getType() ||
        !collectBounds(select.getCondition(), loop, bounds))
      return;
    Location loc = select.getLoc();
    // The thresholds are the loop's to compute once, before it.
    OpBuilder builder(loop);
    SmallVector<Value> thresholds;
    for (const Bound &bound : bounds)
      thresholds.push_back(
          bound.offset == 0
              ? bound.base
              : arith::AddIOp::create(
                    builder, loc, bound.base,
                    arith::ConstantIntOp::create(builder, loc, bound.offset,
                                                 32))
                    .getResult());
    builder.setInsertionPoint(select);
    Value holds;
    for (auto [bound, threshold] : llvm::zip(bounds, thresholds)) {
      Value one = arith::CmpIOp::create(
          builder, loc,
          bound.below ? arith::CmpIPredicate::slt : arith::CmpIPredicate::sge,
          loop.getInductionVar(), threshold);
      holds = holds ? arith::AndIOp::create(builder, loc, holds, one).getResult()
                    : one;
    }
    auto branch = scf::IfOp::create(builder, loc, TypeRange{select.getType()},
                                    holds, /*withElseRegion=*/true);
    builder.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(builder, loc, select.getTrueValue());
    builder.setInsertionPointToStart(branch.elseBlock());
    IRMapping mapping;
    cloneMask(builder, mapping, select.getCondition(), loop.getBody());
    Operation *masked = builder.clone(*select, mapping);
    scf::YieldOp::create(builder, loc, masked->getResult(0));
    Operation *condition = select.getCondition().getDefiningOp();
    select.replaceAllUsesWith(branch.getResult(0));
    select.erase();
    eraseIfDead(condition, loop.getBody());
    ++numSkipped;
  }
};

} // namespace
