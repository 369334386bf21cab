//===- ChooseOccupancy.cpp - Two CTAs per SM for small accumulators -------===//
//
// A tensor-core kernel with one CTA per SM has two warps per scheduler:
// nothing hides the latency of its ldmatrix/mma chains but each warp's own
// instruction-level parallelism. Where the accumulators leave room, asking
// ptxas for two CTAs per SM (.minnctapersm 2) halves the registers it may
// use and doubles the warps that can issue. wgmma dots (sm_90a) are left at
// one CTA: their warpgroups issue asynchronously, and the cap of two CTAs
// (128 registers at 256 threads) makes ptxas spill around a 128x128
// accumulator.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILECHOOSEOCCUPANCY
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

struct TileChooseOccupancy
    : phobos::tile::impl::TileChooseOccupancyBase<TileChooseOccupancy> {
  using TileChooseOccupancyBase::TileChooseOccupancyBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (kernel.getMinBlocks())
      return;
    int64_t threads = kernel.getCtaSize();
    // The accumulator registers a thread holds for the mma dots of each
    // block (a loop body: attention's two dots are live together).
    DenseMap<Block *, int64_t> perBlock;
    kernel.walk([&](DotOp dot) {
      if (dot.getKind() == DotKind::mma_sync)
        perBlock[dot->getBlock()] +=
            (dot.getType().getNumElements() + threads - 1) / threads;
    });
    if (perBlock.empty())
      return;
    int64_t accumulators = 0;
    for (auto &[block, registers] : perBlock)
      accumulators = std::max(accumulators, registers);
    int64_t budget = std::min<int64_t>(255, kRegistersPerSM / (2 * threads));
    auto shared = kernel->getAttrOfType<IntegerAttr>(KernelOp::kSharedBytesAttrName);
    int64_t sharedBytes = shared ? shared.getInt() : 0;
    if (2 * accumulators > budget || 2 * sharedBytes > maxSharedBytes)
      return;
    kernel.setMinBlocks(2);
    ++numRaised;
  }
};

} // namespace
