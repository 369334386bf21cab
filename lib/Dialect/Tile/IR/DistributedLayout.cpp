//===- DistributedLayout.cpp - What each register layout means ------------===//
//
// The per-axis distributions of the blocked, mma and slice layouts (their
// DistributedLayoutInterface methods) and the queries every layout shares.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace phobos::tile;

#include "Phobos/Dialect/Tile/IR/TileAttrInterfaces.cpp.inc"

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

//===----------------------------------------------------------------------===//
// The layouts
//===----------------------------------------------------------------------===//

unsigned BlockedLayoutAttr::getRank() const { return getOrder().size(); }

/// Walking the axes in `order`, lanes and warps fill the faster axes first:
/// an axis's lane (warp) digit is `lane / L % threadsPerWarp[a]`, `L` the
/// product of threadsPerWarp over the axes walked before it.
SmallVector<AxisDistribution, 4>
BlockedLayoutAttr::getAxisDistributions(ArrayRef<int64_t> shape) const {
  ArrayRef<unsigned> spt = getSizePerThread();
  ArrayRef<unsigned> tpw = getThreadsPerWarp();
  ArrayRef<unsigned> wpc = getWarpsPerCTA();
  SmallVector<AxisDistribution, 4> axes(shape.size());
  int64_t laneStride = 1, warpStride = 1;
  for (unsigned axisIndex : getOrder()) {
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
  return axes;
}

unsigned MmaLayoutAttr::getRank() const { return 2; }

/// One axis of an mma.sync accumulator, as the warps tile it: fragments
/// `fragment` elements long, `warps` warps side by side along the axis (a
/// warp's digit `warp / warpDiv % warps`), each owning a run of `outer`
/// fragments; a thread holds 2 elements of a fragment. The lane fields are
/// the caller's.
static AxisDistribution mmaAccumulatorAxis(int64_t extent, int64_t fragment,
                                           int64_t warps, int64_t warpDiv) {
  AxisDistribution axis;
  axis.extent = extent;
  axis.outer = std::max<int64_t>(1, ceilDiv(extent, fragment * warps));
  axis.inner = 2;
  axis.outerStep = fragment;
  axis.warpDiv = warpDiv;
  axis.warpMod = warps;
  axis.warpScale = fragment * axis.outer;
  return axis;
}

/// The accumulator of mma.sync m16n8: a warp owns a block of
/// `outer_r x outer_c` 16x8 fragments; in a fragment lane `l` holds rows
/// `l / 4` and `l / 4 + 8`, columns `2 (l % 4)` and `2 (l % 4) + 1`.
SmallVector<AxisDistribution, 4>
MmaLayoutAttr::getAxisDistributions(ArrayRef<int64_t> shape) const {
  int64_t wm = getWarpsPerCTA()[0], wn = getWarpsPerCTA()[1];
  AxisDistribution rows = mmaAccumulatorAxis(shape[0], 16, wm, /*warpDiv=*/wn);
  rows.innerStep = 8;
  rows.laneDiv = 4;
  rows.laneMod = 8;
  rows.laneScale = 1;
  AxisDistribution cols = mmaAccumulatorAxis(shape[1], 8, wn, /*warpDiv=*/1);
  cols.innerStep = 1;
  cols.laneDiv = 1;
  cols.laneMod = 4;
  cols.laneScale = 2;
  return {rows, cols};
}

unsigned SliceLayoutAttr::getRank() const {
  auto parent = dyn_cast<DistributedLayoutInterface>(getParent());
  return parent ? parent.getRank() - 1 : 0;
}

/// The parent's distribution over the shape with an extent-1 axis inserted
/// at `dim`, that axis then dropped: the threads the parent spreads along
/// `dim` hold copies.
SmallVector<AxisDistribution, 4>
SliceLayoutAttr::getAxisDistributions(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t, 4> parentShape(shape.begin(), shape.end());
  parentShape.insert(parentShape.begin() + getDim(), 1);
  SmallVector<AxisDistribution, 4> axes =
      cast<DistributedLayoutInterface>(getParent())
          .getAxisDistributions(parentShape);
  axes.erase(axes.begin() + getDim());
  return axes;
}

//===----------------------------------------------------------------------===//
// DistributedLayout
//===----------------------------------------------------------------------===//

DistributedLayout::DistributedLayout(ArrayRef<int64_t> shape,
                                     SmallVector<AxisDistribution, 4> axes)
    : shape(shape.begin(), shape.end()), axes(std::move(axes)) {
  for (AxisDistribution &axis : this->axes) {
    // An axis of extent 1 holds one element: every register a layout's
    // sizes give it would be a copy of that one. A thread keeps one, so
    // that a loop carrying a [R, 1] tile (attention's running max and sum)
    // does not carry the copies as well, which LLVM cannot merge there.
    if (axis.extent == 1)
      axis.inner = axis.outer = 1;
    axis.wraps = axis.maxRaw() >= axis.extent;
    registers *= axis.registers();
  }
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

SmallVector<int64_t, 4> DistributedLayout::elementOf(int64_t warp, int64_t lane,
                                                     int64_t reg,
                                                     bool *canonical) const {
  SmallVector<int64_t, 4> q = perAxisIndices(reg);
  SmallVector<int64_t, 4> coords;
  bool inside = true;
  for (size_t a = 0; a < axes.size(); ++a) {
    int64_t raw = axes[a].threadOffset(warp, lane) + axes[a].constOffset(q[a]);
    inside &= raw < axes[a].extent;
    coords.push_back(raw % axes[a].extent);
  }
  if (canonical)
    *canonical = inside;
  return coords;
}

SmallVector<RegisterOwner>
DistributedLayout::owners(ArrayRef<int64_t> coords, int64_t numWarps) const {
  // Per axis, which register indices of a thread whose thread part is
  // `base` hold the coordinate: base + constOffset(q) = coord (mod extent).
  SmallVector<RegisterOwner> result;
  size_t rank = axes.size();
  for (int64_t warp = 0; warp < numWarps; ++warp)
    for (int64_t lane = 0; lane < 32; ++lane) {
      SmallVector<SmallVector<std::pair<int64_t, bool>, 4>, 4> matches(rank);
      bool any = true;
      for (size_t a = 0; a < rank && any; ++a) {
        const AxisDistribution &axis = axes[a];
        int64_t base = axis.threadOffset(warp, lane);
        for (int64_t q = 0; q < axis.registers(); ++q) {
          int64_t raw = base + axis.constOffset(q);
          if (raw % axis.extent == coords[a])
            matches[a].push_back({q, raw < axis.extent});
        }
        any = !matches[a].empty();
      }
      if (!any)
        continue;
      // Every combination of the per-axis matches is one register.
      SmallVector<size_t, 4> pick(rank, 0);
      while (true) {
        SmallVector<int64_t, 4> q(rank);
        bool canonical = true;
        for (size_t a = 0; a < rank; ++a) {
          q[a] = matches[a][pick[a]].first;
          canonical &= matches[a][pick[a]].second;
        }
        result.push_back({warp, lane, registerIndex(q), canonical});
        size_t a = rank;
        while (a > 0 && ++pick[a - 1] == matches[a - 1].size())
          pick[--a] = 0;
        if (a == 0)
          break;
      }
      // Registers of one thread in increasing order.
      auto first = result.end() - 1;
      while (first != result.begin() && (first - 1)->warp == warp &&
             (first - 1)->lane == lane)
        --first;
      std::sort(first, result.end(),
                [](const RegisterOwner &x, const RegisterOwner &y) {
                  return x.reg < y.reg;
                });
    }
  return result;
}

int64_t DistributedLayout::vectorWidth(unsigned axisIndex, int64_t elementBytes,
                                       int64_t rowLength) const {
  const AxisDistribution &axis = axes[axisIndex];
  if (elementBytes <= 0 || axis.wraps || axis.innerStep != 1)
    return 1;
  int64_t width = std::min<int64_t>(axis.inner, 16 / elementBytes);
  while (width > 1 && (axis.inner % width || (rowLength && rowLength % width)))
    width /= 2;
  return std::max<int64_t>(width, 1);
}
