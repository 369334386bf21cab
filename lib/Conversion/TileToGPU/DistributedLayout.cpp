//===- DistributedLayout.cpp - Who holds which element, per axis ----------===//

#include "DistributedLayout.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace phobos::tile;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The per-axis distributions of `layout` over `shape`.
static SmallVector<AxisDistribution, 4>
distribute(Attribute layout, ArrayRef<int64_t> shape, unsigned numWarps) {
  SmallVector<AxisDistribution, 4> axes(shape.size());
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(layout)) {
    ArrayRef<unsigned> spt = blocked.getSizePerThread();
    ArrayRef<unsigned> tpw = blocked.getThreadsPerWarp();
    ArrayRef<unsigned> wpc = blocked.getWarpsPerCTA();
    int64_t laneStride = 1, warpStride = 1;
    for (unsigned axisIndex : blocked.getOrder()) {
      AxisDistribution &axis = axes[axisIndex];
      int64_t footprint = int64_t(spt[axisIndex]) * tpw[axisIndex] * wpc[axisIndex];
      axis.extent = shape[axisIndex];
      axis.inner = spt[axisIndex];
      axis.innerStep = 1;
      axis.outer = ceilDiv(axis.extent, footprint);
      axis.outerStep = footprint;
      axis.laneDiv = laneStride;
      axis.laneMod = tpw[axisIndex];
      axis.laneScale = spt[axisIndex];
      axis.warpDiv = warpStride;
      axis.warpMod = wpc[axisIndex];
      axis.warpScale = int64_t(spt[axisIndex]) * tpw[axisIndex];
      laneStride *= tpw[axisIndex];
      warpStride *= wpc[axisIndex];
    }
  } else if (auto mma = dyn_cast<MmaLayoutAttr>(layout)) {
    int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
    AxisDistribution &rows = axes[0], &cols = axes[1];
    rows.extent = shape[0];
    rows.outer = std::max<int64_t>(1, ceilDiv(shape[0], 16 * wm));
    rows.inner = 2;
    rows.innerStep = 8;
    rows.outerStep = 16;
    rows.laneDiv = 4;
    rows.laneMod = 8;
    rows.laneScale = 1;
    rows.warpDiv = wn;
    rows.warpMod = wm;
    rows.warpScale = 16 * rows.outer;
    cols.extent = shape[1];
    cols.outer = std::max<int64_t>(1, ceilDiv(shape[1], 8 * wn));
    cols.inner = 2;
    cols.innerStep = 1;
    cols.outerStep = 8;
    cols.laneDiv = 1;
    cols.laneMod = 4;
    cols.laneScale = 2;
    cols.warpDiv = 1;
    cols.warpMod = wn;
    cols.warpScale = 8 * cols.outer;
  } else if (auto slice = dyn_cast<SliceLayoutAttr>(layout)) {
    SmallVector<int64_t, 4> parentShape(shape.begin(), shape.end());
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    SmallVector<AxisDistribution, 4> parent =
        distribute(slice.getParent(), parentShape, numWarps);
    parent.erase(parent.begin() + slice.getDim());
    return parent;
  } else {
    llvm::report_fatal_error("tile without a distributed layout reached the "
                             "GPU lowering");
  }
  for (AxisDistribution &axis : axes) {
    int64_t maxRaw = (axis.outer - 1) * axis.outerStep +
                     (axis.inner - 1) * axis.innerStep +
                     (axis.laneMod - 1) * axis.laneScale +
                     (axis.warpMod - 1) * axis.warpScale;
    axis.wraps = maxRaw >= axis.extent;
  }
  return axes;
}

DistributedLayout::DistributedLayout(Attribute layout, ArrayRef<int64_t> shape,
                                     unsigned numWarps)
    : shape(shape.begin(), shape.end()),
      axes(distribute(layout, shape, numWarps)) {
  for (const AxisDistribution &axis : axes)
    registers *= axis.registers();
}

int64_t DistributedLayout::registerIndex(ArrayRef<int64_t> perAxis) const {
  int64_t index = 0;
  for (size_t a = 0; a < axes.size(); ++a)
    index = index * axes[a].outer + perAxis[a] / axes[a].inner;
  for (size_t a = 0; a < axes.size(); ++a)
    index = index * axes[a].inner + perAxis[a] % axes[a].inner;
  return index;
}

SmallVector<int64_t, 4> DistributedLayout::perAxisIndices(int64_t reg) const {
  size_t rank = axes.size();
  SmallVector<int64_t, 4> inner(rank), outer(rank);
  for (size_t a = rank; a-- > 0;) {
    inner[a] = reg % axes[a].inner;
    reg /= axes[a].inner;
  }
  for (size_t a = rank; a-- > 0;) {
    outer[a] = reg % axes[a].outer;
    reg /= axes[a].outer;
  }
  SmallVector<int64_t, 4> result(rank);
  for (size_t a = 0; a < rank; ++a)
    result[a] = outer[a] * axes[a].inner + inner[a];
  return result;
}
