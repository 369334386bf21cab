//===- SwizzleShared.cpp - Choose each shared buffer's bank layout --------===//
//
// tile-promote-shared pads every buffer by 16 bytes a row. For each buffer
// this pass collects how the IR writes and reads it (the stores of the tile
// it copies in, ldmatrix rows, FMA k-slices, element loads), counts the
// wavefronts each candidate layout costs on the bank model of
// BankConflicts.h, and keeps the cheapest: the XOR swizzle of 16-byte units
// when it is as good as the padding (it saves the padding's memory and keeps
// 16-byte cp.async and vector accesses whole), the plain layout when nothing
// conflicts either way, the padding otherwise.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/BankConflicts.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/bit.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILESWIZZLESHARED
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {
struct Candidate {
  SharedLayoutAttr layout;
  int64_t excess = 0, total = 0, bytes = 0;
};

void describe(llvm::raw_ostream &os, SharedLayoutAttr layout) {
  if (layout.isSwizzled())
    os << "swizzle [" << layout.getVec() << ", " << layout.getPerPhase()
       << ", " << layout.getMaxPhase() << "]";
  else if (layout.getPadding())
    os << "padding " << layout.getPadding();
  else
    os << "plain";
}

struct TileSwizzleShared
    : phobos::tile::impl::TileSwizzleSharedBase<TileSwizzleShared> {
  using TileSwizzleSharedBase::TileSwizzleSharedBase;

  void runOnOperation() override {
    getOperation().walk([&](LocalAllocOp alloc) {
      chooseLayout(alloc);
      chooseStoreLayout(alloc);
    });
  }

  void chooseLayout(LocalAllocOp alloc) {
    SharedMemoryType type = alloc.getType();
    // An atom layout is what wgmma's descriptors read: fixed.
    if (cast<SharedLayoutAttr>(type.getLayout()).getAtom())
      return;
    SmallVector<BufferAccess> accesses = collectBufferAccesses(alloc);
    if (accesses.empty())
      return;
    auto current = cast<SharedLayoutAttr>(type.getLayout());
    // The plain layout first: where it ties with the swizzle, it saves the
    // XOR in every access's address (with it, each unrolled k-slice of an
    // FMA dot needs an address register of its own).
    SmallVector<SharedLayoutAttr, 3> layouts;
    layouts.push_back(
        SharedLayoutAttr::get(&getContext(), current.getOrder(), 0));
    if (SharedLayoutAttr swizzled = getSwizzledLayout(type))
      layouts.push_back(swizzled);
    layouts.push_back(current);
    // Fewest excess wavefronts, then least memory, then the first.
    std::optional<Candidate> best;
    SmallVector<Candidate, 3> candidates;
    for (SharedLayoutAttr layout : layouts) {
      Candidate c{layout};
      c.excess = countExcessWavefronts(type, layout, accesses, &c.total);
      c.bytes = getSharedMemoryBytes(SharedMemoryType::get(
          &getContext(), type.getShape(), type.getElementType(), layout));
      candidates.push_back(c);
      if (!best || c.excess < best->excess ||
          (c.excess == best->excess && c.bytes < best->bytes))
        best = c;
    }
    if (report) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "shared " << type.getShape()[0] << "x" << type.getShape()[1] << "x"
         << type.getElementType() << ": ";
      describe(os, best->layout);
      os << " (";
      llvm::interleaveComma(candidates, os, [&](const Candidate &c) {
        describe(os, c.layout);
        os << ": " << c.excess << " excess of " << c.total << " wavefronts, "
           << c.bytes << " B";
      });
      os << "; accesses:";
      llvm::StringMap<unsigned> kinds;
      SmallVector<StringRef> order;
      for (const BufferAccess &access : accesses)
        if (kinds[access.kind]++ == 0)
          order.push_back(access.kind);
      for (StringRef kind : order)
        os << " " << kinds[kind] << " " << kind;
      os << ")";
      alloc.emitRemark() << text;
    }
    if (best->layout == current)
      return;
    alloc.getResult().setType(SharedMemoryType::get(
        &getContext(), type.getShape(), type.getElementType(), best->layout));
    if (best->layout.isSwizzled())
      ++numSwizzled;
  }

  /// Whether tile-pipeline will pipeline the loop `load` sits in (directly:
  /// its operands are the loop body's loads): the kernel says @pipeline
  /// without asking for a single stage.
  static bool isPipelinedLoad(LoadOp load) {
    auto kernel = load->getParentOfType<KernelOp>();
    auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
    if (!kernel || !loop || !kernel.getPipeline())
      return false;
    std::optional<uint32_t> stages = kernel.getPipelineStages();
    return !stages || *stages >= 2;
  }

  /// A tile loaded only to be staged in a buffer that transposes it (the
  /// buffer's contiguous axis is not the tensor's) is stored one element a
  /// lane, and in the default layout's lanes those elements fall on few
  /// banks. Each thread then holds a block instead: 16-byte vectors along
  /// the tensor's contiguous axis for the loads and, transposed in its
  /// registers, along the buffer's for the stores, with the lanes split
  /// between the axes so that the stores take the fewest wavefronts.
  void chooseStoreLayout(LocalAllocOp alloc) {
    auto load = alloc.getSource().getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse())
      return;
    // Tensor-core operands always. An FMA dot's operand (the SGEMM's
    // transposed A) only where tile-pipeline will stage it through
    // registers (a loop pipelined in two or more stages): then the blocks
    // replace 4-byte asynchronous copies by 16-byte loads a whole iteration
    // ahead. Loaded in the step itself (one stage) the blocks' loads wait
    // at once and were slower (one-stage and three-stage SGEMM variants
    // measured in docs/benchmarks-log.md).
    bool tensorCore = llvm::all_of(alloc->getUsers(), [](Operation *user) {
      auto dot = dyn_cast<DotOp>(user);
      return dot && (dot.getKind() == DotKind::mma_sync ||
                     dot.getKind() == DotKind::wgmma);
    });
    bool fma = llvm::all_of(alloc->getUsers(), [](Operation *user) {
      auto dot = dyn_cast<DotOp>(user);
      return dot && dot.getKind() == DotKind::fma;
    });
    if (!tensorCore && !(fma && isPipelinedLoad(load)))
      return;
    TileType tile = load.getType();
    auto current = dyn_cast_or_null<BlockedLayoutAttr>(tile.getEncoding());
    int64_t tensorRank = load.getTensor().getType().getRank();
    if (!current || tile.getRank() != 2 ||
        llvm::is_contained(load.getPointAxes(), tensorRank - 1))
      return;
    SharedMemoryType buffer = alloc.getType();
    auto shared = cast<SharedLayoutAttr>(buffer.getLayout());
    unsigned fast = shared.getOrder().front(), along = 1;
    if (fast == along)
      return;
    ArrayRef<int64_t> shape = tile.getShape();
    int64_t bytes = getElementBytes(tile.getElementType());
    if (bytes > 16 || 16 % bytes || tile.getElementType().isInteger(1))
      return;
    unsigned threads = 32 * getNumWarps(getOperation());
    // Wavefronts, then store instructions, of a candidate's stores.
    auto cost = [&](BlockedLayoutAttr layout) {
      SmallVector<BufferAccess> accesses;
      appendStoreAccesses(
          TileType::get(&getContext(), shape, tile.getElementType(), layout),
          fast, accesses);
      int64_t total = 0;
      countExcessWavefronts(buffer, shared, accesses, &total);
      return std::make_pair(total, static_cast<int64_t>(accesses.size()));
    };
    std::pair<int64_t, int64_t> best = cost(current);
    BlockedLayoutAttr chosen;
    int64_t vector = 16 / bytes;
    unsigned alongSize = static_cast<unsigned>(
        std::min<int64_t>(vector, llvm::bit_floor(uint64_t(shape[along]))));
    for (unsigned fastSize = static_cast<unsigned>(
             std::min<int64_t>(vector, llvm::bit_floor(uint64_t(shape[fast]))));
         fastSize >= 1; fastSize /= 2) {
      // Lanes along the tensor's axis from most (coalesced loads) to
      // fewest; ties keep the earlier.
      for (unsigned lanesAlong = 32; lanesAlong >= 1; lanesAlong /= 2) {
        SmallVector<unsigned, 2> spt(2), tpw(2), wpc(2);
        spt[fast] = fastSize;
        spt[along] = alongSize;
        tpw[along] = lanesAlong;
        tpw[fast] = 32 / lanesAlong;
        // Warps along the buffer's axis first, then the tensor's; every
        // thread must hold elements of its own.
        int64_t runs[2];
        for (unsigned axis : {fast, along})
          runs[axis] = shape[axis] / (int64_t(spt[axis]) * tpw[axis]);
        if (runs[fast] < 1 || runs[along] < 1)
          continue;
        unsigned warps = threads / 32;
        wpc[fast] =
            std::min<unsigned>(warps, llvm::bit_floor(uint64_t(runs[fast])));
        wpc[along] = std::min<unsigned>(warps / wpc[fast],
                                        llvm::bit_floor(uint64_t(runs[along])));
        if (wpc[fast] * wpc[along] != warps)
          continue;
        auto candidate =
            BlockedLayoutAttr::get(&getContext(), spt, tpw, wpc, {fast, along});
        std::pair<int64_t, int64_t> c = cost(candidate);
        if (c < best) {
          best = c;
          chosen = candidate;
        }
      }
    }
    if (!chosen)
      return;
    load.getResult().setType(
        TileType::get(&getContext(), shape, tile.getElementType(), chosen));
    ++numStoreLayouts;
  }
};
} // namespace
