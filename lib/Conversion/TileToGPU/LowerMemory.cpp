//===- LowerMemory.cpp - Global and shared memory accesses ----------------===//
//
// Slice loads and stores compute each register's tensor index, mask it
// against the tensor's extents (unless `in_bounds` proves it inside) and
// read zero / skip the store where it is outside. Registers that are
// consecutive along the tensor's contiguous axis become one 16-byte vector
// access when the whole vector is inside and aligned (checked at run time;
// the launcher guarantees 16-byte aligned base pointers).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

/// How one slice access maps registers to tensor elements.
struct SliceAccess {
  const TensorParam *tensor = nullptr;
  /// Per tensor axis: the tile axis it follows, or -1 for a point axis.
  SmallVector<int64_t, 4> tileAxis;
  /// Per tile axis and register index along it: the i64 contribution to
  /// the linear index and the in-bounds flag (null: always inside).
  SmallVector<SmallVector<Value>, 4> contribution, inside;
  /// The point axes' contribution and flag.
  Value pointContribution, pointInside;
};

} // namespace

static SliceAccess describeAccess(Lowering &l, const TensorParam &tensor,
                                  ValueRange offsets,
                                  ArrayRef<int64_t> pointAxes,
                                  std::optional<ArrayRef<bool>> inBounds,
                                  const DistributedLayout &layout) {
  SliceAccess access;
  access.tensor = &tensor;
  unsigned rank = tensor.dims.size();
  access.contribution.resize(layout.getRank());
  access.inside.resize(layout.getRank());
  Type i64 = l.b.getI64Type();
  for (unsigned axis = 0, t = 0; axis < rank; ++axis) {
    Value offset = l.scalar(offsets[axis]);
    bool proven = inBounds && (*inBounds)[axis];
    if (llvm::is_contained(pointAxes, int64_t(axis))) {
      access.tileAxis.push_back(-1);
      Value index64 = arith::ExtSIOp::create(l.b, l.loc, i64, offset);
      Value term = l.mul(index64, tensor.strides[axis]);
      access.pointContribution =
          access.pointContribution ? l.add(access.pointContribution, term) : term;
      if (!proven)
        access.pointInside = l.andI(
            access.pointInside,
            arith::CmpIOp::create(l.b, l.loc, arith::CmpIPredicate::ult, offset,
                                  tensor.dims[axis]));
      continue;
    }
    access.tileAxis.push_back(t);
    const AxisDistribution &dist = layout.axis(t);
    for (int64_t q = 0; q < dist.registers(); ++q) {
      Value index = l.add(offset, l.coordinate(dist, q));
      Value index64 = arith::ExtSIOp::create(l.b, l.loc, i64, index);
      access.contribution[t].push_back(l.mul(index64, tensor.strides[axis]));
      access.inside[t].push_back(
          proven ? Value()
                 : Value(arith::CmpIOp::create(l.b, l.loc,
                                               arith::CmpIPredicate::ult, index,
                                               tensor.dims[axis])));
    }
    ++t;
  }
  return access;
}

/// The linear index and in-bounds flag of register `q` (per-axis indices).
static std::pair<Value, Value> elementAt(Lowering &l, const SliceAccess &access,
                                       ArrayRef<int64_t> q) {
  Value linear = access.pointContribution;
  Value inside = access.pointInside;
  for (size_t t = 0; t < q.size(); ++t) {
    Value term = access.contribution[t][q[t]];
    linear = linear ? l.add(linear, term) : term;
    inside = l.andI(inside, access.inside[t][q[t]]);
  }
  if (!linear)
    linear = l.i64(0);
  return {linear, inside};
}

/// The tile axis that runs along the tensor's contiguous (last) axis and
/// the vector width its registers allow, or {-1, 1}.
static std::pair<int64_t, int64_t> vectorAxis(const SliceAccess &access,
                                              const DistributedLayout &layout,
                                              Type element) {
  int64_t t = access.tileAxis.back();
  if (t < 0 || element.isInteger(1))
    return {-1, 1};
  const AxisDistribution &axis = layout.axis(t);
  if (axis.wraps || axis.innerStep != 1 || axis.inner < 2)
    return {-1, 1};
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t width = std::min<int64_t>(axis.inner, 16 / bytes);
  while (axis.inner % width != 0)
    width /= 2;
  return {width >= 2 ? t : -1, width};
}

