//===- Staging.cpp - How a tile can reach its shared-memory buffer --------===//

#include "Staging.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

using namespace mlir;
using namespace phobos::tile;

int64_t phobos::tile::copyBytes(LoadOp load, LocalAllocOp alloc) {
  TileType tile = load.getType();
  auto layout =
      dyn_cast_or_null<DistributedLayoutInterface>(tile.getEncoding());
  if (!layout)
    return 0;
  int64_t bytes = getElementBytes(tile.getElementType());
  if (tile.getElementType().isInteger(1))
    return 0;
  // The tile axis along the tensor's last axis (none when it is a point).
  int64_t tensorRank = load.getTensor().getType().getRank();
  if (llvm::is_contained(load.getPointAxes(), tensorRank - 1))
    return bytes;
  int64_t tileAxis = tile.getRank() - 1;
  SharedMemoryType buffer = alloc.getType();
  auto shared = cast<SharedLayoutAttr>(buffer.getLayout());
  unsigned fast = shared.getOrder().front();
  if (fast != tileAxis)
    return bytes;
  DistributedLayout dist = layout.distribute(tile.getShape());
  return dist.vectorWidth(fast, bytes,
                          shared.getVectorUnit(buffer.getShape())) *
         bytes;
}

int64_t phobos::tile::registerCopyBytes(LoadOp load, LocalAllocOp alloc) {
  TileType tile = load.getType();
  auto layout =
      dyn_cast_or_null<DistributedLayoutInterface>(tile.getEncoding());
  int64_t tensorRank = load.getTensor().getType().getRank();
  if (!layout || tile.getElementType().isInteger(1) || tile.getRank() != 2 ||
      llvm::is_contained(load.getPointAxes(), tensorRank - 1))
    return 0;
  int64_t bytes = getElementBytes(tile.getElementType());
  SharedMemoryType buffer = alloc.getType();
  auto shared = cast<SharedLayoutAttr>(buffer.getLayout());
  DistributedLayout dist = layout.distribute(tile.getShape());
  int64_t loads = dist.vectorWidth(tile.getRank() - 1, bytes);
  int64_t stores = dist.vectorWidth(shared.getOrder().front(), bytes,
                                    shared.getVectorUnit(buffer.getShape()));
  return std::min(loads, stores) * bytes;
}

bool phobos::tile::canCopyThroughTma(LoadOp load, SharedMemoryType type,
                                     KernelOp kernel,
                                     const llvm::StringMap<int64_t> &aligned) {
  auto layout = dyn_cast<SharedLayoutAttr>(type.getLayout());
  GlobalTensorType tensor = load.getTensor().getType();
  auto argument = dyn_cast<BlockArgument>(load.getTensor());
  int64_t rank = tensor.getRank();
  bool planes = rank == 3 && load.getPointAxes() == ArrayRef<int64_t>{0};
  if (!layout || !layout.getAtom() || type.getShape().size() != 2 ||
      !(rank == 2 ? load.getPointAxes().empty() : planes) || !argument ||
      argument.getOwner()->getParentOp() != kernel.getOperation())
    return false;
  if (layout.getOrder().front() != 1 || type.getShape()[0] > 256 ||
      type.getShape()[1] % layout.getAtom() != 0)
    return false;
  int64_t bytes = getElementBytes(tensor.getElementType());
  int64_t rowMultiple = tensor.getDimSize(rank - 1);
  if (tensor.isDynamicDim(rank - 1)) {
    rowMultiple = 1;
    auto names = kernel.getArgAttrOfType<ArrayAttr>(argument.getArgNumber(),
                                                    KernelOp::kDimsAttrName);
    auto name = names && int64_t(names.size()) == rank
                    ? dyn_cast<StringAttr>(names[rank - 1])
                    : StringAttr();
    auto promise = name ? aligned.find(name.getValue()) : aligned.end();
    if (promise != aligned.end() && promise->second > 0)
      rowMultiple = promise->second;
  }
  return (rowMultiple * bytes) % 16 == 0;
}
