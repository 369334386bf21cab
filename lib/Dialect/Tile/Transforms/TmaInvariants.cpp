//===- TmaInvariants.cpp - Loop-invariant dot operands copied by TMA ------===//
//
// A TMA pipeline (tile-pipeline) copies the operands that change with its
// loop; an operand loaded once before the loop (attention's Q, the
// backward's K and V) still goes through every thread's registers: global
// loads, shared stores, a barrier of the whole CTA, and the loads' latency
// in front of the first dot. This pass copies such an operand with one TMA
// copy into a one-slot buffer instead, on an mbarrier of its own that the
// threads wait on just before the loop, after the loop's own first copies
// have started. With a producer warpgroup (tile-warp-specialize) the copy
// is one of the producer's prologue copies.
//
// A loop tile-unswitch-loops split on a flag leaves a pipeline in each
// branch of an `scf.if`: each branch then copies the tile into the same slot
// (one branch runs), at its start, before its own prologue. Only for
// operands read by dots in those pipelines (or in loops after them: a
// ragged remainder), of a tensor the kernel never writes (the copy reads it
// asynchronously), in a block the kernel runs once: in a persistent
// kernel's tile loop the slot would be refilled for the next tile, which a
// producer could do only behind a release of it (not built).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/Passes.h"
#include "SliceAnalysis.h"
#include "Staging.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILETMAINVARIANTS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// The first loop of `block` that tile-pipeline made a TMA pipeline.
scf::ForOp firstTmaPipeline(Block &block) {
  for (auto loop : block.getOps<scf::ForOp>()) {
    if (!loop->hasAttr("phobos.pipeline_stages"))
      continue;
    bool tma = false;
    loop.getBody()->walk([&](TmaCopyOp) { tma = true; });
    if (tma)
      return loop;
  }
  return nullptr;
}

/// Where `alloc`'s users are: the block under `home` (`home` itself, or a
/// branch of an `scf.if` in it, as tile-unswitch-loops leaves a loop split
/// on a flag) whose loops hold `user`, and that loop; null for anything else.
std::pair<Block *, scf::ForOp> placeOf(Block *home, Operation *user) {
  Operation *top = home->findAncestorOpInBlock(*user);
  Block *block = home;
  Operation *inBlock = top;
  if (auto branch = dyn_cast_or_null<scf::IfOp>(top)) {
    inBlock = nullptr;
    for (Region &region : branch->getRegions())
      if (!region.empty())
        if (Operation *at = region.front().findAncestorOpInBlock(*user)) {
          block = &region.front();
          inBlock = at;
        }
  }
  return {block, dyn_cast_or_null<scf::ForOp>(inBlock)};
}

/// Whether an op of the kernel writes `tensor`: the copy is then not made
/// (it would read the tensor asynchronously, before the loop, while a store
/// may still be on its way).
bool isWritten(Value tensor) {
  return llvm::any_of(tensor.getUsers(), [&](Operation *user) {
    auto effecting = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effecting)
      return true;
    // A store's write is the op's (not tied to its tensor operand).
    SmallVector<MemoryEffects::EffectInstance> effects;
    effecting.getEffects(effects);
    return llvm::any_of(effects, [&](const MemoryEffects::EffectInstance &e) {
      return isa<MemoryEffects::Write>(e.getEffect()) &&
             (!e.getValue() || e.getValue() == tensor);
    });
  });
}

/// For each block under `alloc`'s (placeOf) whose loops read it, the TMA
/// pipeline there: every user a dot in it or in a loop after it. Empty when
/// a user is anywhere else.
llvm::MapVector<Block *, scf::ForOp> pipelinesReading(LocalAllocOp alloc) {
  llvm::MapVector<Block *, scf::ForOp> pipelines;
  Block *home = alloc->getBlock();
  for (Operation *user : alloc->getUsers()) {
    auto [block, loop] = placeOf(home, user);
    if (!isa<DotOp>(user) || !loop ||
        !alloc->isBeforeInBlock(home->findAncestorOpInBlock(*loop)))
      return {};
    scf::ForOp &pipeline = pipelines[block];
    if (!pipeline)
      pipeline = firstTmaPipeline(*block);
    if (!pipeline ||
        (loop != pipeline && !pipeline->isBeforeInBlock(loop)))
      return {};
  }
  return pipelines;
}

