//===- BankConflicts.h - A model of shared-memory bank conflicts -*- C++ -*-===//
//
// Shared memory has 32 banks of 4 bytes. A warp-wide access is served in
// phases: all 32 lanes at once for accesses of up to 4 bytes, half warps for
// 8 bytes, quarter warps for 16 bytes (ldmatrix's eight row addresses of one
// matrix are one such phase). A phase takes as many wavefronts as the most
// distinct 4-byte words any one bank holds among its lanes' bytes (lanes on
// the same word share it). tile-swizzle-shared lays out each buffer so that
// the accesses made to it take as few wavefronts as their bytes allow; the
// unit test counts them for every chosen layout.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_TRANSFORMS_BANKCONFLICTS_H
#define PHOBOS_DIALECT_TILE_TRANSFORMS_BANKCONFLICTS_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include <vector>

namespace phobos::tile {

/// One warp-wide shared-memory instruction: the byte address of each lane
/// (-1: the lane takes no part), every lane moving `bytes` (1 to 16).
struct WarpAccess {
  int64_t bytes = 4;
  llvm::SmallVector<int64_t, 32> addresses;
};

/// Wavefronts `access` takes on the hardware model above.
int64_t countWavefronts(const WarpAccess &access);
/// The fewest wavefronts its bytes could take: per phase, its distinct words
/// over 32, at least one when a lane takes part.
int64_t idealWavefronts(const WarpAccess &access);

/// The accesses a CTA makes to one shared-memory buffer, warp by warp (warp
/// 0's, which the others repeat at other rows or columns), in elements of
/// the buffer's coordinates; turned into addresses for a candidate layout.
struct BufferAccess {
  /// Elements per lane of one access (consecutive along the buffer's
  /// contiguous axis), and each lane's first element (empty: idle lane).
  int64_t width = 1;
  std::vector<llvm::SmallVector<int64_t, 2>> lanes;
  /// What the access is, for reports: "store", "ldmatrix", "load", ...
  llvm::StringRef kind;
};

/// How `buffer`'s value is written and read in IR: the stores of the tile a
/// local_alloc copies in (the vector width the lowering will use), the
/// ldmatrix rows of an mma.sync dot, the per-k-slice vector loads of an FMA
/// dot, the element loads of a local_load.
llvm::SmallVector<BufferAccess> collectBufferAccesses(LocalAllocOp alloc);

/// Warp 0's stores of the registers of `tile` into a buffer whose contiguous
/// axis is `fast`, one access per vector the lowering stores (cp.async moves
/// the same vectors).
void appendStoreAccesses(TileType tile, unsigned fast,
                         llvm::SmallVectorImpl<BufferAccess> &accesses);
/// ldmatrix: each group of 8 lanes gives the 16-byte rows of one 8x8
/// matrix, 8 consecutive rows of the buffer at one column; every such group
/// of rows and 16-byte column of `buffer` is read by some warp.
void appendLdmatrixAccesses(SharedMemoryType buffer,
                            llvm::SmallVectorImpl<BufferAccess> &accesses);

/// The excess wavefronts (over ideal) of `accesses` with `buffer`'s type laid
/// out as `layout`, summed; `total` (if given) receives all wavefronts.
int64_t countExcessWavefronts(SharedMemoryType buffer, SharedLayoutAttr layout,
                              llvm::ArrayRef<BufferAccess> accesses,
                              int64_t *total = nullptr);

/// The XOR swizzle of 16-byte units that keeps any 8 consecutive rows of a
/// buffer of this shape and element type in different banks, or null when
/// its rows are shorter than two units.
SharedLayoutAttr getSwizzledLayout(SharedMemoryType buffer);

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_TRANSFORMS_BANKCONFLICTS_H
