//===- BankConflicts.cpp - A model of shared-memory bank conflicts --------===//

#include "Phobos/Dialect/Tile/Transforms/BankConflicts.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace phobos::tile;

namespace {
constexpr int64_t kBanks = 32;
constexpr int64_t kBankBytes = 4;
/// Registers, rows and 16-byte units the access model samples.
constexpr int64_t kSampled = 64;

/// Lanes served together: all 32 up to 4 bytes, 16 for 8, 8 for 16.
int64_t lanesPerPhase(int64_t bytes) {
  return bytes <= 4 ? 32 : bytes <= 8 ? 16 : 8;
}

/// Calls `phase(words)` with the distinct 4-byte words of each phase.
template <typename Fn>
void forEachPhase(const WarpAccess &access, Fn phase) {
  int64_t width = lanesPerPhase(access.bytes);
  int64_t lanes = access.addresses.size();
  for (int64_t first = 0; first < lanes; first += width) {
    llvm::DenseSet<int64_t> words;
    for (int64_t lane = first; lane < std::min(lanes, first + width); ++lane) {
      int64_t address = access.addresses[lane];
      if (address < 0)
        continue;
      for (int64_t word = address / kBankBytes;
           word <= (address + access.bytes - 1) / kBankBytes; ++word)
        words.insert(word);
    }
    if (!words.empty())
      phase(words);
  }
}
} // namespace

int64_t phobos::tile::countWavefronts(const WarpAccess &access) {
  int64_t total = 0;
  forEachPhase(access, [&](const llvm::DenseSet<int64_t> &words) {
    int64_t perBank[kBanks] = {};
    for (int64_t word : words)
      ++perBank[word % kBanks];
    total += *std::max_element(std::begin(perBank), std::end(perBank));
  });
  return total;
}

int64_t phobos::tile::idealWavefronts(const WarpAccess &access) {
  int64_t total = 0;
  forEachPhase(access, [&](const llvm::DenseSet<int64_t> &words) {
    total += llvm::divideCeil(static_cast<int64_t>(words.size()), kBanks);
  });
  return total;
}

//===----------------------------------------------------------------------===//
// The accesses IR makes to a buffer
//===----------------------------------------------------------------------===//

namespace {
/// An access of `width` elements a lane, the lanes' first elements filled in
/// by `coordsOf(lane)` (empty: idle).
template <typename Fn>
BufferAccess makeAccess(StringRef kind, int64_t width, int64_t lanes,
                        Fn coordsOf) {
  BufferAccess access;
  access.kind = kind;
  access.width = width;
  for (int64_t lane = 0; lane < lanes; ++lane)
    access.lanes.push_back(coordsOf(lane));
  return access;
}

} // namespace

void phobos::tile::appendStoreAccesses(TileType tile, unsigned fast,
                                       SmallVectorImpl<BufferAccess> &accesses) {
  auto interface =
      dyn_cast_or_null<DistributedLayoutInterface>(tile.getEncoding());
  if (!interface)
    return;
  DistributedLayout layout = interface.distribute(tile.getShape());
  int64_t width =
      layout.vectorWidth(fast, getElementBytes(tile.getElementType()));
  ArrayRef<int64_t> shape = tile.getShape();
  // Bank patterns repeat: a thread's first registers show them, and a huge
  // tile does not make the model slow.
  for (int64_t reg = 0; reg < std::min<int64_t>(layout.numRegisters(), kSampled);
       ++reg) {
    if (layout.perAxisIndices(reg)[fast] % width)
      continue;
    accesses.push_back(makeAccess("store", width, 32, [&](int64_t lane) {
      bool canonical = false;
      SmallVector<int64_t, 4> coords =
          layout.elementOf(/*warp=*/0, lane, reg, &canonical);
      for (size_t axis = 0; axis < coords.size(); ++axis)
        if (coords[axis] >= shape[axis])
          canonical = false;
      return canonical ? SmallVector<int64_t, 2>(coords.begin(), coords.end())
                       : SmallVector<int64_t, 2>{};
    }));
  }
}

void phobos::tile::appendLdmatrixAccesses(
    SharedMemoryType buffer, SmallVectorImpl<BufferAccess> &accesses) {
  auto layout = cast<SharedLayoutAttr>(buffer.getLayout());
  unsigned fast = layout.getOrder().front();
  unsigned slow = layout.getOrder().back();
  ArrayRef<int64_t> shape = buffer.getShape();
  int64_t unit = 16 / getElementBytes(buffer.getElementType());
  // Every phase of a swizzle (8 rows) and of a padding (at most 32 rows
  // before the banks repeat) shows within the first rows and units.
  for (int64_t row = 0; row + 8 <= std::min<int64_t>(shape[slow], kSampled);
       row += 8)
    for (int64_t column = 0;
         column + unit <= std::min<int64_t>(shape[fast], kSampled * unit);
         column += unit)
      accesses.push_back(makeAccess("ldmatrix", unit, 8, [&](int64_t lane) {
        SmallVector<int64_t, 2> coords(2);
        coords[slow] = row + lane;
        coords[fast] = column;
        return coords;
      }));
}

