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
// An mma.sync dot needs more than its accumulator: each k-step loads the
// A and B fragments of the warp's block into registers, and ptxas loads
// the next step's while the MMAs of this one issue. With its accumulator,
// two steps of fragments and the registers of the loop around it
// (addresses, counters, pipeline slots), a warp block that does not fit
// spills: 12 warps of a 192 x 256 f16 accumulator on sm_80 (64 x 64 a
// warp: 128 + 2 x 32 registers, 170 a thread at 384 threads) spilled 52
// to 156 bytes; 192 x 128 (64 x 32 a warp, 112 registers) none. Such a
// dot is an error too, with the estimate's parts.
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

/// Registers a thread keeps for the loop around an mma.sync dot besides
/// its accumulator and fragments (addresses, counters, pipeline slots): an
/// eighth of what it has. Calibrated on sm_80 with ptxas's every relief:
/// 192 x 192 f16 at 384 threads (152 registers of accumulator and two
/// steps of fragments, of 170 a thread) spilled 4 to 92 bytes; 192 x 128
/// f16 (112 of 170) and the tf32 128 x 256 at 512 threads (112 of 128)
/// none.
int64_t loopRegisters(int64_t budget) { return budget / 8; }

/// 32-bit registers a thread holds of an mma.sync operand: from shared
/// memory, two k-steps of fragments (one in use, the next loading), each a
/// warp block's `rows` x 16 halves (or x 8 tf32 values) over 32 lanes,
/// rows / 4 either way; an operand already in registers, all of it.
int64_t fragmentRegisters(Value operand, int64_t rows) {
  if (auto tile = dyn_cast<TileType>(operand.getType()))
    return registersOf(tile);
  return 2 * (rows / 4);
}

/// Emits the error for an mma.sync dot whose accumulator, fragments and
/// loop registers exceed `budget`; returns whether it did.
bool exceedsBudget(DotOp dot, int64_t budget, int64_t threads) {
  if (dot.getKind() != DotKind::mma_sync)
    return false;
  auto result = cast<TileType>(dot.getType());
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(result.getEncoding());
  if (!mma || result.getRank() != 2)
    return false;
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  int64_t rows = result.getDimSize(0) / warps[0];
  int64_t columns = result.getDimSize(1) / warps[1];
  int64_t accumulator = registersOf(result);
  int64_t a = fragmentRegisters(dot.getA(), rows);
  int64_t b = fragmentRegisters(dot.getB(), columns);
  int64_t loop = loopRegisters(budget);
  int64_t needed = accumulator + a + b + loop;
  if (needed <= budget)
    return false;
  dot.emitError() << "mma.sync on " << getSourceTypeName(result) << " over "
                  << threads << " threads (" << warps[0] << " x " << warps[1]
                  << " warps, " << rows << " x " << columns
                  << " a warp) needs about " << needed
                  << " registers per thread (accumulator " << accumulator
                  << ", operand fragments " << a + b << ", loop " << loop
                  << "), and a thread has " << budget
                  << ": ptxas would spill; use smaller tiles (a smaller "
                     "@autotune value) or more threads (@launch)";
  return true;
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
      return signalPassFailure();
    walk = kernel.walk([&](DotOp dot) {
      return exceedsBudget(dot, budget, threads) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