static Value globalPointer(Lowering &l, const TensorParam &tensor,
                           Value linear) {
  auto ptrType = LLVM::LLVMPointerType::get(l.b.getContext(), 1);
  return LLVM::GEPOp::create(l.b, l.loc, ptrType,
                             l.memoryType(tensor.element), tensor.base,
                             ValueRange{linear});
}

/// A load that reads zero where `inside` is false (the address is moved to
/// the tensor's first element, which always exists).
static Value maskedLoad(Lowering &l, const TensorParam &tensor, Value linear,
                        Value inside) {
  Type memory = l.memoryType(tensor.element);
  Value pointer = globalPointer(l, tensor, linear);
  if (inside)
    pointer = l.select(inside, pointer, tensor.base);
  Value value = LLVM::LoadOp::create(l.b, l.loc, memory, pointer);
  value = l.fromMemory(value, tensor.element);
  if (inside)
    value = l.select(inside, value, l.zero(tensor.element));
  return value;
}

static bool lowerLoad(Lowering &l, LoadOp op) {
  const TensorParam &tensor = l.tensor(op.getTensor());
  DistributedLayout layout = l.layoutOf(op.getType());
  SliceAccess access = describeAccess(l, tensor, op.getOffsets(),
                                      op.getPointAxes(), op.getInBounds(), layout);
  Type element = tensor.element;
  auto [vecAxis, width] = vectorAxis(access, layout, element);
  Regs values(layout.numRegisters());
  for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
    if (values[reg])
      continue;
    SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
    if (vecAxis < 0) {
      auto [linear, inside] = elementAt(l, access, q);
      values[reg] = maskedLoad(l, tensor, linear, inside);
      continue;
    }
    // The vector of `width` registers starting at this one.
    SmallVector<int64_t, 8> group;
    SmallVector<std::pair<Value, Value>, 8> elements;
    for (int64_t k = 0; k < width; ++k) {
      SmallVector<int64_t, 4> qk = q;
      qk[vecAxis] += k;
      group.push_back(layout.registerIndex(qk));
      elements.push_back(elementAt(l, access, qk));
    }
    Value linear = elements.front().first;
    Value full = l.andI(elements.front().second, elements.back().second);
    Value aligned = arith::CmpIOp::create(
        l.b, l.loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(l.b, l.loc, linear, l.i64(width - 1)), l.i64(0));
    full = l.andI(full, aligned);
    SmallVector<Type> types(width, element);
    auto branch = scf::IfOp::create(l.b, l.loc, types, full, true);
    {
      OpBuilder::InsertionGuard guard(l.b);
      l.b.setInsertionPointToStart(&branch.getThenRegion().front());
      auto vectorType = VectorType::get({width}, element);
      int64_t bytes = width * (element.getIntOrFloatBitWidth() / 8);
      Value vector = LLVM::LoadOp::create(l.b, l.loc, vectorType,
                                          globalPointer(l, tensor, linear),
                                          static_cast<unsigned>(bytes));
      SmallVector<Value> parts;
      for (int64_t k = 0; k < width; ++k)
        parts.push_back(LLVM::ExtractElementOp::create(l.b, l.loc, vector,
                                                       l.i32(k)));
      scf::YieldOp::create(l.b, l.loc, parts);
      l.b.setInsertionPointToStart(&branch.getElseRegion().front());
      SmallVector<Value> scalars;
      for (auto &[elementLinear, inside] : elements)
        scalars.push_back(maskedLoad(l, tensor, elementLinear, inside));
      scf::YieldOp::create(l.b, l.loc, scalars);
    }
    for (int64_t k = 0; k < width; ++k)
      values[group[k]] = branch.getResult(k);
  }
  l.setRegs(op, std::move(values));
  return true;
}

/// Stores `value` where `predicate` holds (always when null).
static void predicatedStore(Lowering &l, Value predicate, Value value,
                            Value pointer) {
  if (!predicate) {
    LLVM::StoreOp::create(l.b, l.loc, value, pointer);
    return;
  }
  auto branch = scf::IfOp::create(l.b, l.loc, TypeRange{}, predicate, false);
  OpBuilder::InsertionGuard guard(l.b);
  l.b.setInsertionPointToStart(&branch.getThenRegion().front());
  LLVM::StoreOp::create(l.b, l.loc, value, pointer);
}

