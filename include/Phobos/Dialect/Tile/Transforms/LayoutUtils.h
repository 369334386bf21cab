//===- LayoutUtils.h - Choosing layouts for tiles ---------------*- C++ -*-===//
//
// The layout choices the GPU pipeline's passes share: the default coalesced
// layout of a tile, the accumulator layouts of FMA and mma.sync dots, slice
// layouts for broadcasting, and the shared-memory scratch an op needs.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_TRANSFORMS_LAYOUTUTILS_H
#define PHOBOS_DIALECT_TILE_TRANSFORMS_LAYOUTUTILS_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include <optional>
#include <string>
#include <utility>

namespace phobos::tile {

/// 32-bit registers per SM on every chip from sm_80 to sm_90.
constexpr int64_t kRegistersPerSM = 65536;

/// Warps in a CTA of `kernel`.
unsigned getNumWarps(KernelOp kernel);

/// The CTA size the compiler chooses for a kernel without `@launch`
/// (tile-choose-cta): for a row kernel (every global load, store or atomic
/// add is of one row), one thread per two 16-byte vectors of its largest
/// access, a power of two from 128 to 512; on sm_90a, a kernel whose
/// tensor-core dots all have the same M of 64 or 128 rows gets one warp per
/// 16 of them (one warpgroup per 64: every dot a wgmma); otherwise (other
/// dots, warp specialization, blocks of several rows) the fixed default of
/// 256 the layouts are made for. nullopt when `@launch` gave the size.
/// `chip` empty: the rule without the chip's instructions.
std::optional<int64_t> chooseCtaSize(KernelOp kernel,
                                     llvm::StringRef chip = {});

/// The rows M of `dot` when one wgmma per warpgroup could compute it, given
/// 16 x M / 64 warps: tile operands of rank 2 that tensor cores take (16-bit,
/// or f32 under a tensor-core precision), K a multiple of 16 (8 for tf32), N a
/// multiple of 16 up to 256. nullopt otherwise. tile-select-mma makes it a
/// wgmma on sm_90a when the CTA has exactly those warps; tile-choose-cta gives
/// it them.
std::optional<int64_t> getWgmmaRows(DotOp dot);

/// The CTA size `kernel` will have on `chip`: `@launch`'s, else
/// chooseCtaSize's (what the launch contract says before the pipeline has
/// run).
int64_t getCompiledCtaSize(KernelOp kernel, llvm::StringRef chip = {});

/// Bytes one element of `type` takes in memory (i1: 1).
unsigned getElementBytes(mlir::Type elementType);

/// `tile<f32>[64, 128]`: a tile type as the source spells it, for
/// diagnostics.
std::string getSourceTypeName(TileType type);

/// Each thread holds a 16-byte vector along the fastest axis; lanes fill
/// the fastest axes first, warps the slowest.
BlockedLayoutAttr getDefaultBlockedLayout(mlir::MLIRContext *context,
                                          llvm::ArrayRef<int64_t> shape,
                                          unsigned elementBytes,
                                          unsigned numWarps);

/// The accumulator of an FMA dot: each thread holds 4x4 micro-tiles
/// (strided by the CTA footprint), warps arranged as squarely as the tile
/// allows.
BlockedLayoutAttr getFmaAccumulatorLayout(mlir::MLIRContext *context,
                                          int64_t m, int64_t n,
                                          unsigned numWarps);

/// The accumulator of a `swap_ab` wgmma dot on an [m, n] tile with n = 16 x
/// numWarps: the instruction computes the transpose, warp w holding columns
/// 16 w .. 16 w + 15. Its row g (g + 8) of the warp's 16 is column 2g
/// (2g + 1), so each thread's values pair up along n: lane l holds rows
/// 8 j + 2 (l % 4) + {0, 1} and columns 16 w + 2 (l / 4) + {0, 1}, i.e.
/// #phobos.blocked with sizePerThread [2, 2], threadsPerWarp [4, 8],
/// warpsPerCTA [1, numWarps], order [0, 1]. Rows pair for the instruction's
/// fragments, columns for 8-byte stores of a row-major result.
BlockedLayoutAttr getSwappedWgmmaAccumulatorLayout(mlir::MLIRContext *context,
                                                   unsigned numWarps);

/// The register tile of a `swap_ab` dot's B [k, n] (n = 16 x numWarps) that
/// is its wgmmas' A fragments as they are: lane l holds k = l % 4 + 4 o for
/// every o and n = 16 w + 2 (l / 4) + {0, 1}, registers 4s .. 4s + 3 being
/// the fragment of k-step s. #phobos.blocked with sizePerThread [1, 2],
/// threadsPerWarp [4, 8], warpsPerCTA [1, numWarps], order [0, 1].
BlockedLayoutAttr getSwappedWgmmaFragmentLayout(mlir::MLIRContext *context,
                                                unsigned numWarps);

/// The mma.sync warp grid for an [m, n] accumulator: warps[0] * warps[1]
/// == numWarps, m a multiple of 16 * warps[0], n of 8 * warps[1]; nullopt
/// when no arrangement fits. Warp tiles close to square are preferred;
/// with `rowsInWarp`, a grid of one warp column (each row of the result
/// inside one warp, so reductions along rows need no exchange between
/// warps) is taken where it fits.
std::optional<std::pair<unsigned, unsigned>>
getMmaWarps(int64_t m, int64_t n, unsigned numWarps, bool rowsInWarp = false);

/// `layout` with its leading axes sliced away down to `rank` axes: the
/// layout a rank-`rank` operand needs to broadcast against a tile in
/// `layout` without moving data.
mlir::Attribute sliceToRank(mlir::Attribute layout, unsigned rank);

/// The tile type with `layout` as its encoding.
TileType withLayout(TileType type, mlir::Attribute layout);

/// Which thread holds which element of `type`: none unless it is a tile
/// whose encoding is a distributed layout.
std::optional<DistributedLayout> getDistributedLayout(mlir::Type type);

/// For a convert_layout, transpose or reshape whose every thread already
/// holds each element of its result in the source: for each result
/// register, the source register that holds the same element in every
/// thread of the CTA (so the op is a renaming of registers: no shared
/// memory, no barrier). nullopt when the layouts are not known yet or some
/// element comes from another thread (the op goes through scratch).
/// `numWarps` 0: the CTA of the kernel around `op` (the lowering, whose op
/// is no longer in one, passes its own).
std::optional<llvm::SmallVector<int64_t>>
getRegisterPermutation(mlir::Operation *op, int64_t numWarps = 0);

/// Bytes of shared-memory scratch `op` needs while it runs (0 for none):
/// layout conversions, transposes and reshapes that move elements between
/// threads, reductions and scans.
int64_t getScratchBytes(mlir::Operation *op);

/// Bytes of a shared-memory buffer, padding included (for a staged buffer,
/// every slot).
int64_t getSharedMemoryBytes(SharedMemoryType type);

/// Bytes from one slot of a staged buffer to the next (aligned as the
/// layout's start must be: 16 bytes, 1024 for atom layouts).
int64_t getSlotStrideBytes(SharedMemoryType buffer);

/// The shared layout a wgmma operand of `shape` is read in through a matrix
/// descriptor: axis `fastest` contiguous, cut into atoms of the widest
/// swizzle mode (128, 64 or 32 bytes) that divides its extent, swizzled as
/// the hardware swizzles that mode. The extent in bytes must be a multiple
/// of 32.
SharedLayoutAttr getWgmmaSharedLayout(mlir::MLIRContext *context,
                                      llvm::ArrayRef<int64_t> shape,
                                      unsigned fastest, mlir::Type element);

/// Whether a register tile of type `a` can be the A operand of the wgmma
/// `dot` as it is: 16-bit elements in the dot's own accumulator layout
/// (warps stacked along M, 16 rows each), whose registers then are wgmma's
/// A fragments (as an m16n8 accumulator's are an m16n8k16 A fragment), and
/// K a multiple of 16. Attention's P @ V reads P so, without staging it.
bool isWgmmaRegisterOperand(DotOp dot, mlir::Type a);

/// A tensor map a kernel receives for its TMA copies: which tensor
/// parameter, the box one copy instruction moves (`rows` x one atom) and the
/// swizzle (the atom's bytes).
struct TensorMapUse {
  unsigned argument = 0;
  int64_t boxRows = 0, boxCols = 0, swizzleBytes = 0;
  bool operator==(const TensorMapUse &other) const {
    return argument == other.argument && boxRows == other.boxRows &&
           boxCols == other.boxCols && swizzleBytes == other.swizzleBytes;
  }
};

/// The tensor map `copy` uses.
TensorMapUse getTensorMapUse(TmaCopyOp copy);

/// The distinct tensor maps `kernel`'s TMA copies use, in the order of
/// their first copy: the order of the kernel's extra tensor-map
/// parameters (after the launch ABI's others) and of the launch
/// contract's `tensor_maps`.
llvm::SmallVector<TensorMapUse> getTensorMaps(KernelOp kernel);

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_TRANSFORMS_LAYOUTUTILS_H
