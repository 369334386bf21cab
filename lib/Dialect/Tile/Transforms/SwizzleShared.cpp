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
      SharedMemoryType type = alloc.getType();
      // An atom layout is what wgmma's descriptors read: fixed.
      if (cast<SharedLayoutAttr>(type.getLayout()).getAtom())
        return;
      SmallVector<BufferAccess> accesses = collectBufferAccesses(alloc);
      if (accesses.empty())
        return;
      auto current = cast<SharedLayoutAttr>(type.getLayout());
      SmallVector<SharedLayoutAttr, 3> layouts;
      if (SharedLayoutAttr swizzled = getSwizzledLayout(type))
        layouts.push_back(swizzled);
      layouts.push_back(
          SharedLayoutAttr::get(&getContext(), current.getOrder(), 0));
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
        os << "shared " << type.getShape()[0] << "x" << type.getShape()[1]
           << "x" << type.getElementType() << ": ";
        describe(os, best->layout);
        os << " (";
        llvm::interleaveComma(candidates, os, [&](const Candidate &c) {
          describe(os, c.layout);
          os << ": " << c.excess << " excess of " << c.total
             << " wavefronts, " << c.bytes << " B";
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
    });
  }
};
} // namespace
