//===- AllocateShared.cpp - Offsets of shared-memory buffers --------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEALLOCATESHARED
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {
struct TileAllocateShared : phobos::tile::impl::TileAllocateSharedBase<TileAllocateShared> {
  using TileAllocateSharedBase::TileAllocateSharedBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Builder builder(&getContext());
    auto align = [](int64_t bytes) { return (bytes + 15) / 16 * 16; };
    // Buffers live across the ops between their write and their readers;
    // each gets its own place. Scratch lives only inside one op, so all
    // scratch users share one region after the buffers.
    int64_t offset = 0, scratch = 0;
    kernel.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        alloc.setOffsetAttr(builder.getI64IntegerAttr(offset));
        offset += align(getSharedMemoryBytes(alloc.getType()));
        return;
      }
      scratch = std::max(scratch, getScratchBytes(op));
    });
    int64_t total = offset + align(scratch);
    kernel->setAttr("phobos.scratch_offset", builder.getI64IntegerAttr(offset));
    kernel->setAttr("phobos.shared_bytes", builder.getI64IntegerAttr(total));
    if (total > maxBytes) {
      kernel.emitError("the kernel needs ")
          << total << " bytes of shared memory, more than the "
          << maxBytes.getValue() << " one CTA may use; choose smaller tiles";
      signalPassFailure();
    }
  }
};
} // namespace
