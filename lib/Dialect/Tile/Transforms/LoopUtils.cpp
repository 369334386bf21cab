//===- LoopUtils.cpp - Facts about the loops passes rewrite ---------------===//

#include "LoopUtils.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

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

bool phobos::tile::isScalarPure(Operation &op) {
  auto isTile = [](Type type) { return isa<TileType>(type); };
  return op.getNumRegions() == 0 && isMemoryEffectFree(&op) &&
         llvm::none_of(op.getOperandTypes(), isTile) &&
         llvm::none_of(op.getResultTypes(), isTile);
}

llvm::SmallDenseSet<Value, 4> phobos::tile::writtenTensors(Operation *root) {
  llvm::SmallDenseSet<Value, 4> written;
  root->walk([&](Operation *op) {
    if (auto store = dyn_cast<StoreOp>(op))
      written.insert(store.getTensor());
    else if (auto store = dyn_cast<StoreScalarOp>(op))
      written.insert(store.getTensor());
    else if (auto add = dyn_cast<AtomicAddOp>(op))
      written.insert(add.getTensor());
  });
  return written;
}

bool phobos::tile::runsOncePerKernel(scf::ForOp loop) {
  Operation *parent = loop->getParentOp();
  while (isa<scf::IfOp>(parent))
    parent = parent->getParentOp();
  return isa<KernelOp>(parent);
}

bool phobos::tile::runsAtMostOnce(scf::ForOp loop) {
  auto mul = loop.getLowerBound().getDefiningOp<arith::MulIOp>();
  if (!mul || mul.getRhs() != loop.getStep())
    return false;
  auto div = mul.getLhs().getDefiningOp<arith::DivSIOp>();
  return div && div.getLhs() == loop.getUpperBound() &&
         div.getRhs() == loop.getStep();
}

phobos::tile::LoopEnd phobos::tile::buildLoopEnd(OpBuilder &builder,
                                                 Location loc,
                                                 scf::ForOp loop) {
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Value zero = arith::ConstantOp::create(
      builder, loc, builder.getIntegerAttr(lb.getType(), 0));
  Value trips = arith::MaxSIOp::create(
      builder, loc, zero,
      arith::CeilDivSIOp::create(
          builder, loc, arith::SubIOp::create(builder, loc, ub, lb), step));
  Value end = arith::AddIOp::create(
      builder, loc, lb, arith::MulIOp::create(builder, loc, trips, step));
  return {trips, end};
}

bool phobos::tile::isLoopEnd(Value value, scf::ForOp loop) {
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  auto add = value.getDefiningOp<arith::AddIOp>();
  auto mul = add ? add.getRhs().getDefiningOp<arith::MulIOp>() : nullptr;
  if (!mul || add.getLhs() != lb || mul.getRhs() != step)
    return false;
  auto max = mul.getLhs().getDefiningOp<arith::MaxSIOp>();
  auto div = max ? max.getRhs().getDefiningOp<arith::CeilDivSIOp>() : nullptr;
  auto span = div ? div.getLhs().getDefiningOp<arith::SubIOp>() : nullptr;
  return span && matchPattern(max.getLhs(), m_Zero()) &&
         div.getRhs() == step && span.getLhs() == ub && span.getRhs() == lb;
}

bool phobos::tile::isSameAt(Value inLoop, Value after, scf::ForOp loop,
                            Value &at) {
  if (inLoop == loop.getInductionVar()) {
    if (at && at != after)
      return false;
    at = after;
    return true;
  }
  if (isOutside(inLoop, loop))
    return inLoop == after;
  Operation *a = inLoop.getDefiningOp(), *b = after.getDefiningOp();
  if (!a || !b || a->getName() != b->getName() || a->getNumRegions() != 0 ||
      !isPure(a) || a->getNumOperands() != b->getNumOperands() ||
      a->getResultTypes() != b->getResultTypes() ||
      cast<OpResult>(inLoop).getResultNumber() !=
          cast<OpResult>(after).getResultNumber() ||
      a->getDiscardableAttrDictionary() != b->getDiscardableAttrDictionary() ||
      a->getPropertiesAsAttribute() != b->getPropertiesAsAttribute())
    return false;
  return llvm::all_of(llvm::zip_equal(a->getOperands(), b->getOperands()),
                      [&](auto pair) {
                        return isSameAt(std::get<0>(pair), std::get<1>(pair),
                                        loop, at);
                      });
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

std::optional<SmallVector<Operation *>>
phobos::tile::getLoadChain(ValueRange roots, scf::ForOp loop) {
  llvm::SetVector<Operation *> chain;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (isOutside(value, loop) || value == loop.getInductionVar())
      continue;
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumRegions() != 0)
      return std::nullopt;
    if (auto load = dyn_cast<LoadOp>(def)) {
      if (!load->hasOneUse())
        return std::nullopt;
    } else if (!isPure(def)) {
      return std::nullopt;
    }
    if (chain.insert(def))
      work.append(def->operand_begin(), def->operand_end());
  }
  SmallVector<Operation *> ordered(chain.begin(), chain.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

void phobos::tile::cloneLoadChain(OpBuilder &builder,
                                  ArrayRef<Operation *> chain,
                                  scf::ForOp loop, IRMapping &mapping) {
  for (Operation *op : chain) {
    Operation *clone = builder.clone(*op, mapping);
    auto load = dyn_cast<LoadOp>(clone);
    if (!load)
      continue;
    auto original = cast<LoadOp>(op);
    SmallVector<bool> inBounds(original.getOffsets().size(), false);
    if (std::optional<ArrayRef<bool>> given = original.getInBounds())
      inBounds.assign(given->begin(), given->end());
    for (auto [axis, offset] : llvm::enumerate(original.getOffsets()))
      if (dependsOnLoop(offset, loop))
        inBounds[axis] = false;
    load.setInBoundsAttr(builder.getDenseBoolArrayAttr(inBounds));
  }
}
