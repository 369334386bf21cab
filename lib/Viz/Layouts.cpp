//===- Layouts.cpp - Who holds which element, and where it sits -----------===//

#include "Phobos/Viz/Layouts.h"

#include "Phobos/Dialect/Tile/IR/DistributedLayout.h"
#include "Phobos/Dialect/Tile/Transforms/BankConflicts.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace phobos::tile;
using llvm::json::Array;
using llvm::json::Object;

template <typename T> static std::string printed(T entity) {
  std::string text;
  llvm::raw_string_ostream os(text);
  entity.print(os);
  return text;
}

template <typename Range> static Array toArray(const Range &values) {
  Array array;
  for (auto value : values)
    array.push_back(static_cast<int64_t>(value));
  return array;
}

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  return elements;
}

/// "blocked" of `#phobos.blocked<...>`: the layout's mnemonic.
static std::string layoutKind(Attribute encoding) {
  std::string text = printed(encoding);
  StringRef kind = text;
  if (kind.consume_front("#phobos."))
    kind = kind.take_until([](char c) { return c == '<'; });
  return kind.str();
}

Object phobos::viz::describeTileLayout(TileType type, unsigned numWarps,
                                       int64_t maxElements) {
  ArrayRef<int64_t> shape = type.getShape();
  Object result{{"type", printed(Type(type))},
                {"shape", toArray(shape)},
                {"element", printed(type.getElementType())},
                {"warps", static_cast<int64_t>(numWarps)}};
  auto layout =
      dyn_cast_or_null<DistributedLayoutInterface>(type.getEncoding());
  if (!layout) {
    result["kind"] = "none";
    return result;
  }
  result["kind"] = layoutKind(type.getEncoding());
  result["encoding"] = printed(type.getEncoding());
  DistributedLayout distribution = layout.distribute(shape);
  result["registers"] = distribution.numRegisters();
  int64_t elements = product(shape);
  if (elements > maxElements) {
    result["omitted"] = std::to_string(elements) +
                        " elements, more than the page draws (" +
                        std::to_string(maxElements) + ")";
    return result;
  }
  std::vector<int64_t> thread(elements, -1), reg(elements, -1),
      holders(elements, 0);
  for (int64_t warp = 0; warp < numWarps; ++warp)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < distribution.numRegisters(); ++r) {
        bool canonical = false;
        SmallVector<int64_t, 4> coords =
            distribution.elementOf(warp, lane, r, &canonical);
        int64_t flat = 0;
        for (size_t axis = 0; axis < shape.size(); ++axis)
          flat = flat * shape[axis] + coords[axis];
        ++holders[flat];
        if (canonical && thread[flat] < 0) {
          thread[flat] = warp * 32 + lane;
          reg[flat] = r;
        }
      }
  result["thread"] = toArray(thread);
  result["register"] = toArray(reg);
  if (llvm::any_of(holders, [](int64_t count) { return count > 1; }))
    result["holders"] = toArray(holders);
  return result;
}

std::string phobos::viz::describeSharedLayout(SharedLayoutAttr layout) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (layout.getAtom())
    os << "atom " << layout.getAtom() << ", ";
  if (layout.isSwizzled())
    os << "swizzle [" << layout.getVec() << ", " << layout.getPerPhase() << ", "
       << layout.getMaxPhase() << "]";
  else if (layout.getPadding())
    os << "padding " << layout.getPadding();
  else
    os << "plain";
  return text;
}

