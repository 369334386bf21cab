//===- PingPong.cpp - Consumer warpgroups take turns at the tensor cores --===//
//
// In a warp-specialised attention kernel the consumer warpgroups run side
// by side: each issues its S = Q K^T and P @ V MMAs, then waits for S and
// computes the softmax, and nothing keeps them from doing the same thing
// at the same time. FlashAttention 3 orders them: warpgroup w issues its
// MMAs only after w - 1 has issued its own, so that w - 1's softmax
// overlaps w's MMAs. This pass places that order (phobos.warpgroup_turn)
// around the MMAs of a consumer loop; the GPU lowering makes each turn a
// named barrier. Where the warpgroups already drift apart on their own
// the order changes little (docs/benchmarks-log.md).
//
//===----------------------------------------------------------------------===//

#include "LoopUtils.h"

#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEPINGPONG
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

bool isTile(Type type) { return isa<TileType>(type); }

bool isAsyncWgmma(Operation &op) {
  auto dot = dyn_cast<DotOp>(op);
  return dot && dot.getKind() == DotKind::wgmma && dot.getInFlight();
}

/// What may run between a warpgroup's first and last MMA of its turn:
/// nothing that waits for the other warpgroups (their barriers, or ops
/// whose lowering exchanges data through shared memory).
bool mayRunInTurn(Operation &op) {
  return isAsyncWgmma(op) || isa<BufferSlotOp, MbarrierWaitOp, CastOp>(op) ||
         isScalarPure(op);
}

/// Tile work for other units than the tensor cores: a tile computed by
/// something other than a dot, its wait, or a change of type or layout.
bool isOtherTileWork(Operation &op) {
  return llvm::any_of(op.getResultTypes(), isTile) &&
         !isa<DotOp, WgmmaWaitOp, CastOp, ConvertLayoutOp, BufferSlotOp>(op);
}

/// The first and last MMA of `loop`'s body when its warpgroups can take
/// turns around them.
std::optional<std::pair<Operation *, Operation *>> turnSpan(scf::ForOp loop) {
  Block &body = *loop.getBody();
  Operation *first = nullptr, *last = nullptr;
  for (Operation &op : body) {
    if (isa<DotOp>(op)) {
      if (!isAsyncWgmma(op))
        return std::nullopt;
      first = first ? first : &op;
      last = &op;
    }
  }
  if (!first)
    return std::nullopt;
  for (Operation *op = first; op != last; op = op->getNextNode())
    if (op != first && !mayRunInTurn(*op))
      return std::nullopt;
  bool work = false;
  for (Operation *op = last->getNextNode(); op; op = op->getNextNode())
    work |= isOtherTileWork(*op);
  if (!work)
    return std::nullopt;
  return std::make_pair(first, last);
}

struct TilePingPong : phobos::tile::impl::TilePingPongBase<TilePingPong> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (kernel.getCtaSize() < 2 * WarpSpecializeOp::kProducerThreads)
      return;
    WarpSpecializeOp split;
    for (Operation &op : kernel.getBody().front())
      if (auto candidate = dyn_cast<WarpSpecializeOp>(op))
        split = candidate;
    if (!split)
      return;
    // The consumers' loops: at their top level, or in the branches of an
    // `scf.if` there (a loop unswitched on a kernel argument).
    SmallVector<scf::ForOp> loops;
    for (Operation &op : split.getConsumerBlock()) {
      if (auto loop = dyn_cast<scf::ForOp>(op))
        loops.push_back(loop);
      if (isa<scf::IfOp>(op))
        for (Region &region : op.getRegions())
          for (Block &block : region)
            for (auto loop : block.getOps<scf::ForOp>())
              loops.push_back(loop);
    }
    for (scf::ForOp loop : loops) {
      std::optional<std::pair<Operation *, Operation *>> span = turnSpan(loop);
      if (!span)
        continue;
      OpBuilder builder(loop);
      WarpgroupTurnOp::create(builder, loop.getLoc(), TurnStep::start);
      builder.setInsertionPointAfter(loop);
      WarpgroupTurnOp::create(builder, loop.getLoc(), TurnStep::finish);
      builder.setInsertionPoint(span->first);
      WarpgroupTurnOp::create(builder, span->first->getLoc(), TurnStep::take);
      builder.setInsertionPointAfter(span->second);
      WarpgroupTurnOp::create(builder, span->second->getLoc(), TurnStep::give);
      // The turn is given as soon as the MMAs are issued, as FlashAttention
      // 3 does: the last dot no longer waits for the earlier ones (its
      // in_flight covers every group of the turn), so the next warpgroup's
      // MMAs queue behind them at once. The waits after the turn, counted
      // from the order of issue, retire each group before its result is
      // read.
      auto last = cast<DotOp>(span->second);
      uint32_t groups = 0;
      for (Operation *op = span->first; op != last->getNextNode();
           op = op->getNextNode())
        groups += isAsyncWgmma(*op);
      if (*last.getInFlight() < groups)
        last.setInFlightAttr(builder.getI32IntegerAttr(groups));
      ++numLoops;
    }
  }
};

} // namespace
