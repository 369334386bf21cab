//===- LayoutUtils.cpp - Choosing layouts for tiles -----------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace phobos::tile;

unsigned phobos::tile::getNumWarps(KernelOp kernel) {
  return std::max<int64_t>(1, kernel.getCtaSize() / 32);
}

std::string phobos::tile::getSourceTypeName(TileType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Type element = type.getElementType();
  os << "tile<";
  if (element.isInteger(1))
    os << "bool";
  else
    os << element;
  os << ">[";
  llvm::interleaveComma(type.getShape(), os);
  os << "]";
  return text;
}

std::optional<int64_t> phobos::tile::getWgmmaRows(DotOp dot) {
  auto a = dyn_cast<TileType>(dot.getA().getType());
  auto b = dyn_cast<TileType>(dot.getB().getType());
  if (!a || !b || a.getRank() != 2 || b.getRank() != 2)
    return std::nullopt;
  Type element = a.getElementType();
  bool tf32 = dot.getPrecision() == DotPrecision::tf32 && element.isF32();
  bool tensorCores = element.isF16() || element.isBF16() ||
                     dot.getPrecision() != DotPrecision::ieee;
  int64_t m = a.getDimSize(0), k = a.getDimSize(1);
  int64_t n = dot.getTransposeB() ? b.getDimSize(0) : b.getDimSize(1);
  if (!tensorCores || element.isF64() || k % (tf32 ? 8 : 16) != 0 ||
      n % 16 != 0 || n > 256)
    return std::nullopt;
  return m;
}

/// On sm_90a, the rows every dot of `kernel` has when they all have the
/// same M of 64 or 128 and each could be one wgmma per warpgroup
/// (getWgmmaRows); nullopt otherwise.
static std::optional<int64_t> wgmmaRows(KernelOp kernel, StringRef chip) {
  if (chip != "sm_90a" || kernel.getWarpSpecialize())
    return std::nullopt;
  std::optional<int64_t> rows;
  bool mixed = false;
  kernel.walk([&](Operation *op) {
    if (isa<WarpSpecializeOp>(op)) {
      mixed = true;
      return WalkResult::interrupt();
    }
    auto dot = dyn_cast<DotOp>(op);
    if (!dot)
      return WalkResult::advance();
    std::optional<int64_t> m = getWgmmaRows(dot);
    if (!m || (*m != 64 && *m != 128) || (rows && *rows != *m)) {
      mixed = true;
      return WalkResult::interrupt();
    }
    rows = m;
    return WalkResult::advance();
  });
  if (mixed)
    return std::nullopt;
  return rows;
}

std::optional<int64_t> phobos::tile::chooseCtaSize(KernelOp kernel,
                                                   StringRef chip) {
  if (kernel.getMaxThreads())
    return std::nullopt;
  // Warpgroups of 4 warps, each owning 64 rows of every accumulator, as
  // Triton sizes a Hopper attention backward (num_warps 4 for 64-row
  // blocks): a 64-row kernel at 256 threads could only use mma.sync.
  if (std::optional<int64_t> rows = wgmmaRows(kernel, chip))
    return 2 * *rows;
  bool fixed = false;
  int64_t vectors = 0;
  kernel.walk([&](Operation *op) {
    if (isa<DotOp, WarpSpecializeOp>(op)) {
      fixed = true;
      return WalkResult::interrupt();
    }
    TileType tile;
    if (auto load = dyn_cast<LoadOp>(op))
      tile = load.getType();
    else if (auto store = dyn_cast<StoreOp>(op))
      tile = dyn_cast<TileType>(store.getValue().getType());
    else if (auto add = dyn_cast<AtomicAddOp>(op))
      tile = dyn_cast<TileType>(add.getValue().getType());
    if (!tile)
      return WalkResult::advance();
    // A block of several rows keeps the default: its threads hold many
    // elements each (an outer product's 128 x 128 spills at 512 threads,
    // whose registers are half of 256's).
    if (tile.getNumElements() != tile.getShape().back()) {
      fixed = true;
      return WalkResult::interrupt();
    }
    vectors = std::max<int64_t>(
        vectors,
        (tile.getNumElements() * getElementBytes(tile.getElementType()) + 15) /
            16);
    return WalkResult::advance();
  });
  if (fixed)
    return 256;
  // Two 16-byte vectors a thread, as Triton's softmax tutorial sizes its
  // CTAs (4 warps below 2048 f32 columns, 8 below 4096, then 16) and its
  // layer norm at its largest blocks (8 warps for 4096 f16); at least
  // Triton's default of 4 warps (a smaller CTA leaves the SM's thread slots
  // empty once it holds its 32 CTAs), at most 16. One vector a thread gave
  // a long f16 row 16 warps, and each of its reductions then crosses all of
  // them: measurably slower than 8 (docs/benchmarks-log.md).
  return std::clamp<int64_t>(
      llvm::PowerOf2Ceil(std::max<int64_t>((vectors + 1) / 2, 1)), 128, 512);
}