namespace {
/// An FMA dot's reads of operand `index` for the first k-slices: each lane
/// reads its first run of rows (A) or columns (B) of the accumulator.
void addFmaReads(DotOp dot, unsigned index, SharedMemoryType buffer,
                 SmallVectorImpl<BufferAccess> &accesses) {
  std::optional<DistributedLayout> distributed = getDistributedLayout(dot.getType());
  if (!distributed)
    return;
  const DistributedLayout &layout = *distributed;
  unsigned resultAxis = index;               // rows of A, columns of B
  unsigned freeAxis = index == 0 ? 0 : (dot.getTransposeB() ? 0 : 1);
  unsigned kAxis = 1 - freeAxis;
  auto shared = cast<SharedLayoutAttr>(buffer.getLayout());
  const AxisDistribution &axis = layout.axis(resultAxis);
  int64_t bytes = getElementBytes(buffer.getElementType());
  int64_t width = 1;
  if (shared.getOrder().front() == freeAxis && !axis.wraps &&
      axis.innerStep == 1)
    width = std::max<int64_t>(1, std::min<int64_t>(axis.inner, 16 / bytes));
  while (width > 1 && axis.inner % width)
    width /= 2;
  for (int64_t k = 0; k < std::min<int64_t>(2, buffer.getShape()[kAxis]); ++k)
    accesses.push_back(makeAccess("fma-load", width, 32, [&](int64_t lane) {
      SmallVector<int64_t, 4> element = layout.elementOf(0, lane, 0);
      SmallVector<int64_t, 2> coords(2);
      coords[freeAxis] = element[resultAxis] % buffer.getShape()[freeAxis];
      coords[kAxis] = k;
      return coords;
    }));
}

/// A local_load's element reads: one access per register of warp 0.
void addLocalLoads(LocalLoadOp load, SmallVectorImpl<BufferAccess> &accesses) {
  TileType tile = load.getType();
  std::optional<DistributedLayout> distributed = getDistributedLayout(tile);
  if (!distributed)
    return;
  const DistributedLayout &layout = *distributed;
  for (int64_t reg = 0; reg < std::min<int64_t>(layout.numRegisters(), kSampled);
       ++reg)
    accesses.push_back(makeAccess("load", 1, 32, [&](int64_t lane) {
      SmallVector<int64_t, 4> coords = layout.elementOf(0, lane, reg);
      for (size_t axis = 0; axis < coords.size(); ++axis)
        coords[axis] %= tile.getShape()[axis];
      return SmallVector<int64_t, 2>(coords.begin(), coords.end());
    }));
}
} // namespace

SmallVector<BufferAccess> phobos::tile::collectBufferAccesses(LocalAllocOp alloc) {
  SmallVector<BufferAccess> accesses;
  SharedMemoryType buffer = alloc.getType();
  if (buffer.getShape().size() != 2)
    return accesses;
  auto layout = cast<SharedLayoutAttr>(buffer.getLayout());
  appendStoreAccesses(alloc.getSource().getType(), layout.getOrder().front(),
                      accesses);
  for (OpOperand &use : alloc->getUses()) {
    if (auto dot = dyn_cast<DotOp>(use.getOwner())) {
      if (use.getOperandNumber() > 1)
        continue;
      if (dot.getKind() == DotKind::mma_sync &&
          isa<MmaLayoutAttr>(dot.getType().getEncoding()))
        appendLdmatrixAccesses(buffer, accesses);
      else
        addFmaReads(dot, use.getOperandNumber(), buffer, accesses);
    } else if (auto load = dyn_cast<LocalLoadOp>(use.getOwner())) {
      addLocalLoads(load, accesses);
    }
  }
  return accesses;
}

int64_t phobos::tile::countExcessWavefronts(SharedMemoryType buffer,
                                            SharedLayoutAttr layout,
                                            ArrayRef<BufferAccess> accesses,
                                            int64_t *total) {
  ArrayRef<int64_t> shape = buffer.getShape();
  int64_t bytes = getElementBytes(buffer.getElementType());
  unsigned fast = layout.getOrder().front();
  int64_t unit = layout.getVectorUnit(shape);
  int64_t excess = 0, all = 0;
  for (const BufferAccess &access : accesses) {
    // The lowering splits a vector the layout does not keep contiguous.
    int64_t width = access.width;
    while (width > 1 && unit % width)
      width /= 2;
    for (int64_t part = 0; part < access.width; part += width) {
      WarpAccess warp;
      warp.bytes = width * bytes;
      for (const SmallVector<int64_t, 2> &lane : access.lanes) {
        if (lane.empty()) {
          warp.addresses.push_back(-1);
          continue;
        }
        SmallVector<int64_t, 2> coords(lane);
        coords[fast] += part;
        warp.addresses.push_back(layout.getOffset(shape, coords) * bytes);
      }
      int64_t count = countWavefronts(warp);
      all += count;
      excess += count - idealWavefronts(warp);
    }
  }
  if (total)
    *total = all;
  return excess;
}

SharedLayoutAttr phobos::tile::getSwizzledLayout(SharedMemoryType buffer) {
  auto layout = cast<SharedLayoutAttr>(buffer.getLayout());
  int64_t bytes = getElementBytes(buffer.getElementType());
  if (bytes == 0 || bytes > 16 || 16 % bytes)
    return {};
  int64_t vec = 16 / bytes;
  int64_t row = buffer.getShape()[layout.getOrder().front()];
  if (row % vec)
    return {};
  // Row r starts at 16-byte slot (r * units) mod 8 of a 128-byte line: rows
  // repeat their slot every 8 / gcd(units, 8) rows, which is how many rows
  // share a phase; gcd(units, 8) phases then give 8 consecutive rows 8
  // different slots.
  int64_t units = row / vec;
  int64_t phases = std::gcd<int64_t>(units, 8);
  if (phases < 2)
    return {};
  return SharedLayoutAttr::get(buffer.getContext(), layout.getOrder(),
                               /*padding=*/0, vec, 8 / phases, phases,
                               /*atom=*/0);
}
