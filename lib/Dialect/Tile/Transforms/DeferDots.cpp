//===- DeferDots.cpp - Run a loop's accumulating wgmma under the next one -===//
//
// Attention's key loop computes S = Q K^T, waits for it, runs the softmax,
// rescales the accumulator and adds P @ V, and waits for that before the
// next S: each warpgroup's tensor-core work and its softmax take turns.
// This pass defers the accumulating dot by one iteration, so that it runs
// while the next iteration's softmax does (FlashAttention 3's overlap
// within a warpgroup):
//
//   for kb ... iter_args(acc = a0) {        for kb ... iter_args(acc = a0, p0 = 0) {
//     s = dot(q, K[kb])                        s' = dot(q, K[kb])          {in_flight = 1}
//     ... softmax(s) -> p, corr ...            r  = dot(p0, V[kb - step], acc) {in_flight = 1}
//     acc' = corr * acc                        s  = wgmma_wait(s') {pending = 1}
//     yield dot(p, V[kb], acc')                ... softmax(s) -> p, corr ...
//   }                                          d  = wgmma_wait(r holding p0) {pending = 0}
//                                              yield corr * d, p
//                                            }
//                                            result = dot(p_last, V[end - step], acc_last)
//
// Each iteration issues its S and the previous iteration's P @ V back to
// back; the wait for S (one group left pending) lets the softmax run while
// P @ V does, and the rescale waits for it. The first iteration adds
// 0 @ V[-step] (the loop starts at 0 and V's loads start at the induction
// variable, so that block is outside the tensor: a masked read of zeros,
// never an inf or NaN that 0 would not cancel), which leaves the
// accumulator as it was; the dot after the loop adds the last block's
// P @ V, reading V where the loop's deferred dot would read it one step
// past the last iteration (`end`: lb + trips * step), so that
// tile-pipeline can stage it as one more fill of the loop's ring. Every element is computed by the same operations in the same
// order as before. Only dots long enough to hide a softmax are deferred
// (the pass's options; measured in docs/benchmarks-log.md).
//
//===----------------------------------------------------------------------===//

#include "LoopUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEDEFERDOTS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// What the rewrite needs to know about a loop it applies to.
struct Candidate {
  DotOp first;  // S = Q K^T: a wgmma from zero
  DotOp later;  // acc' = P @ V + rescale(acc): the deferred dot
  unsigned position = 0; // the iteration argument `later` accumulates into
  SmallVector<Operation *> rescale; // acc -> later's accumulator, body order
  SmallVector<Operation *> operandChain; // later's B (the V load)
};

