//===- SharedMemoryAccess.cpp - What an op reads and writes of shared memory ===//

#include "Phobos/Dialect/Tile/Transforms/SharedMemoryAccess.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace phobos::tile;

ByteRange phobos::tile::getBufferRange(Value buffer) {
  // A slot's index is dynamic: it stands for its whole staged buffer.
  if (auto slot = buffer.getDefiningOp<BufferSlotOp>())
    buffer = slot.getBuffer();
  Operation *def = buffer.getDefiningOp();
  if (!isa_and_nonnull<LocalAllocOp, LocalBufferOp, LocalBarriersOp>(def))
    return ByteRange{};
  auto offset = def->getAttrOfType<IntegerAttr>("offset");
  if (!offset)
    return ByteRange{};
  int64_t begin = offset.getInt();
  return ByteRange{begin, begin + getSharedMemoryBytes(
                                      cast<SharedMemoryType>(buffer.getType()))};
}

SharedMemoryAccess phobos::tile::getSharedMemoryAccess(Operation *op,
                                                       KernelOp kernel) {
  SharedMemoryAccess access;
  // mbarriers are initialised by one thread, then a barrier.
  if (isa<BarrierOp, LocalBarriersOp>(op)) {
    access.isBarrier = true;
    return access;
  }
  // Commits and waits order the copies in flight (tile-insert-barriers
  // models them) but touch no bytes themselves; a wgmma wait completes
  // reads its dots made; an mbarrier wait makes TMA writes visible, and
  // an arrival releases a slot to the TMA copy that refills it.
  if (isa<AsyncCommitOp, AsyncWaitOp, WgmmaWaitOp, MbarrierWaitOp,
          MbarrierArriveOp>(op))
    return access;
  // Buffers, from the effects on the SharedMemory resource.
  if (auto effecting = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    effecting.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (effect.getResource() != SharedMemoryResource::get())
        continue;
      ByteRange range =
          effect.getValue() ? getBufferRange(effect.getValue()) : ByteRange{};
      if (auto slot = effect.getValue()
                          ? effect.getValue().getDefiningOp<BufferSlotOp>()
                          : BufferSlotOp()) {
        int64_t stages = slot.getBuffer().getType().getShape().front();
        range.slotBuffer = slot.getBuffer();
        range.lag = static_cast<int64_t>(slot.getLag()) % stages;
      }
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        access.reads.push_back(range);
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        access.writes.push_back(range);
    }
  }
  // A dot left in flight (wgmma) is retired by the next one's wait: until
  // then the slots the previous iteration's dot read (now one iteration
  // back) are still being read.
  if (auto dot = dyn_cast<DotOp>(op); dot && dot.getInFlight()) {
    SmallVector<ByteRange, 2> previous;
    for (ByteRange range : access.reads) {
      if (!range.slotBuffer || range.lag < 0)
        continue;
      int64_t stages =
          cast<SharedMemoryType>(range.slotBuffer.getType()).getShape().front();
      range.lag = (range.lag + stages - 1) % stages;
      previous.push_back(range);
    }
    access.reads.append(previous.begin(), previous.end());
  }
  // The scratch exchanges: write, barrier, read.
  if (int64_t bytes = getScratchBytes(op)) {
    ByteRange scratch;
    if (auto offset =
            kernel->getAttrOfType<IntegerAttr>(KernelOp::kScratchOffsetAttrName))
      scratch = ByteRange{offset.getInt(), offset.getInt() + bytes};
    access.writes.push_back(scratch);
    access.reads.push_back(scratch);
    access.internalBarrier = true;
  }
  return access;
}
