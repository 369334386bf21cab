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
