//===- PromoteShared.cpp - Stage dot operands in shared memory ------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEPROMOTESHARED
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {
struct TilePromoteShared : phobos::tile::impl::TilePromoteSharedBase<TilePromoteShared> {
  using TilePromoteSharedBase::TilePromoteSharedBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    OpBuilder builder(context);
    getOperation().walk([&](DotOp dot) {
      bool mma = dot.getKind() == DotKind::mma_sync;
      // The element type the dot's tensor-core instructions read.
      Type stored;
      if (mma && dot.getPrecision() == DotPrecision::f16)
        stored = Float16Type::get(context);
      else if (mma && dot.getPrecision() == DotPrecision::bf16)
        stored = BFloat16Type::get(context);
      for (unsigned index = 0; index < 2; ++index) {
        Value operand = dot->getOperand(index);
        auto tile = dyn_cast<TileType>(operand.getType());
        if (!tile)
          continue;
        // An operand defined outside the dot's loops (q in attention, a
        // hoisted load) is staged once, where it is defined, not on every
        // iteration.
        if (Operation *producer = operand.getDefiningOp())
          builder.setInsertionPointAfter(producer);
        else
          builder.setInsertionPointToStart(operand.getParentBlock());
        if (stored && tile.getElementType() != stored) {
          auto narrow = TileType::get(context, tile.getShape(), stored,
                                      tile.getEncoding());
          operand = CastOp::create(builder, dot.getLoc(), narrow, operand);
          tile = narrow;
        }
        // Which axis is contiguous in shared memory:
        //  FMA: A transposed (M contiguous), B row-major (N contiguous), so
        //       a thread's rows of a k-slice are vectors;
        //  mma.sync: both K contiguous, as the fragments are.
        bool isA = index == 0;
        bool kContiguous;
        if (mma)
          kContiguous = true;
        else
          kContiguous = false;
        // Axis holding K: A [M, K] -> 1; B [K, N] -> 0; B^T [N, K] -> 1.
        unsigned kAxis = isA ? 1 : (dot.getTransposeB() ? 1 : 0);
        unsigned fastest = kContiguous ? kAxis : 1 - kAxis;
        unsigned bytes = getElementBytes(tile.getElementType());
        auto layout = SharedLayoutAttr::get(context, {fastest, 1 - fastest},
                                            /*padding=*/16 / bytes);
        auto type = SharedMemoryType::get(context, tile.getShape(),
                                          tile.getElementType(), layout);
        auto alloc = LocalAllocOp::create(builder, dot.getLoc(), type, operand,
                                          /*offset=*/nullptr);
        dot->setOperand(index, alloc);
        ++numPromoted;
      }
    });
  }
};
} // namespace
