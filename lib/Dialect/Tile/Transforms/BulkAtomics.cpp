//===- BulkAtomics.cpp - Row-by-row bulk reductions for atomic adds -------===//
//
// An attention backward in one kernel adds dQ = dS K, a [BR, D] f32 block,
// to global memory in every iteration of its key loop. Per-thread vector
// reductions (red.global.add.v2/v4.f32) send one request per two or four
// registers; FlashAttention 3 instead stages the block in shared memory and
// lets the memory system add it with bulk reductions. This pass marks the
// atomic additions the GPU lowering may treat that way (`bulk`): blocks of
// at least 16 rows of f32, added in a loop to a tensor the kernel does not
// otherwise read or write, whose last axis runs along the tensor's
// contiguous one in rows of a multiple of 16 bytes, on sm_90 and later,
// where the kernel still fits in shared memory with the block's scratch. The values added are the same; the lowering keeps the
// per-register path for misaligned tensors.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEBULKATOMICS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

/// Rows a block needs for its staging (a store to shared memory and a
/// barrier) to pay: a row or two (layer norm's partial sums) keep their
/// per-register reductions.
constexpr int64_t kMinRows = 16;

/// The compute capability of `chip` ("sm_90a": 90), or 0.
int64_t capability(StringRef chip) {
  int64_t value = 0;
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, value))
    return 0;
  return value;
}

struct TileBulkAtomics
    : phobos::tile::impl::TileBulkAtomicsBase<TileBulkAtomics> {
  using TileBulkAtomicsBase::TileBulkAtomicsBase;

  void runOnOperation() override {
    if (capability(chip) < 90)
      return;
    getOperation().walk([&](AtomicAddOp add) {
      auto tile = dyn_cast<TileType>(add.getValue().getType());
      int64_t last = add.getTensor().getType().getRank() - 1;
      if (!tile || !tile.getElementType().isF32() || add.getBulk() ||
          llvm::is_contained(add.getPointAxes(), last) ||
          tile.getShape().back() * 4 % 16 != 0 ||
          tile.getNumElements() / tile.getShape().back() < kMinRows ||
          !add->getParentOfType<scf::ForOp>())
        return;
      // The reductions complete after the kernel has gone on: nothing else
      // in it may read or write the tensor (other additions commute).
      if (llvm::any_of(add.getTensor().getUsers(), [](Operation *user) {
            return !isa<AtomicAddOp, DimOp>(user);
          }))
        return;
      // The block's scratch must fit beside the buffers tile-pipeline
      // placed (an explicit @pipeline(N) stays as the author wrote it).
      add.setBulk(true);
      if (planSharedMemory(getOperation(), /*assign=*/false) > maxBytes) {
        add.setBulk(false);
        return;
      }
      ++numBulk;
    });
  }
};

} // namespace
