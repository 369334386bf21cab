//===- PrefetchDots.cpp - Start a loop's leading wgmma an iteration early -===//
//
// In attention's key loop, S = Q K^T is waited for before the softmax, the
// softmax before P @ V, and that before the next S: the tensor cores and
// the rest of the SM take turns. This pass issues the next iteration's S
// at the top of each iteration and leaves it in flight while the softmax
// and P @ V run on the current one, which the loop carries:
//
//   s0 = dot(q, K[lb])                              // prologue
//   for kb ... iter_args(..., s = s0) {
//     next = dot(q, K[kb + step]) {in_flight = 1}  // runs under the softmax
//     ... softmax(s), acc += dot(p, v) ...          // its wait retires `next`
//     yield ..., wgmma_wait(next)
//   }
//
// wgmma groups retire in order, so P @ V's own wait retires `next` too; the
// wgmma_wait ties `next`'s registers to a wait so that nothing reads them
// before. The loads that feed the early dot are masked on the axes that move
// with the loop (the prologue's and the last iteration's may read past the
// loop's range; their result is not used).
//
//===----------------------------------------------------------------------===//

#include "LoopUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEPREFETCHDOTS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// The first dot for the iteration `mapping` maps the induction variable
/// to: its load chain, then itself.
Value cloneFor(OpBuilder &builder, ArrayRef<Operation *> chain, DotOp dot,
               scf::ForOp loop, IRMapping &mapping) {
  cloneLoadChain(builder, chain, loop, mapping);
  return builder.clone(*dot, mapping)->getResult(0);
}

struct TilePrefetchDots
    : phobos::tile::impl::TilePrefetchDotsBase<TilePrefetchDots> {
  using TilePrefetchDotsBase::TilePrefetchDotsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      prefetch(loop);
  }

  void prefetch(scf::ForOp loop) {
    // A remainder loop runs at most once: nothing to overlap.
    if (runsAtMostOnce(loop))
      return;
    // Reading a tensor early is safe only if the loop writes none.
    if (loop->walk([](Operation *op) {
              return isa<StoreOp, StoreScalarOp, AtomicAddOp>(op)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted())
      return;
    // The loop's first dot, a wgmma that starts from zero, of values the
    // next iteration can compute ahead; another dot must follow it (whose
    // wait retires the early one while this iteration still runs).
    DotOp first, later;
    for (Operation &op : *loop.getBody())
      if (auto dot = dyn_cast<DotOp>(op)) {
        if (!first)
          first = dot;
        else if (!later)
          later = dot;
      }
    if (!first || !later || first.getKind() != DotKind::wgmma ||
        later.getKind() != DotKind::wgmma || first.getAcc() ||
        first.getInFlight())
      return;
    std::optional<SmallVector<Operation *>> found =
        getLoadChain(first->getOperands(), loop);
    if (!found)
      return;
    SmallVector<Operation *> chain = std::move(*found);
    bool loads =
        llvm::any_of(chain, [](Operation *op) { return isa<LoadOp>(op); });
    if (!loads || llvm::any_of(first->getUsers(), [&](Operation *user) {
          return user->getBlock() != loop.getBody() || isa<scf::YieldOp>(user);
        }))
      return;

    // Prologue: the first iteration's dot.
    OpBuilder builder(loop);
    Location loc = first.getLoc();
    IRMapping prologue;
    prologue.map(loop.getInductionVar(), loop.getLowerBound());
    Value initial = cloneFor(builder, chain, first, loop, prologue);

    // The loop carries it; the body reads the carried one.
    loop = addIterArgs(builder, loop, initial);
    Value carried = loop.getRegionIterArgs().back();
    first.getResult().replaceAllUsesWith(carried);

    // The next iteration's dot, first in the body, left in flight.
    builder.setInsertionPointToStart(loop.getBody());
    Value iv = loop.getInductionVar();
    IRMapping ahead;
    ahead.map(iv, arith::AddIOp::create(builder, loc, iv, loop.getStep()));
    Value next = cloneFor(builder, chain, first, loop, ahead);
    cast<DotOp>(next.getDefiningOp())
        .setInFlightAttr(builder.getI32IntegerAttr(1));

    // Retired (by the later dot's wait) before the loop carries it on.
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    builder.setInsertionPoint(yield);
    auto wait =
        WgmmaWaitOp::create(builder, loc, next, Value(), builder.getI32IntegerAttr(0));
    yield->setOperand(yield.getNumOperands() - 1, wait.getResult());

    first.erase();
    for (Operation *op : llvm::reverse(chain))
      if (op->use_empty())
        op->erase();
    ++numPrefetched;
  }
};

} // namespace
