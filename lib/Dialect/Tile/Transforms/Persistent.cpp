//===- Persistent.cpp - CTAs that loop over the grid's tiles --------------===//
//
// A @persistent kernel is launched with as many CTAs as the GPU holds at
// once, and each walks the tiles of the grid the source describes. The
// tile grid is what the launch contract infers (KernelOp::getGridTerms:
// every axis the largest ceil(extent / multiplier) of the `block_id *
// multiplier` offsets of its loads and stores), computed here from the
// tensors' extents, so that the kernel is correct for any launched grid
// (P, 1, 1): the launcher only chooses P. Each tile's body is the source
// body with the tile's coordinates (`phobos.tile_coord`, which keeps
// tile-group-blocks' grouped order) in place of the CTA's.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEPERSISTENT
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

struct TilePersistent : phobos::tile::impl::TilePersistentBase<TilePersistent> {
  using TilePersistentBase::TilePersistentBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel.getPersistent())
      return;
    Block &body = kernel.getBody().front();
    bool rewritten = false;
    kernel.walk([&](TileCoordOp) { rewritten = true; });
    if (rewritten)
      return;
    std::array<SmallVector<KernelOp::GridTerm>, 3> terms;
    std::array<bool, 3> axisUsed;
    kernel.getGridTerms(terms, axisUsed);
    static const char axisNames[] = "xyz";
    for (int axis = 0; axis < 3; ++axis)
      if (axisUsed[axis] && terms[axis].empty()) {
        kernel.emitError("@persistent needs the grid to follow from the "
                         "kernel's slices, but ctx.block.")
            << axisNames[axis]
            << " offsets no load or store (the launcher could not tell how "
               "many tiles there are)";
        return signalPassFailure();
      }
    // Only the body's last op returns.
    WalkResult early = kernel.walk([&](ReturnOp ret) {
      return ret.getOperation() == body.getTerminator()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    });
    if (early.wasInterrupted()) {
      kernel.emitError("@persistent kernels return only at their end");
      return signalPassFailure();
    }

    Location loc = kernel.getLoc();
    OpBuilder builder(&body, body.begin());
    Type i32 = builder.getI32Type();
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(builder, loc,
                                       builder.getI32IntegerAttr(value));
    };
    // The tile grid: per axis, the largest ceil(extent / multiplier).
    Value extents[3];
    for (int axis = 0; axis < 3; ++axis) {
      Value extent;
      for (const KernelOp::GridTerm &term : terms[axis]) {
        Value dim =
            DimOp::create(builder, loc, i32, body.getArgument(term.argument),
                          builder.getI64IntegerAttr(term.tensorAxis));
        Value tiles = arith::CeilDivSIOp::create(builder, loc, dim,
                                                 constant(term.divisor));
        extent = extent ? arith::MaxSIOp::create(builder, loc, extent, tiles)
                              .getResult()
                        : tiles;
      }
      // An empty tensor still launches one tile, as the contract's grid.
      extents[axis] =
          extent ? arith::MaxSIOp::create(builder, loc, extent, constant(1))
                       .getResult()
                 : constant(1);
    }
    Value tiles = arith::MulIOp::create(builder, loc, extents[0], extents[1]);
    if (!terms[2].empty())
      tiles = arith::MulIOp::create(builder, loc, tiles, extents[2]);
    Value first = BlockIdOp::create(builder, loc, Axis::x);
    Value ctas = GridDimOp::create(builder, loc, Axis::x);
    auto loop = scf::ForOp::create(builder, loc, first, tiles, ctas);
    loop->setAttr(kTileLoopAttrName, builder.getUnitAttr());

    // Everything after the loop's bounds, up to the return, is the tile's.
    Block *tileBody = loop.getBody();
    Operation *yield = tileBody->getTerminator();
    for (Operation &op : llvm::make_early_inc_range(
             llvm::make_range(std::next(loop->getIterator()),
                              body.getTerminator()->getIterator())))
      op.moveBefore(yield);
    Value tile = loop.getInductionVar();
    loop.walk([&](Operation *op) {
      builder.setInsertionPoint(op);
      if (auto id = dyn_cast<BlockIdOp>(op)) {
        IntegerAttr group;
        if (std::optional<uint32_t> g = id.getGroup())
          group = builder.getI32IntegerAttr(*g);
        Value coord = TileCoordOp::create(builder, id.getLoc(), id.getAxis(),
                                          tile, extents[0], extents[1], group);
        id.replaceAllUsesWith(coord);
        id.erase();
      } else if (auto dim = dyn_cast<GridDimOp>(op)) {
        dim.replaceAllUsesWith(extents[static_cast<int>(dim.getAxis())]);
        dim.erase();
      }
    });
  }
};

} // namespace