static bool lowerStore(Lowering &l, StoreOp op) {
  const TensorParam &tensor = l.tensor(op.getTensor());
  DistributedLayout layout = l.layoutOf(op.getValue().getType());
  SliceAccess access = describeAccess(l, tensor, op.getOffsets(),
                                      op.getPointAxes(), op.getInBounds(), layout);
  const Regs &values = l.regs(op.getValue());
  Type element = tensor.element;
  auto [vecAxis, width] = vectorAxis(access, layout, element);
  SmallVector<bool> done(layout.numRegisters(), false);
  for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
    if (done[reg])
      continue;
    SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
    // Copies held by several threads are stored once, by the canonical one.
    Value canonical = l.isCanonical(layout, reg);
    if (vecAxis < 0) {
      auto [linear, inside] = elementAt(l, access, q);
      predicatedStore(l, l.andI(canonical, inside), l.toMemory(values[reg]),
                      globalPointer(l, tensor, linear));
      done[reg] = true;
      continue;
    }
    SmallVector<int64_t, 8> group;
    SmallVector<std::pair<Value, Value>, 8> elements;
    for (int64_t k = 0; k < width; ++k) {
      SmallVector<int64_t, 4> qk = q;
      qk[vecAxis] += k;
      group.push_back(layout.registerIndex(qk));
      elements.push_back(elementAt(l, access, qk));
      done[group.back()] = true;
    }
    Value linear = elements.front().first;
    Value full = l.andI(elements.front().second, elements.back().second);
    Value aligned = arith::CmpIOp::create(
        l.b, l.loc, arith::CmpIPredicate::eq,
        arith::AndIOp::create(l.b, l.loc, linear, l.i64(width - 1)), l.i64(0));
    full = l.andI(full, aligned);
    auto branch = scf::IfOp::create(l.b, l.loc, TypeRange{}, full, true);
    OpBuilder::InsertionGuard guard(l.b);
    l.b.setInsertionPointToStart(&branch.getThenRegion().front());
    auto vectorType = VectorType::get({width}, element);
    Value vector = LLVM::UndefOp::create(l.b, l.loc, vectorType);
    for (int64_t k = 0; k < width; ++k)
      vector = LLVM::InsertElementOp::create(l.b, l.loc, vector,
                                             values[group[k]], l.i32(k));
    if (canonical) {
      predicatedStore(l, canonical, vector, globalPointer(l, tensor, linear));
    } else {
      int64_t bytes = width * (element.getIntOrFloatBitWidth() / 8);
      LLVM::StoreOp::create(l.b, l.loc, vector,
                            globalPointer(l, tensor, linear),
                            static_cast<unsigned>(bytes));
    }
    l.b.setInsertionPointToStart(&branch.getElseRegion().front());
    for (int64_t k = 0; k < width; ++k)
      predicatedStore(l, l.andI(canonical, elements[k].second),
                      l.toMemory(values[group[k]]),
                      globalPointer(l, tensor, elements[k].first));
  }
  return true;
}

/// Linear index and in-bounds flag of an all-points access.
static std::pair<Value, Value> scalarElement(Lowering &l,
                                             const TensorParam &tensor,
                                             ValueRange indices) {
  Value linear, inside;
  for (auto [axis, index] : llvm::enumerate(indices)) {
    Value value = l.scalar(index);
    Value term = l.mul(arith::ExtSIOp::create(l.b, l.loc, l.b.getI64Type(), value),
                       tensor.strides[axis]);
    linear = linear ? l.add(linear, term) : term;
    inside = l.andI(inside, arith::CmpIOp::create(l.b, l.loc,
                                                  arith::CmpIPredicate::ult,
                                                  value, tensor.dims[axis]));
  }
  return {linear, inside};
}

