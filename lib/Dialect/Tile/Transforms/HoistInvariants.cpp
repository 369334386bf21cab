//===- HoistInvariants.cpp - Loop-invariant loads out of loops ------------===//

#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEHOISTINVARIANTS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

/// Whether anything in `loop` writes `tensor`.
static bool writes(Operation *loop, Value tensor) {
  bool found = false;
  loop->walk([&](Operation *op) {
    if (auto store = dyn_cast<StoreOp>(op))
      found |= store.getTensor() == tensor;
    else if (auto store = dyn_cast<StoreScalarOp>(op))
      found |= store.getTensor() == tensor;
  });
  return found;
}

namespace {
struct TileHoistInvariants
    : phobos::tile::impl::TileHoistInvariantsBase<TileHoistInvariants> {
  using TileHoistInvariantsBase::TileHoistInvariantsBase;

  void runOnOperation() override {
    // Inner loops first, so that code can climb out of several levels.
    getOperation().walk([&](LoopLikeOpInterface loop) {
      numHoisted += moveLoopInvariantCode(
          loop.getLoopRegions(),
          [&](Value value, Region *) {
            return loop.isDefinedOutsideOfLoop(value);
          },
          [&](Operation *op, Region *) {
            if (isMemoryEffectFree(op) && isSpeculatable(op))
              return true;
            auto load = dyn_cast<LoadOp>(op);
            return load && !writes(loop, load.getTensor());
          },
          [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
    });
  }
};
} // namespace
