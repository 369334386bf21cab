//===- UnswitchLoops.cpp - One copy of a loop for each value of a flag ----===//
//
// A loop that tests a flag fixed before it runs as two copies, one per
// value of the flag, so that each copy's masks fold.
//
//===----------------------------------------------------------------------===//

#include "LoopUtils.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEUNSWITCHLOOPS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

/// Whether `value` is a scalar `i1` that is not a constant.
static bool isFlag(Value value) {
  return value.getType().isInteger(1) && !matchPattern(value, m_Constant());
}

/// The first flag defined before `loop` that decides something inside it:
/// the condition of a `where` (phobos.select or arith.select) or of an
/// scf.if. Null when there is none.
static Value findFlag(scf::ForOp loop) {
  Value flag;
  loop.getBody()->walk([&](Operation *op) {
    Value condition;
    if (auto select = dyn_cast<SelectOp>(op))
      condition = select.getCondition();
    else if (auto select = dyn_cast<arith::SelectOp>(op))
      condition = select.getCondition();
    else if (auto branch = dyn_cast<scf::IfOp>(op))
      condition = branch.getCondition();
    if (condition && isFlag(condition) && isOutside(condition, loop)) {
      flag = condition;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return flag;
}

namespace {
struct TileUnswitchLoops
    : phobos::tile::impl::TileUnswitchLoopsBase<TileUnswitchLoops> {
  using TileUnswitchLoopsBase::TileUnswitchLoopsBase;

  void runOnOperation() override {
    // Outermost loops first: a flag unswitched there is a constant in the
    // loops nested in either copy. Each rewrite replaces the loop, so the
    // walk starts again after it.
    while (true) {
      scf::ForOp target;
      Value flag;
      getOperation().walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
        if (copiesOf(loop) * 2 > maxCopies)
          return WalkResult::advance();
        if (Value found = findFlag(loop)) {
          target = loop;
          flag = found;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (!target)
        return;
      unswitch(target, flag);
    }
  }

  /// How many copies of `op` this pass has made: 2 to the number of the
  /// branches it created around it.
  int64_t copiesOf(Operation *op) const {
    int64_t copies = 1;
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp())
      if (created.contains(parent))
        copies *= 2;
    return copies;
  }

  void unswitch(scf::ForOp loop, Value flag) {
    Location loc = loop.getLoc();
    OpBuilder builder(loop);
    auto branch = scf::IfOp::create(builder, loc, loop.getResultTypes(), flag,
                                    /*addThenBlock=*/true,
                                    /*addElseBlock=*/true);
    created.insert(branch);
    for (bool value : {true, false}) {
      Block *block = value ? branch.thenBlock() : branch.elseBlock();
      while (!block->empty())
        block->back().erase();
      builder.setInsertionPointToStart(block);
      IRMapping mapping;
      mapping.map(flag, arith::ConstantIntOp::create(builder, loc, value, 1)
                            .getResult());
      // The scalar bookkeeping before the loop that the loop uses and that
      // depends on the flag (its bounds: `where(causal, tmin(N, row + BR),
      // N)`), again with the flag fixed.
      DenseMap<Value, bool> depends;
      loop->walk([&](Operation *op) {
        for (Value operand : op->getOperands())
          if (isOutside(operand, loop))
            materialize(builder, operand, flag, loop->getBlock(), mapping,
                        depends);
      });
      Operation *copy = builder.clone(*loop, mapping);
      scf::YieldOp::create(builder, loc, copy->getResults());
    }
    loop->replaceAllUsesWith(branch.getResults());
    loop->erase();
    ++numUnswitched;
  }

  /// Clones into `builder` the scalar-pure ops of `block` that compute
  /// `value` from `flag` (the flag mapped to its constant); `depends`
  /// remembers what was asked.
  static bool materialize(OpBuilder &builder, Value value, Value flag,
                          Block *block, IRMapping &mapping,
                          DenseMap<Value, bool> &depends) {
    if (value == flag)
      return true;
    if (auto known = depends.find(value); known != depends.end())
      return known->second;
    depends[value] = false;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != block || !isScalarPure(*def))
      return false;
    bool uses = false;
    for (Value operand : def->getOperands())
      uses |= materialize(builder, operand, flag, block, mapping, depends);
    if (!uses)
      return false;
    builder.clone(*def, mapping);
    for (Value result : def->getResults())
      depends[result] = true;
    return true;
  }

  llvm::SmallPtrSet<Operation *, 4> created;
};
} // namespace