/// Shared-memory element index of `coords` in a buffer of `type`.
static Value sharedIndex(Lowering &l, SharedMemoryType type,
                         ArrayRef<Value> coords) {
  auto layout = cast<SharedLayoutAttr>(type.getLayout());
  ArrayRef<unsigned> order = layout.getOrder();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rowLength = shape[order[0]] + layout.getPadding();
  Value row = l.i32(0);
  int64_t stride = 1;
  for (size_t k = 1; k < order.size(); ++k) {
    row = l.add(row, l.mul(coords[order[k]], l.i32(stride)));
    stride *= shape[order[k]];
  }
  return l.add(l.mul(row, l.i32(rowLength)), coords[order[0]]);
}

bool Lowering::lowerMemory(Operation *op) {
  if (auto load = dyn_cast<LoadOp>(op))
    return lowerLoad(*this, load);
  if (auto store = dyn_cast<StoreOp>(op))
    return lowerStore(*this, store);
  if (auto load = dyn_cast<LoadScalarOp>(op)) {
    const TensorParam &param = tensor(load.getTensor());
    auto [linear, inside] = scalarElement(*this, param, load.getIndices());
    setScalar(load, maskedLoad(*this, param, linear, inside));
    return true;
  }
  if (auto store = dyn_cast<StoreScalarOp>(op)) {
    const TensorParam &param = tensor(store.getTensor());
    auto [linear, inside] = scalarElement(*this, param, store.getIndices());
    // Every thread holds the value; the first stores it.
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        i32(0));
    predicatedStore(*this, andI(first, inside),
                    toMemory(scalar(store.getValue())),
                    globalPointer(*this, param, linear));
    return true;
  }
  if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
    DistributedLayout layout = layoutOf(alloc.getSource().getType());
    SharedMemoryType type = alloc.getType();
    int64_t offset = alloc.getOffset().value_or(0);
    const Regs &values = regs(alloc.getSource());
    // Registers consecutive along the buffer's contiguous axis are stored
    // as one vector of up to 16 bytes.
    auto shared = cast<SharedLayoutAttr>(type.getLayout());
    unsigned fast = shared.getOrder().front();
    const AxisDistribution &along = layout.axis(fast);
    Type element = type.getElementType();
    int64_t bytes = getElementBytes(element);
    int64_t rowLength = type.getShape()[fast] + shared.getPadding();
    int64_t width = std::min<int64_t>(along.inner, 16 / bytes);
    while (width > 1 && (along.inner % width || rowLength % width))
      width /= 2;
    if (along.wraps || along.innerStep != 1 || element.isInteger(1))
      width = 1;
    beforeSharedWrite();
    SmallVector<bool> done(layout.numRegisters(), false);
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      if (done[reg])
        continue;
      Value pointer = sharedPointer(
          offset, sharedIndex(*this, type, coordinates(layout, reg)), element);
      Value canonical = isCanonical(layout, reg);
      if (width == 1) {
        predicatedStore(*this, canonical, toMemory(values[reg]), pointer);
        done[reg] = true;
        continue;
      }
      SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
      auto vectorType = VectorType::get({width}, element);
      Value vector = LLVM::UndefOp::create(b, loc, vectorType);
      for (int64_t k = 0; k < width; ++k) {
        SmallVector<int64_t, 4> qk = q;
        qk[fast] += k;
        int64_t member = layout.registerIndex(qk);
        done[member] = true;
        vector = LLVM::InsertElementOp::create(b, loc, vector, values[member],
                                               i32(k));
      }
      if (canonical) {
        predicatedStore(*this, canonical, vector, pointer);
      } else {
        LLVM::StoreOp::create(b, loc, vector, pointer,
                              static_cast<unsigned>(width * bytes));
      }
    }
    return true;
  }
  if (auto local = dyn_cast<LocalLoadOp>(op)) {
    auto alloc = local.getSource().getDefiningOp<LocalAllocOp>();
    if (!alloc)
      return fail(op, "reads a buffer that is not a local_alloc");
    DistributedLayout layout = layoutOf(local.getType());
    SharedMemoryType type = local.getSource().getType();
    beforeSharedRead();
    Regs values;
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      Value pointer = sharedPointer(
          alloc.getOffset().value_or(0),
          sharedIndex(*this, type, coordinates(layout, reg)),
          type.getElementType());
      values.push_back(fromMemory(
          LLVM::LoadOp::create(b, loc, memoryType(type.getElementType()), pointer),
          type.getElementType()));
    }
    setRegs(local, std::move(values));
    return true;
  }
  return fail(op, "is not a memory op");
}