int64_t phobos::tile::getCompiledCtaSize(KernelOp kernel, StringRef chip) {
  return chooseCtaSize(kernel, chip).value_or(kernel.getCtaSize());
}

unsigned phobos::tile::getElementBytes(Type elementType) {
  unsigned bits = elementType.getIntOrFloatBitWidth();
  return std::max(1u, bits / 8);
}

/// The largest power of two not above `value` (1 for values below 1).
static unsigned floorPow2(int64_t value) {
  if (value <= 1)
    return 1;
  return static_cast<unsigned>(llvm::bit_floor(static_cast<uint64_t>(value)));
}

BlockedLayoutAttr phobos::tile::getDefaultBlockedLayout(
    MLIRContext *context, ArrayRef<int64_t> shape, unsigned elementBytes,
    unsigned numWarps) {
  size_t rank = shape.size();
  SmallVector<unsigned> sizePerThread(rank, 1), threadsPerWarp(rank, 1),
      warpsPerCTA(rank, 1), order;
  for (size_t k = 0; k < rank; ++k)
    order.push_back(rank - 1 - k);
  sizePerThread[rank - 1] =
      std::min<unsigned>(floorPow2(16 / elementBytes), floorPow2(shape.back()));
  // Lanes along the fastest axes first. Where the axis's runs are not a
  // power of two, as many lanes as divide them: 24 runs (a 192-wide f16
  // tile) take 8 lanes three times over, not 16 lanes one and a half
  // times, whose second half a row's vector copies cannot cover evenly
  // (the B operand of a 128 x 192 GEMM was then staged through registers
  // instead of by TMA).
  unsigned lanes = 32;
  for (unsigned axis : order) {
    int64_t runs = (shape[axis] + sizePerThread[axis] - 1) / sizePerThread[axis];
    unsigned take = std::min<unsigned>(lanes, floorPow2(runs));
    if (runs % take != 0 && (runs & -runs) > 1)
      take = std::min<unsigned>(take, runs & -runs);
    threadsPerWarp[axis] = take;
    lanes /= take;
  }
  threadsPerWarp[order.front()] *= lanes;
  // Warps along the slowest axes first.
  unsigned warps = numWarps;
  for (size_t axis = 0; axis < rank; ++axis) {
    int64_t runs = (shape[axis] + int64_t(sizePerThread[axis]) *
                                      threadsPerWarp[axis] - 1) /
                   (int64_t(sizePerThread[axis]) * threadsPerWarp[axis]);
    unsigned take = std::min<unsigned>(warps, floorPow2(runs));
    warpsPerCTA[axis] = take;
    warps /= take;
  }
  warpsPerCTA[0] *= warps;
  return BlockedLayoutAttr::get(context, sizePerThread, threadsPerWarp,
                                warpsPerCTA, order);
}

