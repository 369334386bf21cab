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

/// How many of a thread's registers along `axis` one access of at most 16
/// bytes can move: consecutive elements (no wrapping, step 1), a width that
/// divides the thread's run and `rowLength` (elements between the starts of
/// two rows; 0 when there are no rows to keep aligned). 1 when none.
static int64_t vectorWidth(const AxisDistribution &axis, Type element,
                           int64_t rowLength = 0) {
  if (element.isInteger(1) || axis.wraps || axis.innerStep != 1)
    return 1;
  int64_t width = std::min<int64_t>(axis.inner, 16 / getElementBytes(element));
  while (width > 1 && (axis.inner % width || (rowLength && rowLength % width)))
    width /= 2;
  return std::max<int64_t>(width, 1);
}

/// The tile axis that runs along the tensor's contiguous (last) axis and
/// the vector width its registers allow, or {-1, 1}.
static std::pair<int64_t, int64_t> vectorAxis(const SliceAccess &access,
                                              const DistributedLayout &layout,
                                              Type element) {
  int64_t t = access.tileAxis.back();
  int64_t width = t < 0 ? 1 : vectorWidth(layout.axis(t), element);
  return {width >= 2 ? t : -1, width};
}

/// The registers of the run of `width` along `axis` that starts at the
/// register with per-axis indices `q`.
static SmallVector<int64_t, 8> runRegisters(const DistributedLayout &layout,
                                            ArrayRef<int64_t> q, int64_t axis,
                                            int64_t width) {
  SmallVector<int64_t, 8> registers;
  SmallVector<int64_t, 4> qk(q.begin(), q.end());
  for (int64_t k = 0; k < width; ++k, ++qk[axis])
    registers.push_back(layout.registerIndex(qk));
  return registers;
}

/// One `width`-element vector access of global memory: its registers, each
/// element's (linear index, in bounds), and whether the whole vector is in
/// bounds and aligned, so that one vector instruction may move it.
struct GlobalRun {
  SmallVector<int64_t, 8> registers;
  SmallVector<std::pair<Value, Value>, 8> elements;
  Value whole;
};

static GlobalRun globalRun(Lowering &l, const SliceAccess &access,
                           const DistributedLayout &layout,
                           ArrayRef<int64_t> q, int64_t axis, int64_t width) {
  GlobalRun run;
  SmallVector<int64_t, 4> qk(q.begin(), q.end());
  for (int64_t k = 0; k < width; ++k, ++qk[axis]) {
    run.registers.push_back(layout.registerIndex(qk));
    run.elements.push_back(elementAt(l, access, qk));
  }
  Value linear = run.elements.front().first;
  Value inside = l.andI(run.elements.front().second, run.elements.back().second);
  Value aligned = arith::CmpIOp::create(
      l.b, l.loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(l.b, l.loc, linear, l.i64(width - 1)), l.i64(0));
  run.whole = l.andI(inside, aligned);
  return run;
}

/// The registers `registers` of `values` as one vector.
static Value packVector(Lowering &l, const Regs &values,
                        ArrayRef<int64_t> registers, Type element) {
  auto vectorType = VectorType::get({static_cast<int64_t>(registers.size())},
                                    element);
  Value vector = LLVM::UndefOp::create(l.b, l.loc, vectorType);
  for (auto [k, reg] : llvm::enumerate(registers))
    vector = LLVM::InsertElementOp::create(l.b, l.loc, vector, values[reg],
                                           l.i32(k));
  return vector;
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
    GlobalRun run = globalRun(l, access, layout, q, vecAxis, width);
    Value linear = run.elements.front().first;
    SmallVector<Type> types(width, element);
    auto branch = scf::IfOp::create(l.b, l.loc, types, run.whole, true);
    {
      OpBuilder::InsertionGuard guard(l.b);
      l.b.setInsertionPointToStart(&branch.getThenRegion().front());
      auto vectorType = VectorType::get({width}, element);
      int64_t bytes = width * getElementBytes(element);
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
      for (auto &[elementLinear, inside] : run.elements)
        scalars.push_back(maskedLoad(l, tensor, elementLinear, inside));
      scf::YieldOp::create(l.b, l.loc, scalars);
    }
    for (auto [k, reg] : llvm::enumerate(run.registers))
      values[reg] = branch.getResult(k);
  }
  l.setRegs(op, std::move(values));
  return true;
}

/// Stores `value` where `predicate` holds (always when null), with
/// `alignment` bytes (0: the type's).
static void predicatedStore(Lowering &l, Value predicate, Value value,
                            Value pointer, unsigned alignment = 0) {
  OpBuilder::InsertionGuard guard(l.b);
  if (predicate) {
    auto branch = scf::IfOp::create(l.b, l.loc, TypeRange{}, predicate, false);
    l.b.setInsertionPointToStart(&branch.getThenRegion().front());
  }
  LLVM::StoreOp::create(l.b, l.loc, value, pointer, alignment);
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
    GlobalRun run = globalRun(l, access, layout, q, vecAxis, width);
    for (int64_t member : run.registers)
      done[member] = true;
    auto branch = scf::IfOp::create(l.b, l.loc, TypeRange{}, run.whole, true);
    OpBuilder::InsertionGuard guard(l.b);
    l.b.setInsertionPointToStart(&branch.getThenRegion().front());
    predicatedStore(l, canonical, packVector(l, values, run.registers, element),
                    globalPointer(l, tensor, run.elements.front().first),
                    static_cast<unsigned>(width * getElementBytes(element)));
    l.b.setInsertionPointToStart(&branch.getElseRegion().front());
    for (auto [reg, item] : llvm::zip(run.registers, run.elements))
      predicatedStore(l, l.andI(canonical, std::get<1>(item)),
                      l.toMemory(values[reg]),
                      globalPointer(l, tensor, std::get<0>(item)));
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
    Type element = type.getElementType();
    int64_t width = vectorWidth(layout.axis(fast), element,
                                type.getShape()[fast] + shared.getPadding());
    beforeSharedWrite();
    SmallVector<bool> done(layout.numRegisters(), false);
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      if (done[reg])
        continue;
      SmallVector<int64_t, 8> run =
          runRegisters(layout, layout.perAxisIndices(reg), fast, width);
      for (int64_t member : run)
        done[member] = true;
      Value value = width == 1 ? toMemory(values[reg])
                               : packVector(*this, values, run, element);
      predicatedStore(
          *this, isCanonical(layout, reg), value,
          sharedPointer(offset,
                        sharedIndex(*this, type, coordinates(layout, reg)),
                        element),
          width == 1 ? 0 : static_cast<unsigned>(width * getElementBytes(element)));
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
