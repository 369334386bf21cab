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

/// Whether anything in `loop` writes a tensor. Any store counts: two
/// tensor arguments may be the same memory.
static bool writesAnyTensor(Operation *loop) {
  bool found = false;
  loop->walk([&](Operation *op) {
    found |= isa<StoreOp, StoreScalarOp, AtomicAddOp>(op);
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
      bool stores = writesAnyTensor(loop);
      numHoisted += moveLoopInvariantCode(
          loop.getLoopRegions(),
          [&](Value value, Region *) {
            return loop.isDefinedOutsideOfLoop(value);
          },
          [&](Operation *op, Region *) {
            if (isMemoryEffectFree(op) && isSpeculatable(op))
              return true;
            return isa<LoadOp>(op) && !stores;
          },
          [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
    });
  }
};
} // namespace
