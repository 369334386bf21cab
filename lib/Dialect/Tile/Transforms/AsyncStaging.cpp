//===- AsyncStaging.cpp - Staging copies that bypass the registers -------===//
//
// What tile-pipeline leaves staged through registers in a loop (the
// remainder tile-split-ragged-loops leaves, a loop of a kernel without
// @pipeline or with @pipeline(1)): a `phobos.load` whose only use is the
// `phobos.local_alloc` that stages it in shared memory. Each such tile a
// thread holds for a moment in its registers, all of them at once where
// the loads are issued together, on top of the loop's accumulators: the
// registers a 128 x 256 tf32 GEMM's remainder or an f32 attention's V
// tile need were what made ptxas spill. Here the pair becomes an
// asynchronous copy (cp.async, zero-filled outside the tensor as the load's
// masks read) into a buffer of one slot, which the readers name instead;
// tile-insert-barriers commits the copy and waits for it before the first
// reader. Only where a copy moves at least as many bytes an instruction as
// the registers would (a buffer that transposes the tile takes one element
// a copy).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/Passes.h"
#include "Staging.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEASYNCSTAGING
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

struct TileAsyncStaging
    : phobos::tile::impl::TileAsyncStagingBase<TileAsyncStaging> {
  using TileAsyncStagingBase::TileAsyncStagingBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    SmallVector<std::pair<LoadOp, LocalAllocOp>> staged;
    kernel.walk([&](LocalAllocOp alloc) {
      auto load = alloc.getSource().getDefiningOp<LoadOp>();
      // Outside loops a tile is staged once; its registers are free again
      // before the loop's accumulators fill them.
      if (!load || !load->hasOneUse() ||
          load->getBlock() != alloc->getBlock() ||
          !alloc->getParentOfType<scf::ForOp>())
        return;
      int64_t async = copyBytes(load, alloc);
      if (async < 4 || registerCopyBytes(load, alloc) > async)
        return;
      staged.emplace_back(load, alloc);
    });
    if (staged.empty())
      return;
    if (markOnly) {
      kernel->setAttr(kRegisterStagingAttrName, UnitAttr::get(&getContext()));
      return;
    }
    for (auto [load, alloc] : staged) {
      // The copy starts where the load did: as early as its operands allow.
      OpBuilder builder(load);
      Location loc = alloc.getLoc();
      SharedMemoryType type = alloc.getType();
      Value buffer = LocalBufferOp::create(builder, loc, getStagedType(type, 1),
                                           IntegerAttr());
      Value first = arith::ConstantIntOp::create(builder, loc, 0, 32);
      Value slot = BufferSlotOp::create(builder, loc, type, buffer, first,
                                        builder.getI64IntegerAttr(0));
      AsyncCopyOp::create(builder, load.getLoc(), load.getTensor(),
                          load.getOffsets(), slot, /*enable=*/Value(),
                          TypeAttr::get(load.getType()),
                          load.getPointAxesAttr(), load.getInBoundsAttr());
      alloc.getResult().replaceAllUsesWith(slot);
      alloc.erase();
      load.erase();
      ++numCopies;
    }
  }
};

} // namespace
