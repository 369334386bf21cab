//===- TileDialect.cpp - The phobos tile dialect --------------------------===//
//
// Registers the dialect's ops, types and attributes, and the dialect-wide
// canonicalization.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace phobos::tile;

#include "Phobos/Dialect/Tile/IR/TileOpsDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Phobos/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

namespace {
/// arith.select(%c, %a, %b) on tiles -> phobos.select. scf.if's
/// canonicalization makes such selects of an `if` whose branches only
/// yield; layout assignment, the interpreter and the GPU lowering know
/// phobos.select (a scalar condition broadcasts), and arith.select's
/// same-type rule would break once layouts are assigned.
struct SelectOfTiles : OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp select,
                                PatternRewriter &rewriter) const override {
    if (!isa<TileType>(select.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<SelectOp>(
        select, select.getType(), select.getCondition(),
        select.getTrueValue(), select.getFalseValue());
    return success();
  }
};

/// The value of a boolean that is the same everywhere: an i1 constant, or
/// a fill of one (what tile-split-ragged-loops leaves for a check it
/// proved).
static std::optional<bool> constantBool(Value value) {
  if (auto fill = value.getDefiningOp<FillOp>())
    value = fill.getValue();
  APInt bits;
  if (!value.getType().isInteger(1) || !matchPattern(value, m_ConstantInt(&bits)))
    return std::nullopt;
  return !bits.isZero();
}

/// Replaces `op`'s result by `chosen`, which may be narrower (a scalar, or a
/// tile that broadcasts to the result). The element-wise users whose result
/// type it does not change take it as it is (they broadcast it themselves),
/// so that later passes still see, say, `cols < N` as a `where`'s condition
/// (tile-split-ragged-loops looks for it there); the other users get it
/// broadcast (a tile) or filled (a scalar).
static void replaceWithNarrower(PatternRewriter &rewriter, Operation *op,
                                Value chosen) {
  Value result = op->getResult(0);
  if (chosen.getType() == result.getType()) {
    rewriter.replaceOp(op, chosen);
    return;
  }
  for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
    Operation *user = use.getOwner();
    auto infer = dyn_cast<InferTypeOpInterface>(user);
    if (!infer || user->getDialect() != op->getDialect())
      continue;
    SmallVector<Value> operands(user->getOperands());
    operands[use.getOperandNumber()] = chosen;
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            rewriter.getContext(), user->getLoc(), operands,
            user->getAttrDictionary(), user->getPropertiesStorage(),
            user->getRegions(), types)) ||
        TypeRange(types) != user->getResultTypes())
      continue;
    rewriter.modifyOpInPlace(user, [&] { use.set(chosen); });
  }
  if (result.use_empty()) {
    rewriter.eraseOp(op);
    return;
  }
  auto type = cast<TileType>(result.getType());
  if (isa<TileType>(chosen.getType()))
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, type, chosen);
  else
    rewriter.replaceOpWithNewOp<FillOp>(op, type, chosen);
}

/// phobos.select(true, a, b) -> a, phobos.select(false, a, b) -> b: a flag
/// tile-unswitch-loops fixed, or a check a split loop proved (a fill of
/// true). `where(causal, cols <= rows, cols < N)` with `causal` false
/// becomes `cols < N`, [BC] where the select was [BR, BC].
struct SelectOfConstant : OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp select,
                                PatternRewriter &rewriter) const override {
    std::optional<bool> condition = constantBool(select.getCondition());
    if (!condition)
      return failure();
    replaceWithNarrower(rewriter, select,
                        *condition ? select.getTrueValue()
                                   : select.getFalseValue());
    return success();
  }
};

/// and(true, x) -> x and or(false, x) -> x (either side), as a proved check
/// `rows < N` leaves `keep = cols <= rows and rows < N`.
template <typename LogicOp, bool Identity>
struct LogicOfIdentity : OpRewritePattern<LogicOp> {
  using OpRewritePattern<LogicOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(LogicOp op,
                                PatternRewriter &rewriter) const override {
    for (unsigned side = 0; side < 2; ++side) {
      std::optional<bool> value = constantBool(op->getOperand(side));
      if (value && *value == Identity) {
        replaceWithNarrower(rewriter, op, op->getOperand(1 - side));
        return success();
      }
    }
    return failure();
  }
};
} // namespace

void TileDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<SelectOfTiles, SelectOfConstant, LogicOfIdentity<AndOp, true>,
              LogicOfIdentity<OrOp, false>>(getContext());
}
