//===- SelectMma.cpp - Choose the instructions of each dot ----------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILESELECTMMA
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {
/// Whether `dot` accumulates into a loop-carried tile that only it uses and
/// its result only goes back to that tile (a GEMM's main loop): its
/// accumulator's layout then meets no other tile until the loop ends.
bool accumulatesAlone(DotOp dot) {
  auto acc = dyn_cast_or_null<BlockArgument>(dot.getAcc());
  auto loop = acc ? dyn_cast<scf::ForOp>(acc.getOwner()->getParentOp())
                  : scf::ForOp();
  if (!loop || acc.getArgNumber() == 0 || !acc.hasOneUse() ||
      !dot->hasOneUse())
    return false;
  Operation *yield = loop.getBody()->getTerminator();
  return *dot->user_begin() == yield &&
         yield->getOperand(acc.getArgNumber() - 1) == dot.getResult();
}

struct TileSelectMma : phobos::tile::impl::TileSelectMmaBase<TileSelectMma> {
  using TileSelectMmaBase::TileSelectMmaBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    unsigned warps = getNumWarps(kernel);
    kernel.walk([&](DotOp dot) {
      auto a = dyn_cast<TileType>(dot.getA().getType());
      auto b = dyn_cast<TileType>(dot.getB().getType());
      if (!a || !b) // already promoted: keep what was chosen
        return;
      Type element = a.getElementType();
      bool tf32 = dot.getPrecision() == DotPrecision::tf32 && element.isF32();
      // Tensor cores are exact for f16/bf16 operands (f32 accumulation), and
      // what @tensorcore asks for with f32 ones.
      bool wantsTensorCores = element.isF16() || element.isBF16() ||
                              dot.getPrecision() != DotPrecision::ieee;
      int64_t m = a.getDimSize(0), k = a.getDimSize(1);
      int64_t n = dot.getTransposeB() ? b.getDimSize(0) : b.getDimSize(1);
      bool tensorCoreK =
          wantsTensorCores && !element.isF64() && k % (tf32 ? 8 : 16) == 0;
      bool fits = tensorCoreK && getMmaWarps(m, n, warps).has_value();
      // wgmma: each warp owns 16 accumulator rows, a warpgroup 64; N up to
      // 256. (tf32 reads B K-major: tile-promote-shared stores it so.) Any
      // number of warpgroups: three (12 warps, M = 192) stack along M as
      // well as two do.
      std::optional<int64_t> wgmmaRows = getWgmmaRows(dot);
      bool wgmma = chip == "sm_90a" && warps % 4 == 0 && wgmmaRows &&
                   *wgmmaRows == 16 * int64_t(warps);
      // A tf32 B stored [K, N] must be transposed on its way to shared
      // memory (wgmma reads tf32 only K-major). A GEMM loop avoids that by
      // computing the transpose instead (swap_ab): B's fragments from its
      // N-major buffer through registers as the instruction's A (64 of N
      // per warpgroup, so N = 16 x warps), A as its K-major B (M up to 256,
      // a multiple of 8).
      bool swap = fits && tf32 && chip == "sm_90a" && warps % 4 == 0 &&
                  !dot.getTransposeB() && n == 16 * int64_t(warps) &&
                  m % 8 == 0 && m <= 256 && a.getRank() == 2 &&
                  b.getRank() == 2 && accumulatesAlone(dot);
      wgmma = wgmma || swap;
      fits = fits || wgmma;
      dot.setKind(wgmma ? DotKind::wgmma
                  : fits ? DotKind::mma_sync
                         : DotKind::fma);
      if (swap) {
        dot.setSwapAb(true);
        ++numSwapped;
      }
      ++(wgmma ? numWgmma : fits ? numMma : numFma);
    });
  }
};
} // namespace
