//===- LaunchContract.cpp - What a launch of a kernel must agree to -------===//

#include "Phobos/Target/LaunchContract.h"
#include "Phobos/Dialect/Tile/IR/ElementTypes.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace phobos;

/// Matches `block_id(axis)` or `block_id(axis) * constant` (either order):
/// the axis and the multiplier.
static std::optional<std::pair<int, int64_t>> matchBlockOffset(mlir::Value v) {
  if (auto id = v.getDefiningOp<tile::BlockIdOp>())
    return std::make_pair(static_cast<int>(id.getAxis()), int64_t(1));
  auto mul = v.getDefiningOp<mlir::arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    auto id = mul->getOperand(side).getDefiningOp<tile::BlockIdOp>();
    llvm::APInt factor;
    if (id && mlir::matchPattern(mul->getOperand(1 - side),
                                 mlir::m_ConstantInt(&factor)) &&
        factor.getSExtValue() > 0)
      return std::make_pair(static_cast<int>(id.getAxis()),
                            factor.getSExtValue());
  }
  return std::nullopt;
}

LaunchContract phobos::buildLaunchContract(tile::KernelOp kernel) {
  LaunchContract contract;
  contract.kernel = kernel.getSymName().str();
  if (mlir::DictionaryAttr variant = kernel.getVariantAttr()) {
    // In the order of the @autotune space, which is the source order.
    if (mlir::ArrayAttr space = kernel.getAutotuneAttr())
      for (auto dim : space.getAsRange<tile::TuneDimAttr>())
        if (auto value = variant.getAs<mlir::IntegerAttr>(dim.getName()))
          contract.variant.emplace_back(dim.getName().str(), value.getInt());
  }
  contract.ctaThreads = kernel.getCtaSize();
  if (mlir::DictionaryAttr aligned = kernel.getAlignedAttr())
    for (mlir::NamedAttribute promise : aligned)
      contract.aligned.emplace_back(
          promise.getName().str(),
          llvm::cast<mlir::IntegerAttr>(promise.getValue()).getInt());

  mlir::Block &entry = kernel.getBody().front();
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    ParamSlot slot;
    slot.name = kernel.getArgName(index);
    if (auto tensor = llvm::dyn_cast<tile::GlobalTensorType>(type)) {
      slot.kind = ParamSlot::Kind::Tensor;
      slot.element = *tile::getElementType(tensor.getElementType());
      llvm::SmallVector<llvm::StringRef> names = kernel.getArgDimNames(index);
      for (int64_t axis = 0; axis < tensor.getRank(); ++axis) {
        slot.dims.push_back(axis < static_cast<int64_t>(names.size())
                                ? names[axis].str()
                                : slot.name + "." + std::to_string(axis));
        slot.staticShape.push_back(
            tensor.isDynamicDim(axis) ? -1 : tensor.getDimSize(axis));
      }
    } else {
      slot.kind = ParamSlot::Kind::Scalar;
      slot.element = *tile::getElementType(type);
    }
    contract.params.push_back(std::move(slot));
  }

  auto argIndex = [&](mlir::Value tensor) -> int {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(tensor);
    return arg && arg.getOwner() == &entry ? static_cast<int>(arg.getArgNumber())
                                           : -1;
  };
  auto addTerm = [&](int axis, const std::string &dim, int64_t divisor) {
    for (const GridTerm &term : contract.grid[axis].terms)
      if (term.dim == dim && term.divisor == divisor)
        return;
    contract.grid[axis].terms.push_back({dim, divisor});
  };
  auto visitOffsets = [&](mlir::Value tensor, mlir::ValueRange offsets) {
    int index = argIndex(tensor);
    if (index < 0)
      return;
    for (auto [axis, offset] : llvm::enumerate(offsets))
      if (auto match = matchBlockOffset(offset))
        addTerm(match->first, contract.params[index].dims[axis], match->second);
  };
  bool usesAxis[3] = {false, false, false};
  kernel.walk([&](mlir::Operation *op) {
    if (auto load = llvm::dyn_cast<tile::LoadOp>(op)) {
      if (int index = argIndex(load.getTensor()); index >= 0)
        contract.params[index].read = true;
      visitOffsets(load.getTensor(), load.getOffsets());
    } else if (auto store = llvm::dyn_cast<tile::StoreOp>(op)) {
      if (int index = argIndex(store.getTensor()); index >= 0)
        contract.params[index].written = true;
      visitOffsets(store.getTensor(), store.getOffsets());
    } else if (auto load = llvm::dyn_cast<tile::LoadScalarOp>(op)) {
      if (int index = argIndex(load.getTensor()); index >= 0)
        contract.params[index].read = true;
      visitOffsets(load.getTensor(), load.getIndices());
    } else if (auto store = llvm::dyn_cast<tile::StoreScalarOp>(op)) {
      if (int index = argIndex(store.getTensor()); index >= 0)
        contract.params[index].written = true;
      visitOffsets(store.getTensor(), store.getIndices());
    } else if (auto atomic = llvm::dyn_cast<tile::AtomicAddOp>(op)) {
      if (int index = argIndex(atomic.getTensor()); index >= 0)
        contract.params[index].read = contract.params[index].written = true;
      visitOffsets(atomic.getTensor(), atomic.getOffsets());
    } else if (auto id = llvm::dyn_cast<tile::BlockIdOp>(op)) {
      usesAxis[static_cast<int>(id.getAxis())] = true;
    }
  });
  for (int axis = 0; axis < 3; ++axis)
    contract.grid[axis].needsExplicitGrid =
        usesAxis[axis] && contract.grid[axis].terms.empty();
  return contract;
}

bool phobos::usesReducedPrecision(tile::KernelOp kernel) {
  bool reduced = false;
  kernel.walk([&](tile::DotOp dot) {
    reduced |= dot.getPrecision() != tile::DotPrecision::ieee;
    mlir::Type element = mlir::getElementTypeOrSelf(dot.getA().getType());
    reduced |= element.isF16() || element.isBF16();
  });
  for (mlir::Type type : kernel.getArgumentTypes())
    if (auto tensor = llvm::dyn_cast<tile::GlobalTensorType>(type))
      reduced |= tensor.getElementType().isF16() ||
                 tensor.getElementType().isBF16();
  return reduced;
}
