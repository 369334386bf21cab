//===- SharedMemoryAccess.h - What an op reads and writes of shared memory ===//
//
// The shared-memory footprint of a laid-out tile op, in bytes of the
// kernel's dynamic shared array: the buffers its memory effects on the
// SharedMemory resource name (at the offsets tile-allocate-shared gave
// them) and the scratch region ops that exchange data between threads use
// for their span. tile-insert-barriers places barriers from it; software
// pipelining places its waits from it.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_TRANSFORMS_SHAREDMEMORYACCESS_H
#define PHOBOS_DIALECT_TILE_TRANSFORMS_SHAREDMEMORYACCESS_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include <limits>

namespace phobos::tile {

/// Bytes [begin, end) of the shared array; for one slot of a pipeline's
/// staged buffer (whose bytes stand for the whole buffer: the slot index is
/// dynamic), also the buffer and the slot's lag (-1: not known).
struct ByteRange {
  int64_t begin = 0;
  int64_t end = std::numeric_limits<int64_t>::max();
  mlir::Value slotBuffer;
  int64_t lag = -1;
  bool overlaps(const ByteRange &other) const {
    return begin < other.end && other.begin < end;
  }
  /// Whether both are slots known to be different: of one buffer at two
  /// known lags, or of two buffers whose bytes do not overlap (two staged
  /// buffers live in one loop never do once allocated).
  bool disjointSlots(const ByteRange &other) const {
    if (!slotBuffer || !other.slotBuffer)
      return false;
    if (slotBuffer == other.slotBuffer)
      return lag >= 0 && other.lag >= 0 && lag != other.lag;
    return !overlaps(other);
  }
  bool operator==(const ByteRange &other) const {
    return begin == other.begin && end == other.end &&
           slotBuffer == other.slotBuffer && lag == other.lag;
  }
  bool operator<(const ByteRange &other) const {
    if (begin != other.begin)
      return begin < other.begin;
    if (end != other.end)
      return end < other.end;
    if (slotBuffer != other.slotBuffer)
      return slotBuffer.getAsOpaquePointer() <
             other.slotBuffer.getAsOpaquePointer();
    return lag < other.lag;
  }
};

/// What one op does to shared memory.
struct SharedMemoryAccess {
  llvm::SmallVector<ByteRange, 2> reads, writes;
  /// The op writes `writes`, waits at a barrier of its own and then reads
  /// `reads` (the scratch exchanges): only its reads are pending after it.
  bool internalBarrier = false;
  /// The op is a barrier: nothing is pending after it.
  bool isBarrier = false;
  bool empty() const { return reads.empty() && writes.empty() && !isBarrier; }
};

/// The bytes `buffer` (a `!phobos.smem` value) occupies: its local_alloc's
/// offset and size, or all of shared memory when it is not known (no slot
/// identity: getSharedMemoryAccess adds it).
ByteRange getBufferRange(mlir::Value buffer);

/// The shared-memory access of `op` (not of the ops nested in it).
SharedMemoryAccess getSharedMemoryAccess(mlir::Operation *op, KernelOp kernel);

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_TRANSFORMS_SHAREDMEMORYACCESS_H
