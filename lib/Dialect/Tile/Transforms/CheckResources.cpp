//===- CheckResources.cpp - Tiles that do not fit the chip ----------------===//
//
// The lowering gives every thread its registers of every tile and unrolls
// the per-register code, so a tile of a million elements takes minutes and
// gigabytes to compile before anything could fail. This pass runs first and
// rejects, at the op that makes the tile, what cannot run well: a tile
// beyond the registers a thread may give it, tiles staged in shared memory
// beyond what a CTA may use, and a kernel whose tiles together would unroll
// to too much per-thread code.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILECHECKRESOURCES
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// 32-bit registers one element takes (two for 64-bit types).
int64_t registersPerElement(Type element) {
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() > 32 ? 2 : 1;
}

struct TileCheckResources
    : phobos::tile::impl::TileCheckResourcesBase<TileCheckResources> {
  using TileCheckResourcesBase::TileCheckResourcesBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    int64_t threads = std::max<int64_t>(32, kernel.getCtaSize());
    int64_t total = 0;
    bool ok = true;
    kernel.walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        auto tile = dyn_cast<TileType>(result.getType());
        // Region ops (loops, ifs) carry tiles their bodies made.
        if (!tile || op->getNumRegions())
          continue;
        int64_t elements = tile.getNumElements();
        int64_t perElement = registersPerElement(tile.getElementType());
        int64_t registers = (elements + threads - 1) / threads * perElement;
        total += registers;
        if (registers <= maxTileRegisters)
          continue;
        int64_t fits = maxTileRegisters / perElement * threads;
        op->emitError() << getSourceTypeName(tile) << " needs " << registers
                        << " registers per thread (" << elements
                        << " elements over the CTA's " << threads
                        << " threads), more than the "
                        << maxTileRegisters.getValue()
                        << " one tile may take (a thread has 255, the rest "
                           "spills); at "
                        << threads << " threads a tile holds at most " << fits
                        << " elements: use smaller tiles (a smaller @autotune "
                           "value) or more threads (@launch)";
        ok = false;
      }
      ok &= checkShared(op);
    });
    if (ok && total > maxKernelRegisters) {
      kernel.emitError("the kernel's tiles take ")
          << total << " registers per thread together, more than the "
          << maxKernelRegisters.getValue()
          << " whose per-thread code Phobos unrolls; use smaller tiles or "
             "more threads (@launch)";
      ok = false;
    }
    if (!ok)
      signalPassFailure();
  }

  /// Bytes of shared memory `value` takes at least when staged there.
  int64_t stagedBytes(Value value, DotPrecision precision) {
    if (auto buffer = dyn_cast<SharedMemoryType>(value.getType()))
      return getSharedMemoryBytes(buffer);
    auto tile = dyn_cast<TileType>(value.getType());
    if (!tile)
      return 0;
    // f32 operands a tensor-core dot rounds to 16 bits are staged as such.
    int64_t bytes = getElementBytes(tile.getElementType());
    if (precision == DotPrecision::f16 || precision == DotPrecision::bf16)
      bytes = std::min<int64_t>(bytes, 2);
    return tile.getNumElements() * bytes;
  }

  bool checkShared(Operation *op) {
    if (auto dot = dyn_cast<DotOp>(op)) {
      // The FMA lowering unrolls K for every accumulator a thread holds.
      TileType result = dot.getType();
      Type aType = dot.getA().getType();
      int64_t k = isa<TileType>(aType)
                      ? cast<TileType>(aType).getShape().back()
                      : cast<SharedMemoryType>(aType).getShape().back();
      int64_t threads = std::max<int64_t>(32, getOperation().getCtaSize());
      int64_t accumulators = (result.getNumElements() + threads - 1) / threads;
      if (accumulators * k > maxDotSteps) {
        dot.emitError("this dot unrolls to ")
            << accumulators * k << " multiply-adds per thread ("
            << accumulators << " accumulators per thread times K = " << k
            << "), more than the " << maxDotSteps.getValue()
            << " Phobos unrolls; use smaller tiles (a smaller @autotune "
               "value for M, N or K) or more threads (@launch)";
        return false;
      }
      int64_t a = stagedBytes(dot.getA(), dot.getPrecision());
      int64_t b = stagedBytes(dot.getB(), dot.getPrecision());
      if (a + b <= maxSharedBytes)
        return true;
      dot.emitError("this dot stages its operands in shared memory: ")
          << a << " + " << b << " bytes, more than the "
          << maxSharedBytes.getValue()
          << " one CTA may use; use smaller tiles (a smaller @autotune "
             "value for M, N or K)";
      return false;
    }
    int64_t scratch = 0;
    if (isa<TransposeOp, ReshapeOp, CumsumOp, ConvertLayoutOp>(op))
      scratch = getScratchBytes(op);
    if (scratch <= maxSharedBytes)
      return true;
    op->emitError() << "'" << op->getName().stripDialect()
                    << "' passes its tile through shared memory: " << scratch
                    << " bytes, more than the " << maxSharedBytes.getValue()
                    << " one CTA may use; use smaller tiles";
    return false;
  }
};

} // namespace
