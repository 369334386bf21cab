//===- SplitRaggedLoops.cpp - A mask-free main loop and a remainder -------===//

#include "SliceAnalysis.h"

#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILESPLITRAGGEDLOOPS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

/// The accesses of `loop`'s own body that slice `iv :+ E` (E <= step) along
/// a dim named like the loop's bound, still masked there: (op, axis).
static SmallVector<std::pair<Operation *, unsigned>>
raggedAccesses(scf::ForOp loop, int64_t step, StringRef boundName) {
  SmallVector<std::pair<Operation *, unsigned>> found;
  for (Operation &op : *loop.getBody()) {
    std::optional<SliceAccess> access = SliceAccess::get(&op);
    if (!access)
      continue;
    for (unsigned axis = 0; axis < access->offsets.size(); ++axis)
      if (access->offsets[axis] == loop.getInductionVar() &&
          !access->inBounds[axis] && access->extents[axis] <= step &&
          access->dimNames[axis] == boundName)
        found.push_back({&op, axis});
  }
  return found;
}

namespace {
struct TileSplitRaggedLoops
    : phobos::tile::impl::TileSplitRaggedLoopsBase<TileSplitRaggedLoops> {
  using TileSplitRaggedLoopsBase::TileSplitRaggedLoopsBase;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      split(loop);
  }

  void split(scf::ForOp loop) {
    APInt lower, step;
    auto bound = loop.getUpperBound().getDefiningOp<DimOp>();
    if (!bound || !matchPattern(loop.getLowerBound(), m_ConstantInt(&lower)) ||
        !matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
        lower.getSExtValue() != 0 || step.getSExtValue() <= 0)
      return;
    std::string name = dimName(bound);
    if (name.empty() ||
        raggedAccesses(loop, step.getSExtValue(), name).empty())
      return;

    OpBuilder builder(loop);
    Location loc = loop.getLoc();
    Value ub = loop.getUpperBound();
    // The last whole step: (N / S) * S.
    Value full = arith::MulIOp::create(
        builder, loc, arith::DivSIOp::create(builder, loc, ub, loop.getStep()),
        loop.getStep());
    // The main loop: a copy bounded by `full`, with the masks dropped.
    auto main = cast<scf::ForOp>(builder.clone(*loop.getOperation()));
    main.getUpperBoundMutable().assign(full);
    for (auto [op, axis] : raggedAccesses(main, step.getSExtValue(), name)) {
      std::optional<SliceAccess> access = SliceAccess::get(op);
      access->inBounds[axis] = true;
      access->store();
    }
    // So do the kernel's own checks of the columns against the bound
    // (`where(kb + arange(BC) < N, ...)`): every column of a whole step is
    // inside.
    unsigned folded = foldBoundChecks(main, ub, step.getSExtValue());
    // The remainder: the original loop, from `full`, carrying on from the
    // main loop's results.
    loop.getLowerBoundMutable().assign(full);
    loop.getInitArgsMutable().assign(main.getResults());
    // Where the main loop differs from the remainder only by the in-bounds
    // promises of the ragged accesses, a pass whose accesses stay correct
    // past the bound (TMA copies fill zeros) may run the main loop to the
    // bound instead (tile-pipeline in a persistent kernel).
    if (folded == 0)
      loop->setAttr(kRaggedRemainderAttrName, builder.getUnitAttr());
    ++numSplit;
  }
};
} // namespace
