//===- HoistInvariants.cpp - Loop-invariant loads out of loops ------------===//

#include "LoopUtils.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
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

namespace {
struct TileHoistInvariants
    : phobos::tile::impl::TileHoistInvariantsBase<TileHoistInvariants> {
  using TileHoistInvariantsBase::TileHoistInvariantsBase;

  void runOnOperation() override {
    // Inner loops first, so that code can climb out of several levels.
    getOperation().walk([&](LoopLikeOpInterface loop) {
      llvm::SmallDenseSet<Value, 4> written = writtenTensors(loop.getOperation());
      numHoisted += moveLoopInvariantCode(
          loop.getLoopRegions(),
          [&](Value value, Region *) {
            return loop.isDefinedOutsideOfLoop(value);
          },
          [&](Operation *op, Region *) {
            if (isMemoryEffectFree(op) && isSpeculatable(op))
              return true;
            // A load of a tensor the loop does not write reads the same
            // values before it (distinct tensor arguments are distinct
            // memory).
            auto load = dyn_cast<LoadOp>(op);
            return load && !written.contains(load.getTensor());
          },
          [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
    });
  }
};
} // namespace
