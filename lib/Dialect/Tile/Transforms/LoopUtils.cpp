//===- LoopUtils.cpp - Facts about the loops passes rewrite ---------------===//

#include "LoopUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;

bool phobos::tile::isOutside(Value value, scf::ForOp loop) {
  return !loop->isAncestor(value.getParentBlock()->getParentOp());
}

bool phobos::tile::dependsOnLoop(Value value, scf::ForOp loop) {
  if (value == loop.getInductionVar())
    return true;
  if (isOutside(value, loop))
    return false;
  Operation *def = value.getDefiningOp();
  return !def || llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOnLoop(operand, loop);
  });
}

bool phobos::tile::runsAtMostOnce(scf::ForOp loop) {
  auto mul = loop.getLowerBound().getDefiningOp<arith::MulIOp>();
  if (!mul || mul.getRhs() != loop.getStep())
    return false;
  auto div = mul.getLhs().getDefiningOp<arith::DivSIOp>();
  return div && div.getLhs() == loop.getUpperBound() &&
         div.getRhs() == loop.getStep();
}

scf::ForOp phobos::tile::addIterArgs(OpBuilder &builder, scf::ForOp loop,
                                     ValueRange inits) {
  IRRewriter rewriter(builder);
  FailureOr<LoopLikeOpInterface> replaced =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
              [](OpBuilder &, Location, ArrayRef<BlockArgument> arguments) {
                return SmallVector<Value>(arguments.begin(), arguments.end());
              });
  return cast<scf::ForOp>(replaced->getOperation());
}
