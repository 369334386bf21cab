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
    // A tile staged once serves every dot that reads it the same way.
    DenseMap<std::pair<Value, Type>, Value> staged;
    getOperation().walk([&](DotOp dot) {
      bool wgmma = dot.getKind() == DotKind::wgmma;
      bool mma = dot.getKind() == DotKind::mma_sync || wgmma;
      // The element type the dot's tensor-core instructions read.
      Type stored;
      if (mma && dot.getPrecision() == DotPrecision::f16)
        stored = Float16Type::get(context);
      else if (mma && dot.getPrecision() == DotPrecision::bf16)
        stored = BFloat16Type::get(context);
      for (unsigned index = 0; index < 2; ++index) {
        Value source = dot->getOperand(index);
        auto tile = dyn_cast<TileType>(source.getType());
        if (!tile)
          continue;
        Type element = stored ? stored : tile.getElementType();
        // A wgmma reads a 16-bit A in its accumulator layout from the
        // registers (rounded there when the dot says so).
        TileType inRegisters = TileType::get(context, tile.getShape(), element,
                                             tile.getEncoding());
        if (index == 0 && isWgmmaRegisterOperand(dot, inRegisters)) {
          if (element != tile.getElementType()) {
            if (Operation *producer = source.getDefiningOp())
              builder.setInsertionPointAfter(producer);
            else
              builder.setInsertionPointToStart(source.getParentBlock());
            dot->setOperand(index, CastOp::create(builder, dot.getLoc(),
                                                  inRegisters, source));
          }
          ++numInRegisters;
          continue;
        }
        // The contiguous axis in shared memory. FMA: A transposed (M
        // contiguous) and B row-major (N contiguous), so that a thread's
        // rows of a k-slice are vectors; mma.sync: K contiguous, as the
        // fragments are (but see below). K is axis 1 of A [M, K], axis 0 of
        // B [K, N] and axis 1 of B^T [N, K].
        bool isA = index == 0;
        unsigned kAxis = isA ? 1 : (dot.getTransposeB() ? 1 : 0);
        unsigned fastest = mma ? kAxis : 1 - kAxis;
        // mma.sync with 16-bit operands reads fragments with ldmatrix, which
        // transposes B on the way: B keeps its rows (N contiguous), so that
        // it is written with 16-byte stores.
        if (mma && !isA && !dot.getTransposeB() && getElementBytes(element) == 2)
          fastest = 1;
        auto layout = SharedLayoutAttr::get(context, {fastest, 1 - fastest},
                                            /*padding=*/16 / getElementBytes(element));
        // wgmma reads its operands in the hardware's swizzled atoms: A and
        // B^T K-major, a 16-bit B N-major (axis 1 contiguous), a tf32 B
        // K-major (axis 0: wgmma reads tf32 only K-major) unless the dot
        // swaps its operands (swap_ab: B stays N-major, as TMA copies it,
        // and its fragments go through registers).
        if (wgmma)
          layout = getWgmmaSharedLayout(
              context, tile.getShape(),
              !isA && !dot.getTransposeB() && getElementBytes(element) == 4 &&
                      !dot.getSwapAb()
                  ? 0
                  : 1,
              element);
        auto type = SharedMemoryType::get(context, tile.getShape(), element, layout);
        if (Value existing = staged.lookup({source, type})) {
          dot->setOperand(index, existing);
          continue;
        }
        // An operand defined outside the dot's loops (q in attention, a
        // hoisted load) is staged once, where it is defined, not on every
        // iteration.
        if (Operation *producer = source.getDefiningOp())
          builder.setInsertionPointAfter(producer);
        else
          builder.setInsertionPointToStart(source.getParentBlock());
        Value operand = source;
        if (element != tile.getElementType())
          operand = CastOp::create(
              builder, dot.getLoc(),
              TileType::get(context, tile.getShape(), element, tile.getEncoding()),
              operand);
        auto alloc = LocalAllocOp::create(builder, dot.getLoc(), type, operand,
                                          /*offset=*/nullptr);
        staged[{source, type}] = alloc;
        dot->setOperand(index, alloc);
        ++numPromoted;
      }
    });
  }
};
} // namespace