BlockedLayoutAttr
phobos::tile::getSwappedWgmmaAccumulatorLayout(MLIRContext *context,
                                               unsigned numWarps) {
  return BlockedLayoutAttr::get(context, {2, 2}, {4, 8}, {1, numWarps},
                                {0, 1});
}

BlockedLayoutAttr
phobos::tile::getSwappedWgmmaFragmentLayout(MLIRContext *context,
                                            unsigned numWarps) {
  return BlockedLayoutAttr::get(context, {1, 2}, {4, 8}, {1, numWarps},
                                {0, 1});
}

BlockedLayoutAttr phobos::tile::getFmaAccumulatorLayout(MLIRContext *context,
                                                        int64_t m, int64_t n,
                                                        unsigned numWarps) {
  if (m < 4 || n < 8)
    return getDefaultBlockedLayout(context, {m, n}, 4, numWarps);
  unsigned sptM = m >= 16 ? 4 : floorPow2(m / 4);
  unsigned sptN = n >= 32 ? 4 : floorPow2(n / 8);
  // Warps as square as possible, never wider than the tile allows.
  unsigned wn = 1u << (llvm::Log2_32(numWarps) / 2);
  while (wn > 1 && int64_t(sptN) * 8 * wn > n)
    wn /= 2;
  unsigned wm = numWarps / wn;
  while (wm > 1 && int64_t(sptM) * 4 * wm > m && wn * 2 <= numWarps &&
         int64_t(sptN) * 8 * wn * 2 <= n) {
    wm /= 2;
    wn *= 2;
  }
  return BlockedLayoutAttr::get(context, {sptM, sptN}, {4, 8}, {wm, wn},
                                {1, 0});
}

std::optional<std::pair<unsigned, unsigned>>
phobos::tile::getMmaWarps(int64_t m, int64_t n, unsigned numWarps,
                          bool rowsInWarp) {
  if (rowsInWarp && m % (16 * numWarps) == 0 && n % 8 == 0)
    return std::make_pair(numWarps, 1u);
  std::optional<std::pair<unsigned, unsigned>> best;
  double bestSkew = 0;
  // Every factorisation, not only powers of two: 12 warps (M = 192) tile a
  // 192 x 256 accumulator only as 3 x 4 (64 x 64 a warp).
  for (unsigned wm = 1; wm <= numWarps; ++wm) {
    unsigned wn = numWarps / wm;
    if (wm * wn != numWarps || m % (16 * wm) != 0 || n % (8 * wn) != 0)
      continue;
    // Prefer warp tiles close to square: fewer fragment loads per mma.
    double skew = std::abs(std::log2(double(m / wm) / double(n / wn)));
    if (!best || skew < bestSkew) {
      best = std::make_pair(wm, wn);
      bestSkew = skew;
    }
  }
  return best;
}

Attribute phobos::tile::sliceToRank(Attribute layout, unsigned rank) {
  unsigned current = cast<DistributedLayoutInterface>(layout).getRank();
  for (; current > rank; --current)
    layout = SliceLayoutAttr::get(layout.getContext(), 0, layout);
  return layout;
}

TileType phobos::tile::withLayout(TileType type, Attribute layout) {
  return TileType::get(type.getContext(), type.getShape(),
                       type.getElementType(), layout);
}

std::optional<DistributedLayout>
phobos::tile::getDistributedLayout(Type type) {
  auto tile = dyn_cast<TileType>(type);
  auto layout = tile ? dyn_cast_or_null<DistributedLayoutInterface>(
                           tile.getEncoding())
                     : DistributedLayoutInterface();
  if (!layout)
    return std::nullopt;
  return layout.distribute(tile.getShape());
}

/// Bytes an element takes while it is summed (half types sum in f32).
static int64_t accumulateBytes(Type element) {
  return element.isF16() || element.isBF16() ? 4 : getElementBytes(element);
}

