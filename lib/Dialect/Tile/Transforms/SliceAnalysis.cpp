//===- SliceAnalysis.cpp - Facts about slice accesses ---------------------===//

#include "SliceAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace phobos::tile;

/// The source names of a tensor argument's dims.
static SmallVector<std::string, 4> namesOf(Value tensor) {
  SmallVector<std::string, 4> names;
  auto arg = dyn_cast<BlockArgument>(tensor);
  auto kernel = arg ? dyn_cast<KernelOp>(arg.getOwner()->getParentOp()) : nullptr;
  auto type = cast<GlobalTensorType>(tensor.getType());
  SmallVector<StringRef> found;
  if (kernel)
    found = kernel.getArgDimNames(arg.getArgNumber());
  for (int64_t axis = 0; axis < type.getRank(); ++axis)
    names.push_back(axis < static_cast<int64_t>(found.size())
                        ? found[axis].str()
                        : std::string());
  return names;
}

std::string phobos::tile::dimName(DimOp dim) {
  SmallVector<std::string, 4> names = namesOf(dim.getTensor());
  return names[dim.getIndex()];
}

std::optional<SliceAccess> SliceAccess::get(Operation *op) {
  SliceAccess access;
  access.op = op;
  ArrayRef<int64_t> pointAxes;
  TileType tile;
  std::optional<ArrayRef<bool>> inBounds;
  Value tensor;
  if (auto load = dyn_cast<LoadOp>(op)) {
    tensor = load.getTensor();
    tile = load.getType();
    pointAxes = load.getPointAxes();
    inBounds = load.getInBounds();
    access.offsets.assign(load.getOffsets().begin(), load.getOffsets().end());
  } else if (auto store = dyn_cast<StoreOp>(op)) {
    tensor = store.getTensor();
    tile = store.getValue().getType();
    pointAxes = store.getPointAxes();
    inBounds = store.getInBounds();
    access.offsets.assign(store.getOffsets().begin(), store.getOffsets().end());
  } else {
    return std::nullopt;
  }
  access.tensor = cast<GlobalTensorType>(tensor.getType());
  access.dimNames = namesOf(tensor);
  for (int64_t axis = 0, t = 0; axis < access.tensor.getRank(); ++axis) {
    bool point = llvm::is_contained(pointAxes, axis);
    access.extents.push_back(point ? 1 : tile.getDimSize(t++));
    access.inBounds.push_back(inBounds && (*inBounds)[axis]);
  }
  return access;
}

void SliceAccess::store() const {
  auto attr = DenseBoolArrayAttr::get(op->getContext(), inBounds);
  if (auto load = dyn_cast<LoadOp>(op))
    load.setInBoundsAttr(attr);
  else
    cast<StoreOp>(op).setInBoundsAttr(attr);
}

llvm::StringMap<int64_t> phobos::tile::alignedDims(KernelOp kernel) {
  llvm::StringMap<int64_t> aligned;
  if (DictionaryAttr promises = kernel.getAlignedAttr())
    for (NamedAttribute promise : promises)
      aligned[promise.getName()] =
          cast<IntegerAttr>(promise.getValue()).getInt();
  return aligned;
}

/// Whether `value` is `iv + arange(E)` (either order) with E <= `step`, or
/// that reshaped to a column [E, 1] (a block of rows).
static bool isColumnsOf(Value value, Value iv, int64_t step) {
  if (auto reshape = value.getDefiningOp<ReshapeOp>()) {
    ArrayRef<int64_t> shape = reshape.getType().getShape();
    if (shape.size() != 2 || shape[1] != 1)
      return false;
    value = reshape.getSource();
  }
  auto add = value.getDefiningOp<AddOp>();
  if (!add)
    return false;
  Value lhs = add.getLhs(), rhs = add.getRhs();
  if (rhs == iv)
    std::swap(lhs, rhs);
  auto range = rhs.getDefiningOp<ArangeOp>();
  return lhs == iv && range &&
         cast<TileType>(range.getType()).getDimSize(0) <= step;
}

unsigned phobos::tile::foldBoundChecks(scf::ForOp loop, Value bound,
                                       int64_t step) {
  Value iv = loop.getInductionVar();
  SmallVector<CmpOp> checks;
  for (Operation &op : *loop.getBody())
    if (auto cmp = dyn_cast<CmpOp>(op))
      if ((cmp.getPredicate() == CmpPredicate::lt && cmp.getRhs() == bound &&
           isColumnsOf(cmp.getLhs(), iv, step)) ||
          (cmp.getPredicate() == CmpPredicate::gt && cmp.getLhs() == bound &&
           isColumnsOf(cmp.getRhs(), iv, step)))
        checks.push_back(cmp);
  for (CmpOp cmp : checks) {
    // A `where` whose first value already has the result's type becomes
    // that value; any other use (an `and`, a narrower `where`) gets a tile
    // of true, which the canonicalizer folds.
    for (OpOperand &use : llvm::make_early_inc_range(cmp->getUses())) {
      auto select = dyn_cast<SelectOp>(use.getOwner());
      if (!select || use.getOperandNumber() != 0 ||
          select.getTrueValue().getType() != select.getType())
        continue;
      select.replaceAllUsesWith(select.getTrueValue());
      select.erase();
    }
    if (!cmp->use_empty()) {
      OpBuilder builder(cmp);
      Value always = arith::ConstantIntOp::create(builder, cmp.getLoc(), 1, 1);
      cmp.replaceAllUsesWith(
          FillOp::create(builder, cmp.getLoc(), cmp.getType(), always)
              .getResult());
    }
    cmp.erase();
  }
  return checks.size();
}
