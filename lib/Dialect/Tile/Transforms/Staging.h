//===- Staging.h - How a tile can reach its shared-memory buffer -*- C++
//-*-===//
//
// A `phobos.load` staged in shared memory by a `phobos.local_alloc` reaches
// its buffer either through the thread's registers (a global load, then a
// shared store) or by asynchronous copies (cp.async). tile-pipeline and
// tile-async-staging choose between the two by the bytes one instruction
// of each can move; on sm_90a, whether the tensor memory accelerator can
// copy it instead.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_STAGING_H
#define PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_STAGING_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "llvm/ADT/StringMap.h"

namespace phobos::tile {

/// Bytes one asynchronous copy instruction can move for `load` staged as
/// `alloc`'s buffer: a run of a thread's registers consecutive both along
/// the tensor's contiguous axis and the buffer's, or one element (0: it
/// cannot be copied, a tile of booleans or without a distributed layout).
int64_t copyBytes(LoadOp load, LocalAllocOp alloc);

/// Bytes one thread moves per instruction when it stages `load` through
/// its registers: the narrower of its global loads (vectors along the
/// tensor's contiguous axis) and its shared stores (along the buffer's).
int64_t registerCopyBytes(LoadOp load, LocalAllocOp alloc);

/// Whether the tensor memory accelerator can copy `load` into a buffer of
/// `type`: a box of a 2-D tensor parameter of `kernel` (or of one plane of
/// a 3-D one: its first axis a point) into an atom layout whose contiguous
/// axis is the tensor's last, with every row of the tensor starting 16-byte
/// aligned (TMA's global strides are multiples of 16 bytes) because the row
/// length is static or `@aligned` (`aligned`) promises a multiple.
bool canCopyThroughTma(LoadOp load, SharedMemoryType type, KernelOp kernel,
                       const llvm::StringMap<int64_t> &aligned);

} // namespace phobos::tile

#endif // PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_STAGING_H