/// The source coordinates of the element at `coords` of the result of a
/// convert_layout, transpose or reshape.
static SmallVector<int64_t, 4> sourceCoordinates(Operation *op,
                                                 ArrayRef<int64_t> coords,
                                                 ArrayRef<int64_t> sourceShape) {
  if (isa<TransposeOp>(op))
    return {coords[1], coords[0]};
  if (!isa<ReshapeOp>(op))
    return SmallVector<int64_t, 4>(coords);
  // The same row-major position.
  auto resultShape = cast<TileType>(op->getResult(0).getType()).getShape();
  int64_t linear = 0;
  for (auto [coord, extent] : llvm::zip(coords, resultShape))
    linear = linear * extent + coord;
  SmallVector<int64_t, 4> result(sourceShape.size());
  for (size_t a = sourceShape.size(); a-- > 0;) {
    result[a] = linear % sourceShape[a];
    linear /= sourceShape[a];
  }
  return result;
}

std::optional<SmallVector<int64_t>>
phobos::tile::getRegisterPermutation(Operation *op, int64_t numWarps) {
  if (!isa<ConvertLayoutOp, TransposeOp, ReshapeOp>(op))
    return std::nullopt;
  auto source = dyn_cast<TileType>(op->getOperand(0).getType());
  auto result = dyn_cast<TileType>(op->getResult(0).getType());
  if (numWarps == 0)
    if (auto kernel = op->getParentOfType<KernelOp>())
      numWarps = getNumWarps(kernel);
  if (!source || !result || numWarps == 0)
    return std::nullopt;
  auto from = dyn_cast_or_null<DistributedLayoutInterface>(source.getEncoding());
  auto to = dyn_cast_or_null<DistributedLayoutInterface>(result.getEncoding());
  if (!from || !to)
    return std::nullopt;
  DistributedLayout in = from.distribute(source.getShape());
  DistributedLayout out = to.distribute(result.getShape());
  int64_t warps = numWarps;
  // A register of the result copies one of the source's when, in every
  // thread, the two hold the same element. The first thread proposes the
  // candidates; every thread must agree with one of them.
  SmallVector<int64_t> permutation;
  for (int64_t reg = 0; reg < out.numRegisters(); ++reg) {
    SmallVector<int64_t, 4> wanted =
        sourceCoordinates(op, out.elementOf(0, 0, reg), source.getShape());
    std::optional<int64_t> found;
    for (int64_t candidate = 0; candidate < in.numRegisters() && !found;
         ++candidate) {
      if (in.elementOf(0, 0, candidate) != wanted)
        continue;
      bool everywhere = true;
      for (int64_t warp = 0; warp < warps && everywhere; ++warp)
        for (int64_t lane = 0; lane < 32 && everywhere; ++lane)
          everywhere = in.elementOf(warp, lane, candidate) ==
                       sourceCoordinates(op, out.elementOf(warp, lane, reg),
                                         source.getShape());
      if (everywhere)
        found = candidate;
    }
    if (!found)
      return std::nullopt;
    permutation.push_back(*found);
  }
  return permutation;
}

int64_t phobos::tile::getScratchBytes(Operation *op) {
  auto tileBytes = [](Type type) -> int64_t {
    auto tile = cast<TileType>(type);
    return tile.getNumElements() * getElementBytes(tile.getElementType());
  };
  if (isa<ConvertLayoutOp, TransposeOp, ReshapeOp>(op))
    return getRegisterPermutation(op) ? 0
                                      : tileBytes(op->getOperand(0).getType());
  if (auto cumsum = dyn_cast<CumsumOp>(op)) {
    TileType type = cumsum.getType();
    return type.getNumElements() * accumulateBytes(type.getElementType());
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    // One partial per output element and warp along the reduced axis.
    TileType source = reduce.getOperand().getType();
    auto layout =
        dyn_cast_or_null<DistributedLayoutInterface>(source.getEncoding());
    if (!layout)
      return tileBytes(source);
    int64_t warps =
        layout.getAxisDistributions(source.getShape())[reduce.getAxis()].warpMod;
    if (warps <= 1)
      return 0;
    return reduce.getType().getNumElements() * warps *
           accumulateBytes(source.getElementType());
  }
  return 0;
}

