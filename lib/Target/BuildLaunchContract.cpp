//===- BuildLaunchContract.cpp - A launch contract from a kernel ----------===//

#include "Phobos/Target/BuildLaunchContract.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/IR/ElementTypes.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace phobos;

LaunchContract phobos::buildLaunchContract(tile::KernelOp kernel,
                                           llvm::StringRef chip) {
  LaunchContract contract;
  contract.kernel = kernel.getSymName().str();
  if (mlir::DictionaryAttr variant = kernel.getVariantAttr()) {
    // In the order of the @autotune space, which is the source order.
    if (mlir::ArrayAttr space = kernel.getAutotuneAttr())
      for (auto dim : space.getAsRange<tile::TuneDimAttr>())
        if (auto value = variant.getAs<mlir::IntegerAttr>(dim.getName()))
          contract.variant.emplace_back(dim.getName().str(), value.getInt());
  }
  contract.ctaThreads = tile::getCompiledCtaSize(kernel, chip);
  if (mlir::DictionaryAttr aligned = kernel.getAlignedAttr())
    for (mlir::NamedAttribute promise : aligned)
      contract.aligned.emplace_back(
          promise.getName().str(),
          llvm::cast<mlir::IntegerAttr>(promise.getValue()).getInt());
  for (const auto &[dim, multiple] : contract.aligned)
    if (mlir::LocationAttr place = kernel.getAlignedPromiseLoc(dim))
      if (auto file = mlir::Location(place)->findInstanceOf<mlir::FileLineColLoc>())
        contract.alignedAt.emplace_back(
            dim, (file.getFilename().strref() + ":" + llvm::Twine(file.getLine()) +
                  ":" + llvm::Twine(file.getColumn()))
                     .str());

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

  std::array<llvm::SmallVector<tile::KernelOp::GridTerm>, 3> terms;
  std::array<bool, 3> axisUsed;
  kernel.getGridTerms(terms, axisUsed);
  for (int axis = 0; axis < 3; ++axis) {
    for (const tile::KernelOp::GridTerm &term : terms[axis])
      contract.grid[axis].terms.push_back(
          {contract.params[term.argument].dims[term.tensorAxis], term.divisor});
    contract.grid[axis].needsExplicitGrid =
        axisUsed[axis] && contract.grid[axis].terms.empty();
  }
  // Which tensors the kernel reads and writes.
  mlir::Block &entry = kernel.getBody().front();
  auto argIndex = [&](mlir::Value tensor) -> int {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(tensor);
    return arg && arg.getOwner() == &entry ? static_cast<int>(arg.getArgNumber())
                                           : -1;
  };
  auto mark = [&](mlir::Value tensor, bool read, bool written) {
    if (int index = argIndex(tensor); index >= 0) {
      contract.params[index].read |= read;
      contract.params[index].written |= written;
    }
  };
  kernel.walk([&](mlir::Operation *op) {
    if (auto load = llvm::dyn_cast<tile::LoadOp>(op))
      mark(load.getTensor(), true, false);
    else if (auto store = llvm::dyn_cast<tile::StoreOp>(op))
      mark(store.getTensor(), false, true);
    else if (auto load = llvm::dyn_cast<tile::LoadScalarOp>(op))
      mark(load.getTensor(), true, false);
    else if (auto store = llvm::dyn_cast<tile::StoreScalarOp>(op))
      mark(store.getTensor(), false, true);
    else if (auto atomic = llvm::dyn_cast<tile::AtomicAddOp>(op))
      mark(atomic.getTensor(), true, true);
  });
  // A @persistent kernel, rewritten by tile-persistent or not: its launch
  // takes only the tile grid, on the interpreter as on the GPU (a compiled
  // kernel's contract takes the flag from the lowering).
  contract.persistent = kernel.getPersistent() || walksTiles(kernel);
  return contract;
}

bool phobos::walksTiles(tile::KernelOp kernel) {
  return kernel.walk([](tile::TileCoordOp) { return mlir::WalkResult::interrupt(); })
      .wasInterrupted();
}

std::array<int64_t, 3> phobos::interpreterGrid(tile::KernelOp kernel,
                                               std::array<int64_t, 3> grid) {
  if (!walksTiles(kernel))
    return grid;
  return {std::min<int64_t>(grid[0] * grid[1] * grid[2], 3), 1, 1};
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