struct TileDeferDots : phobos::tile::impl::TileDeferDotsBase<TileDeferDots> {
  using TileDeferDotsBase::TileDeferDotsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      if (std::optional<Candidate> candidate = match(loop)) {
        defer(loop, *candidate);
        ++numDeferred;
      }
  }

  std::optional<Candidate> match(scf::ForOp loop) {
    // A remainder loop runs at most once: nothing to overlap. The first
    // iteration's deferred dot reads B one step before the loop's start,
    // which must lie outside the tensor: the loop starts at 0.
    if (runsAtMostOnce(loop) || !matchPattern(loop.getLowerBound(), m_Zero()))
      return std::nullopt;
    SmallVector<DotOp> dots;
    for (Operation &op : *loop.getBody())
      if (auto dot = dyn_cast<DotOp>(op))
        dots.push_back(dot);
    if (dots.size() != 2)
      return std::nullopt;
    Candidate c;
    c.first = dots[0];
    c.later = dots[1];
    for (DotOp dot : dots)
      if (dot.getKind() != DotKind::wgmma || dot.getInFlight() ||
          dot.getSwapAb() || !isa<TileType>(dot.getA().getType()) ||
          !isa<TileType>(dot.getB().getType()))
        return std::nullopt;
    if (c.first.getAcc() || !c.later.getAcc())
      return std::nullopt;
    // Large enough to hide the softmax beside it (tf32 runs at half rate).
    // The width threshold keeps narrow accumulators (D 64) at two CTAs an
    // SM; a kernel that asks for a producer warpgroup runs one CTA an SM
    // whose consumers hold up to 232 registers, so there the overlap costs
    // no occupancy and only the depth counts.
    auto laterA = cast<TileType>(c.later.getA().getType());
    int64_t columns = c.later.getType().getDimSize(1);
    if (c.later.getPrecision() == DotPrecision::tf32)
      columns *= 2;
    auto kernel = loop->getParentOfType<KernelOp>();
    bool specialized = kernel && kernel.getWarpSpecialize();
    if ((columns < minColumns && !specialized) ||
        laterA.getDimSize(1) < minDepth)
      return std::nullopt;
    // The later dot's result goes back to its own iteration argument only.
    auto *yield = loop.getBody()->getTerminator();
    if (!c.later->hasOneUse() || *c.later->user_begin() != yield)
      return std::nullopt;
    unsigned position = c.later->use_begin()->getOperandNumber();
    c.position = position;
    BlockArgument acc = loop.getRegionIterArgs()[position];
    // The rescale: the ops between the iteration argument and the later
    // dot's accumulator, pure, used by nothing else.
    SetVector<Operation *> rescale;
    SmallVector<Value> work{c.later.getAcc()};
    while (!work.empty()) {
      Value value = work.pop_back_val();
      if (value == acc)
        continue;
      Operation *def = value.getDefiningOp();
      if (!def || def->getBlock() != loop.getBody() ||
          !dependsOnValue(value, acc))
        continue;
      if (def->getNumRegions() != 0 || !isPure(def))
        return std::nullopt;
      if (rescale.insert(def))
        work.append(def->operand_begin(), def->operand_end());
    }
    if (!dependsOnValue(c.later.getAcc(), acc))
      return std::nullopt;
    for (Operation *user : acc.getUsers())
      if (!rescale.contains(user) && user != c.later.getOperation())
        return std::nullopt;
    for (Operation *op : rescale)
      for (Operation *user : op->getUsers())
        if (!rescale.contains(user) && user != c.later.getOperation())
          return std::nullopt;
    c.rescale.assign(rescale.begin(), rescale.end());
    llvm::sort(c.rescale,
               [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    // B a step late: loads of the induction variable and invariants.
    std::optional<SmallVector<Operation *>> chain =
        getLoadChain(c.later.getB(), loop);
    if (!chain || !llvm::any_of(*chain, llvm::IsaPred<LoadOp>))
      return std::nullopt;
    // Its loads start at the induction variable itself on the axes that
    // move, so that one step before 0 is outside the tensor (zeros, which
    // 0 @ B needs: an inf or NaN read there would not vanish). Reading a
    // tensor a step late is safe only if the loop does not write it.
    llvm::SmallDenseSet<Value, 4> written = writtenTensors(loop);
    for (Operation *op : *chain)
      if (auto load = dyn_cast<LoadOp>(op)) {
        if (written.contains(load.getTensor()))
          return std::nullopt;
        for (Value offset : load.getOffsets())
          if (dependsOnLoop(offset, loop) &&
              offset != loop.getInductionVar())
            return std::nullopt;
      }
    c.operandChain = std::move(*chain);
    // A (P) must not depend on the accumulator; the first dot must come
    // before everything the later dot's operands need from the softmax.
    if (dependsOnValue(c.later.getA(), acc) ||
        !c.first->isBeforeInBlock(c.later))
      return std::nullopt;
    return c;
  }

  /// Whether `value` is computed from `root` within the loop body (each op
  /// visited once).
  static bool dependsOnValue(Value value, Value root) {
    SmallVector<Value> work{value};
    llvm::SmallPtrSet<Operation *, 16> seen;
    while (!work.empty()) {
      Value next = work.pop_back_val();
      if (next == root)
        return true;
      Operation *def = next.getDefiningOp();
      if (!def || def->getBlock() != root.getParentBlock() ||
          !seen.insert(def).second)
        continue;
      work.append(def->operand_begin(), def->operand_end());
    }
    return false;
  }

  void defer(scf::ForOp loop, Candidate &c) {
    OpBuilder builder(loop);
    Location loc = c.later.getLoc();
    Value step = loop.getStep();

    // The loop carries A, or what a narrowing cast makes it from (P in f32):
    // the cast then runs at the top of the next iteration, where its f16
    // pairs pack as they are converted (cvt.rn.f16x2.f32), instead of
    // being carried as halves and packed again. The carried value starts
    // at zero: the first iteration's deferred dot adds nothing.
    Value aYielded = c.later.getA();
    auto narrowing = aYielded.getDefiningOp<CastOp>();
    if (narrowing && (!narrowing->hasOneUse() ||
                      !isa<FloatType>(cast<TileType>(
                                          narrowing.getOperand().getType())
                                          .getElementType())))
      narrowing = CastOp();
    if (narrowing)
      aYielded = narrowing.getOperand();
    auto aType = cast<TileType>(aYielded.getType());
    Value zero = arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(aType.getElementType(), 0.0));
    Value aInit = FillOp::create(builder, loc, aType, zero);
    unsigned aPosition = loop.getInitArgs().size();
    loop = addIterArgs(builder, loop, ValueRange{aInit});
    Value aCarried = loop.getRegionIterArgs()[aPosition];
    BlockArgument acc = loop.getRegionIterArgs()[c.position];
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());

    // The carried A's cast first, before the first dot's accumulator
    // registers are taken.
    Value aOperand = aCarried;
    if (narrowing) {
      builder.setInsertionPointToStart(loop.getBody());
      aOperand = CastOp::create(builder, narrowing.getLoc(),
                                narrowing.getType(), aCarried);
    }

    // Right after the first dot: the previous iteration's later dot, on
    // B a step back. Both stay in flight; the later one's own wait (one
    // group pending) retires the first.
    builder.setInsertionPointAfter(c.first);
    IRMapping back;
    back.map(loop.getInductionVar(),
             arith::SubIOp::create(builder, loc, loop.getInductionVar(), step));
    cloneLoadChain(builder, c.operandChain, loop, back);
    Value bPrevious = back.lookupOrDefault(c.later.getB());
    auto deferred = cast<DotOp>(builder.clone(*c.later));
    deferred.getAMutable().assign(aOperand);
    deferred.getBMutable().assign(bPrevious);
    deferred.getAccMutable().assign(acc);
    deferred.setInFlightAttr(builder.getI32IntegerAttr(1));
    c.first.setInFlightAttr(builder.getI32IntegerAttr(1));
    auto scores = WgmmaWaitOp::create(builder, c.first.getLoc(),
                                      c.first.getResult(), Value(),
                                      builder.getI32IntegerAttr(1));
    c.first.getResult().replaceAllUsesExcept(scores.getResult(), scores);

    // The rescale last, after the deferred dot's wait, which holds a 16-bit
    // A's registers until its group is retired (ptxas may otherwise reuse
    // them while the group reads them; an f32 A goes through shared memory).
    builder.setInsertionPoint(yield);
    Type aElement = cast<TileType>(aOperand.getType()).getElementType();
    Value held = aElement.isF16() || aElement.isBF16() ? aOperand : Value();
    auto accumulated = WgmmaWaitOp::create(builder, loc, deferred.getResult(),
                                           held, builder.getI32IntegerAttr(0));
    for (Operation *op : c.rescale)
      op->moveBefore(yield);
    acc.replaceUsesWithIf(accumulated.getResult(), [&](OpOperand &use) {
      return use.getOwner() != deferred.getOperation();
    });
    yield->setOperand(c.position, c.later.getAcc());
    yield->setOperand(aPosition, aYielded);

    // After the loop: the last iteration's later dot, on its own B: the
    // loop's B a step back, at the step past the last iteration (the form
    // tile-pipeline recognises, to read that B from its ring).
    builder.setInsertionPointAfter(loop);
    IRMapping atLast;
    atLast.map(loop.getInductionVar(),
               arith::SubIOp::create(builder, loc,
                                     buildLoopEnd(builder, loc, loop).end,
                                     step));
    cloneLoadChain(builder, c.operandChain, loop, atLast);
    Value bLast = atLast.lookupOrDefault(c.later.getB());
    Value aLast = loop.getResult(aPosition);
    if (narrowing)
      aLast = CastOp::create(builder, narrowing.getLoc(), narrowing.getType(),
                             aLast);
    auto final = cast<DotOp>(builder.clone(*c.later));
    final.getAMutable().assign(aLast);
    final.getBMutable().assign(bLast);
    final.getAccMutable().assign(loop.getResult(c.position));
    loop.getResult(c.position)
        .replaceAllUsesExcept(final.getResult(), final.getOperation());

    c.later.erase();
    if (narrowing && narrowing->use_empty())
      narrowing.erase();
    for (Operation *op : llvm::reverse(c.operandChain))
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