int64_t phobos::tile::getSlotStrideBytes(SharedMemoryType buffer) {
  SharedMemoryType slot = getSlotType(buffer);
  int64_t align = cast<SharedLayoutAttr>(slot.getLayout()).getBaseAlignment();
  return (getSharedMemoryBytes(slot) + align - 1) / align * align;
}

SharedLayoutAttr phobos::tile::getWgmmaSharedLayout(MLIRContext *context,
                                                    ArrayRef<int64_t> shape,
                                                    unsigned fastest,
                                                    Type element) {
  int64_t bytes = shape[fastest] * getElementBytes(element);
  int64_t swizzle = bytes % 128 == 0 ? 128 : bytes % 64 == 0 ? 64 : 32;
  auto vec = static_cast<unsigned>(16 / getElementBytes(element));
  return SharedLayoutAttr::get(
      context, {fastest, 1 - fastest}, /*padding=*/0, vec,
      /*perPhase=*/static_cast<unsigned>(128 / swizzle),
      /*maxPhase=*/static_cast<unsigned>(swizzle / 16),
      /*atom=*/static_cast<unsigned>(swizzle / getElementBytes(element)));
}

int64_t phobos::tile::getSharedMemoryBytes(SharedMemoryType type) {
  if (getSlotType(type))
    return type.getShape().front() * getSlotStrideBytes(type);
  auto layout = cast<SharedLayoutAttr>(type.getLayout());
  ArrayRef<int64_t> shape = type.getShape();
  unsigned fastest = layout.getOrder().front();
  // Atoms hold whole rows of the contiguous axis between them.
  int64_t rowLength = layout.getAtom() ? shape[fastest]
                                       : layout.getRowLength(shape);
  int64_t rows = 1;
  for (size_t axis = 0; axis < shape.size(); ++axis)
    if (axis != fastest)
      rows *= shape[axis];
  return rows * rowLength * getElementBytes(type.getElementType());
}

TensorMapUse phobos::tile::getTensorMapUse(TmaCopyOp copy) {
  SharedMemoryType slot = copy.getDestination().getType();
  auto layout = cast<SharedLayoutAttr>(slot.getLayout());
  TensorMapUse use;
  use.argument = cast<BlockArgument>(copy.getTensor()).getArgNumber();
  use.boxRows = slot.getShape()[0];
  use.boxCols = layout.getAtom();
  use.swizzleBytes = layout.getAtom() * getElementBytes(slot.getElementType());
  return use;
}

SmallVector<TensorMapUse> phobos::tile::getTensorMaps(KernelOp kernel) {
  SmallVector<TensorMapUse> maps;
  kernel.walk([&](TmaCopyOp copy) {
    TensorMapUse use = getTensorMapUse(copy);
    if (!llvm::is_contained(maps, use))
      maps.push_back(use);
  });
  return maps;
}

bool phobos::tile::isWgmmaRegisterOperand(DotOp dot, Type a) {
  auto tile = dyn_cast<TileType>(a);
  if (dot.getKind() != DotKind::wgmma || !tile || tile.getRank() != 2)
    return false;
  Type element = tile.getElementType();
  TileType result = dot.getType();
  return (element.isF16() || element.isBF16()) &&
         tile.getDimSize(1) % 16 == 0 &&
         tile.getDimSize(0) == result.getDimSize(0) && tile.getEncoding() &&
         isa<MmaLayoutAttr>(tile.getEncoding()) &&
         tile.getEncoding() == result.getEncoding();
}
