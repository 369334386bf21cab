//===- GuardRescale.cpp - Skip an online softmax's rescale by one ---------===//
//
// Marks `corr * acc` where corr = exp(m - tmax(m, x)) is an f32 [R, 1]
// factor and acc an [R, C] tile inside a loop: the lowering multiplies only
// where a thread's factors are not all exactly 1 (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEGUARDRESCALE
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

/// Whether `value` is exp(m - tmax(m, x)) (or tmax(x, m)): at most 1, and
/// exactly 1 when the running maximum m did not grow.
static bool isMaxCorrection(Value value) {
  auto exp = value.getDefiningOp<ExpOp>();
  auto sub = exp ? exp.getOperand().getDefiningOp<SubOp>() : SubOp();
  auto max = sub ? sub.getRhs().getDefiningOp<MaxOp>() : MaxOp();
  return max && (max.getLhs() == sub.getLhs() || max.getRhs() == sub.getLhs());
}

/// An f32 [R, 1] tile next to an [R, C] tile with C > 1.
static bool isRowFactorOf(Value factor, Value tile) {
  auto factorType = dyn_cast<TileType>(factor.getType());
  auto tileType = dyn_cast<TileType>(tile.getType());
  return factorType && tileType && factorType.getRank() == 2 &&
         tileType.getRank() == 2 && factorType.getElementType().isF32() &&
         factorType.getDimSize(1) == 1 && tileType.getDimSize(1) > 1 &&
         factorType.getDimSize(0) == tileType.getDimSize(0);
}

namespace {
struct TileGuardRescale
    : phobos::tile::impl::TileGuardRescaleBase<TileGuardRescale> {
  using TileGuardRescaleBase::TileGuardRescaleBase;

  void runOnOperation() override {
    getOperation().walk([&](MulOp mul) {
      if (!mul->getParentOfType<scf::ForOp>())
        return;
      for (auto [factor, tile] : {std::pair(mul.getLhs(), mul.getRhs()),
                                  std::pair(mul.getRhs(), mul.getLhs())}) {
        if (isRowFactorOf(factor, tile) && isMaxCorrection(factor)) {
          mul->setAttr(MulOp::kSkipUnitFactorAttrName,
                       UnitAttr::get(mul.getContext()));
          ++numGuarded;
          return;
        }
      }
    });
  }
};
} // namespace
