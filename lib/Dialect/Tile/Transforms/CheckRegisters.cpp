//===- CheckRegisters.cpp - Tiles a thread's registers cannot hold --------===//
//
// Once every tile has its layout, the registers a thread holds of each are
// known exactly (DistributedLayout::numRegisters, replication included).
// A tile that alone takes all the registers a thread has cannot be held:
// ptxas spills it (kilobytes of local memory a thread: the 256 x 256 f32
// accumulator over 256 threads) or refuses the kernel ("Insufficient
// registers", a 256 x 256 accumulator over 512 threads, which may use 128
// registers each). This pass makes that a diagnostic at the op that first
// makes such a tile, with the numbers, instead of a spilling or failing
// assembly.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/DistributedLayout.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILECHECKREGISTERS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// 32-bit registers a thread holds of `tile` in its layout; 0 for tiles
/// without a distributed layout and for booleans (predicates). 16-bit
/// elements count half (mma fragments pack two), 64-bit ones twice.
int64_t registersOf(TileType tile) {
  auto layout =
      dyn_cast_or_null<DistributedLayoutInterface>(tile.getEncoding());
  Type element = tile.getElementType();
  if (!layout || element.isInteger(1) || !element.isIntOrFloat())
    return 0;
  int64_t bits = element.getIntOrFloatBitWidth();
  int64_t values = layout.distribute(tile.getShape()).numRegisters();
  return (values * bits + 31) / 32;
}

struct TileCheckRegisters
    : phobos::tile::impl::TileCheckRegistersBase<TileCheckRegisters> {
  using TileCheckRegistersBase::TileCheckRegistersBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    int64_t threads = std::max<int64_t>(32, kernel.getCtaSize());
    int64_t ctas = std::max<int64_t>(1, kernel.getMinBlocks().value_or(1));
    int64_t budget = std::min<int64_t>(maxThreadRegisters,
                                       kRegistersPerSM / (ctas * threads));
    WalkResult walk = kernel.walk([&](Operation *op) {
      // Region ops (loops, ifs) carry tiles their bodies made.
      if (op->getNumRegions())
        return WalkResult::advance();
      for (Value result : op->getResults()) {
        auto tile = dyn_cast<TileType>(result.getType());
        if (!tile)
          continue;
        int64_t registers = registersOf(tile);
        if (registers < budget)
          continue;
        InFlightDiagnostic diagnostic = op->emitError();
        diagnostic << getSourceTypeName(tile) << " takes " << registers
                   << " registers per thread in its layout ("
                   << tile.getNumElements() << " elements over " << threads
                   << " threads), and a thread has " << budget << " at most (";
        if (budget == maxThreadRegisters)
          diagnostic << "PTX's limit";
        else
          diagnostic << kRegistersPerSM << " per SM over " << ctas * threads
                     << " threads";
        diagnostic << "), nothing left for anything else: ptxas would "
                      "spill it or refuse the kernel; use smaller tiles (a "
                      "smaller @autotune value) or more threads (@launch)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