struct TileTmaInvariants
    : phobos::tile::impl::TileTmaInvariantsBase<TileTmaInvariants> {
  using TileTmaInvariantsBase::TileTmaInvariantsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel.getPipeline())
      return;
    llvm::StringMap<int64_t> aligned = alignedDims(kernel);
    SmallVector<LocalAllocOp> allocs;
    kernel.walk([&](LocalAllocOp alloc) { allocs.push_back(alloc); });
    for (LocalAllocOp alloc : allocs) {
      auto load = alloc.getSource().getDefiningOp<LoadOp>();
      if (!load || !load->hasOneUse() ||
          load->getBlock() != alloc->getBlock() || isWritten(load.getTensor()))
        continue;
      // Run once per CTA: not in a loop (a persistent kernel's tile loop
      // included).
      if (alloc->getParentOfType<scf::ForOp>() ||
          alloc->getParentOfType<scf::WhileOp>())
        continue;
      llvm::MapVector<Block *, scf::ForOp> pipelines = pipelinesReading(alloc);
      if (pipelines.empty() ||
          !canCopyThroughTma(load, alloc.getType(), kernel, aligned))
        continue;
      copyThroughTma(load, alloc, pipelines);
      ++numCopied;
    }
  }

  /// `load` + `alloc` -> a one-slot buffer and its mbarrier where `load`
  /// was; in each block of `pipelines`, a TMA copy into the slot before the
  /// pipeline's prologue (where `load` was, or at the start of a branch)
  /// and a wait for it in front of the pipeline, whose users read the slot.
  static void copyThroughTma(LoadOp load, LocalAllocOp alloc,
                             const llvm::MapVector<Block *, scf::ForOp> &pipelines) {
    OpBuilder builder(load);
    Location loc = load.getLoc();
    MLIRContext *context = builder.getContext();
    auto barrierType = SharedMemoryType::get(
        context, {1}, builder.getI64Type(),
        SharedLayoutAttr::get(context, {0}, /*padding=*/0));
    Value barriers = LocalBarriersOp::create(builder, loc, barrierType,
                                             builder.getI32IntegerAttr(1),
                                             IntegerAttr());
    Value buffer = LocalBufferOp::create(
        builder, alloc.getLoc(), getStagedType(alloc.getType(), 1),
        IntegerAttr());
    Block *home = alloc->getBlock();
    DenseMap<Block *, Value> slots;
    for (auto [block, loop] : pipelines) {
      if (block == home)
        builder.setInsertionPoint(load);
      else
        builder.setInsertionPointToStart(block);
      Value zero = arith::ConstantOp::create(builder, loc,
                                             builder.getI32IntegerAttr(0));
      Value slot = BufferSlotOp::create(builder, loc, alloc.getType(), buffer,
                                        zero, builder.getI64IntegerAttr(0));
      TmaCopyOp::create(builder, loc, load.getTensor(), load.getOffsets(),
                        slot, barriers, zero, Value(), Value(), Value());
      // The loop's first copies (tile-pipeline's prologue, before the
      // loop) start before the threads wait for this one.
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(loop);
      MbarrierWaitOp::create(builder, loc, barriers, zero, zero);
      slots[block] = slot;
    }
    for (OpOperand &use : llvm::make_early_inc_range(alloc->getUses()))
      use.set(slots.lookup(placeOf(home, use.getOwner()).first));
    alloc.erase();
    load.erase();
  }
};

} // namespace
