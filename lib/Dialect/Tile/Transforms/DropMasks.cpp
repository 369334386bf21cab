//===- DropMasks.cpp - Slice axes proven inside their tensor --------------===//

#include "SliceAnalysis.h"

#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEDROPMASKS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

static std::optional<int64_t> constantOf(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  return std::nullopt;
}

/// Whether `offset :+ extent` stays inside axis `axis` of `access`.
static bool provenInside(const SliceAccess &access, unsigned axis,
                         const llvm::StringMap<int64_t> &aligned) {
  Value offset = access.offsets[axis];
  int64_t extent = access.extents[axis];
  int64_t size = access.tensor.isDynamicDim(axis)
                     ? -1
                     : access.tensor.getDimSize(axis);
  if (std::optional<int64_t> constant = constantOf(offset))
    return size > 0 && *constant >= 0 && *constant + extent <= size;

  // A loop `for k in range(lb, N, S)` with lb a multiple of S, k :+ E, E <= S
  // and N a multiple of S: k + E <= N on every iteration.
  auto iv = dyn_cast<BlockArgument>(offset);
  auto loop = iv ? dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp()) : nullptr;
  if (!loop || loop.getInductionVar() != iv)
    return false;
  std::optional<int64_t> step = constantOf(loop.getStep());
  std::optional<int64_t> lower = constantOf(loop.getLowerBound());
  if (!step || !lower || *step <= 0 || *lower < 0 || *lower % *step != 0 ||
      extent > *step)
    return false;
  std::optional<int64_t> upper = constantOf(loop.getUpperBound());
  if (upper)
    return size > 0 && *upper <= size && *upper % *step == 0;
  auto dim = loop.getUpperBound().getDefiningOp<DimOp>();
  if (!dim)
    return false;
  std::string name = dimName(dim);
  if (name.empty() || name != access.dimNames[axis])
    return false;
  if (size > 0)
    return size % *step == 0;
  auto promise = aligned.find(name);
  return promise != aligned.end() && promise->second % *step == 0;
}

namespace {
struct TileDropMasks : phobos::tile::impl::TileDropMasksBase<TileDropMasks> {
  using TileDropMasksBase::TileDropMasksBase;

  void runOnOperation() override {
    llvm::StringMap<int64_t> aligned = alignedDims(getOperation());
    getOperation().walk([&](Operation *op) {
      std::optional<SliceAccess> access = SliceAccess::get(op);
      if (!access)
        return;
      bool changed = false;
      for (unsigned axis = 0; axis < access->inBounds.size(); ++axis)
        if (!access->inBounds[axis] && provenInside(*access, axis, aligned)) {
          access->inBounds[axis] = true;
          changed = true;
          ++numAxes;
        }
      if (changed)
        access->store();
    });
    // A loop `for k in range(lb, N, S)` with lb and N multiples of S runs
    // whole steps only: its checks `k + arange(E) < N` (E <= S) all hold.
    getOperation().walk([&](scf::ForOp loop) {
      std::optional<int64_t> step = constantOf(loop.getStep());
      std::optional<int64_t> lower = constantOf(loop.getLowerBound());
      auto dim = loop.getUpperBound().getDefiningOp<DimOp>();
      if (!step || !lower || !dim || *step <= 0 || *lower < 0 ||
          *lower % *step != 0)
        return;
      int64_t size = -1;
      auto tensor = cast<GlobalTensorType>(dim.getTensor().getType());
      if (!tensor.isDynamicDim(dim.getIndex()))
        size = tensor.getDimSize(dim.getIndex());
      auto promise = aligned.find(dimName(dim));
      if ((size > 0 && size % *step == 0) ||
          (promise != aligned.end() && promise->second % *step == 0))
        foldBoundChecks(loop, dim, *step);
    });
  }
};
} // namespace
