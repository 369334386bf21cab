//===- TileDialect.cpp - The phobos tile dialect --------------------------===//
//
// Registers the dialect's ops, types and attributes, and the dialect-wide
// canonicalization.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/TileOps.h"

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
} // namespace

void TileDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<SelectOfTiles>(getContext());
}
