//===- AllocateShared.cpp - Offsets of shared-memory buffers --------------===//
//
// Every buffer at the lowest offset no buffer live at the same time takes
// (first fit over live ranges), then one scratch region for the largest
// getScratchBytes; the offsets, the scratch offset and the total are
// recorded on the ops and the kernel.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include <functional>

namespace phobos::tile {
#define GEN_PASS_DEF_TILEALLOCATESHARED
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

/// Assigns the offsets; the kernel's bytes of shared memory.
static int64_t allocateSharedMemory(KernelOp kernel) {
  Builder builder(kernel.getContext());
  auto align = [](int64_t bytes) { return (bytes + 15) / 16 * 16; };

  // Number the ops in program order; a region op's interval spans its body.
  DenseMap<Operation *, std::pair<int64_t, int64_t>> span;
  int64_t next = 0;
  std::function<void(Operation *)> number = [&](Operation *op) {
    int64_t first = next++;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          number(&nested);
    span[op] = {first, next - 1};
  };
  for (Operation &op : kernel.getBody().front())
    number(&op);

  // A buffer lives from its write to its last reader; a reader inside a
  // loop the buffer was written outside of keeps it alive for the whole
  // loop (every iteration reads it).
  struct Buffer {
    Operation *alloc; ///< a local_alloc or a local_buffer
    int64_t start, end, bytes, alignment, offset = 0;
  };
  std::vector<Buffer> buffers;
  int64_t scratch = 0;
  // A buffer's readers: its users, and the users of the slots of a staged
  // buffer.
  std::function<void(Value, Buffer &, Operation *)> extend =
      [&](Value value, Buffer &buffer, Operation *op) {
        for (Operation *user : value.getUsers()) {
          if (Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user))
            buffer.end = std::max(buffer.end, span[ancestor].second);
          if (auto slot = dyn_cast<BufferSlotOp>(user))
            extend(slot, buffer, op);
        }
      };
  kernel.walk([&](Operation *op) {
    scratch = std::max(scratch, getScratchBytes(op));
    if (!isa<LocalAllocOp, LocalBufferOp, LocalBarriersOp>(op))
      return;
    auto type = cast<SharedMemoryType>(op->getResult(0).getType());
    // A staged buffer's slots share its layout (and start on multiples
    // of the same alignment: getSlotStrideBytes).
    Buffer buffer{op, span[op].first, span[op].second,
                  align(getSharedMemoryBytes(type)),
                  cast<SharedLayoutAttr>(type.getLayout()).getBaseAlignment()};
    extend(op->getResult(0), buffer, op);
    // tile-warp-specialize hoists a kernel's mbarrier arrays to its start,
    // where every thread initialises them, also those of branches that
    // never run together: there they must not share bytes.
    if (isa<LocalBarriersOp>(op) && kernel.getWarpSpecialize())
      buffer.start = 0, buffer.end = next;
    buffers.push_back(buffer);
  });
  // First fit: the lowest offset that no buffer live at the same time
  // occupies.
  int64_t total = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (size_t j = 0; j < i; ++j)
      if (buffers[j].start <= buffers[i].end &&
          buffers[i].start <= buffers[j].end)
        taken.push_back({buffers[j].offset, buffers[j].offset + buffers[j].bytes});
    llvm::sort(taken);
    int64_t offset = 0, alignment = buffers[i].alignment;
    auto alignUp = [&](int64_t at) {
      return (at + alignment - 1) / alignment * alignment;
    };
    for (auto [begin, end] : taken) {
      if (offset + buffers[i].bytes <= begin)
        break;
      offset = std::max(offset, alignUp(end));
    }
    buffers[i].offset = offset;
    buffers[i].alloc->setAttr("offset", builder.getI64IntegerAttr(offset));
    total = std::max(total, offset + buffers[i].bytes);
  }
  // Scratch is used only inside one op, after every buffer.
  int64_t scratchOffset = total;
  total += align(scratch);
  kernel->setAttr(KernelOp::kScratchOffsetAttrName,
                  builder.getI64IntegerAttr(scratchOffset));
  kernel->setAttr(KernelOp::kSharedBytesAttrName,
                  builder.getI64IntegerAttr(total));
  return total;
}

namespace {
struct TileAllocateShared : phobos::tile::impl::TileAllocateSharedBase<TileAllocateShared> {
  using TileAllocateSharedBase::TileAllocateSharedBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    int64_t total = allocateSharedMemory(kernel);
    if (total > maxBytes) {
      kernel.emitError("the kernel needs ")
          << total << " bytes of shared memory, more than the "
          << maxBytes.getValue() << " one CTA may use; choose smaller tiles";
      signalPassFailure();
    }
  }
};
} // namespace