Object phobos::viz::describeSharedBuffer(SharedMemoryType type, int64_t offset,
                                         int64_t maxElements) {
  SharedMemoryType slot = getSlotType(type);
  SharedMemoryType one = slot ? slot : type;
  auto layout = cast<SharedLayoutAttr>(type.getLayout());
  int64_t elementBytes = getElementBytes(type.getElementType());
  Object result{{"type", printed(Type(type))},
                {"shape", toArray(type.getShape())},
                {"element", printed(type.getElementType())},
                {"element_bytes", elementBytes},
                {"slots", slot ? type.getShape().front() : int64_t(1)},
                {"slot_shape", toArray(one.getShape())},
                {"order", toArray(layout.getOrder())},
                {"padding", static_cast<int64_t>(layout.getPadding())},
                {"layout", describeSharedLayout(layout)},
                {"bytes", getSharedMemoryBytes(type)},
                {"slot_bytes", getSharedMemoryBytes(one)}};
  if (layout.isSwizzled())
    result["swizzle"] = Array{static_cast<int64_t>(layout.getVec()),
                              static_cast<int64_t>(layout.getPerPhase()),
                              static_cast<int64_t>(layout.getMaxPhase())};
  if (layout.getAtom())
    result["atom"] = static_cast<int64_t>(layout.getAtom());
  if (offset >= 0)
    result["offset"] = offset;
  ArrayRef<int64_t> shape = one.getShape();
  int64_t elements = product(shape);
  if (shape.size() != 2 || elements > maxElements)
    return result;
  // The bank of each element's first byte: a buffer's swizzle is on
  // absolute addresses (an atom layout's starts at a 1024-byte boundary),
  // so its offset counts.
  std::vector<int64_t> banks;
  banks.reserve(elements);
  int64_t base = std::max<int64_t>(offset, 0);
  for (int64_t row = 0; row < shape[0]; ++row)
    for (int64_t column = 0; column < shape[1]; ++column) {
      int64_t byte =
          base + layout.getOffset(shape, {row, column}) * elementBytes;
      banks.push_back((byte / 4) % 32);
    }
  result["banks"] = toArray(banks);
  return result;
}

Object phobos::viz::describeBankConflicts(LocalAllocOp alloc) {
  SharedMemoryType type = alloc.getType();
  auto current = cast<SharedLayoutAttr>(type.getLayout());
  SmallVector<BufferAccess> accesses = collectBufferAccesses(alloc);
  Object counts;
  for (const BufferAccess &access : accesses) {
    Object::iterator it = counts.find(access.kind);
    int64_t count = it == counts.end() ? 0 : *it->second.getAsInteger();
    counts[access.kind] = count + 1;
  }
  Array layouts;
  if (!accesses.empty()) {
    // The candidates tile-swizzle-shared weighs; an atom layout is fixed
    // (wgmma's descriptors read it), so it is the only one.
    SmallVector<SharedLayoutAttr, 3> candidates{current};
    if (!current.getAtom()) {
      candidates.push_back(
          SharedLayoutAttr::get(alloc.getContext(), current.getOrder(), 0));
      if (SharedLayoutAttr swizzled = getSwizzledLayout(type))
        candidates.push_back(swizzled);
    }
    SmallVector<SharedLayoutAttr, 3> seen;
    for (SharedLayoutAttr layout : candidates) {
      if (llvm::is_contained(seen, layout))
        continue;
      seen.push_back(layout);
      int64_t total = 0;
      int64_t excess = countExcessWavefronts(type, layout, accesses, &total);
      layouts.push_back(
          Object{{"layout", describeSharedLayout(layout)},
                 {"chosen", layout == current},
                 {"excess_wavefronts", excess},
                 {"wavefronts", total},
                 {"bytes", getSharedMemoryBytes(SharedMemoryType::get(
                               alloc.getContext(), type.getShape(),
                               type.getElementType(), layout))}});
    }
  }
  Object result{{"accesses", std::move(counts)},
                {"layouts", std::move(layouts)}};
  // wgmma reads its operands through matrix descriptors, which the model
  // does not know; it counts those reads as an FMA dot's would be.
  if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
        auto dot = dyn_cast<DotOp>(user);
        return dot && dot.getKind() == DotKind::wgmma;
      }))
    result["note"] = "wgmma reads this buffer through a matrix descriptor; "
                     "the model counts those reads as an FMA dot's loads";
  return result;
}
