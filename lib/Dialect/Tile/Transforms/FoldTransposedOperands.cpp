//===- FoldTransposedOperands.cpp - wgmma reads a transposed A as it is ---===//
//
// A backward pass multiplies by the transpose of a product it just
// computed: dQ += dS K, where the dK/dV kernel holds dS^T (keys by queries)
// in the accumulator layout. Written `dot(transpose(dst), kt)`, tile-
// promote-shared stages the transpose, so the tile goes through shared
// memory twice: once to transpose it between threads (2-byte stores), once
// into the swizzled buffer wgmma reads K-major. wgmma can read a 16-bit A
// M-major instead (its A descriptor in the MN-major form, imm-trans-a), so
// this pass stages the untransposed tile, [K, M] with M contiguous, and
// marks the dot `transpose_a`: one trip, 4-byte stores of the accumulator
// layout's pairs, and no transpose. FlashAttention-2 and 3 store dS once to
// shared memory for the same reason.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEFOLDTRANSPOSEDOPERANDS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {
struct TileFoldTransposedOperands
    : phobos::tile::impl::TileFoldTransposedOperandsBase<
          TileFoldTransposedOperands> {
  using TileFoldTransposedOperandsBase::TileFoldTransposedOperandsBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    OpBuilder builder(context);
    getOperation().walk([&](DotOp dot) {
      if (dot.getKind() != DotKind::wgmma || dot.getSwapAb() ||
          dot.getTransposeA())
        return;
      auto alloc = dot.getA().getDefiningOp<LocalAllocOp>();
      auto transpose =
          alloc ? alloc.getSource().getDefiningOp<TransposeOp>() : nullptr;
      if (!transpose)
        return;
      // [K, M] in registers, 16-bit, as the dot reads it (no rounding
      // between); whole 128-byte atoms along M (one per 64 rows of a
      // warpgroup) and 16-row k-steps.
      auto source = cast<TileType>(transpose.getOperand().getType());
      Type element = source.getElementType();
      ArrayRef<int64_t> shape = source.getShape();
      if (element != alloc.getType().getElementType() ||
          getElementBytes(element) != 2 || shape[1] % 64 != 0 ||
          shape[0] % 16 != 0)
        return;
      auto type = SharedMemoryType::get(
          context, shape, element,
          getWgmmaSharedLayout(context, shape, /*fastest=*/1, element));
      builder.setInsertionPoint(alloc);
      auto staged = LocalAllocOp::create(builder, alloc.getLoc(), type,
                                         transpose.getOperand(),
                                         /*offset=*/nullptr);
      dot.getAMutable().assign(staged);
      dot.setTransposeA(true);
      if (alloc->use_empty())
        alloc->erase();
      if (transpose->use_empty())
        transpose->erase();
      ++numFolded;
    });
  }
};
} // namespace
