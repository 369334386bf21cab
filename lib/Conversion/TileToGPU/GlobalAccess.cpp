//===- GlobalAccess.cpp - Per-thread addressing of tensor slices ----------===//

#include "GlobalAccess.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace phobos::tile;

SliceAccess phobos::tile::describeAccess(ThreadEmitter &e, const TensorParam &tensor,
                           ArrayRef<ValueRange> offsets,
                           ArrayRef<int64_t> pointAxes,
                           std::optional<ArrayRef<bool>> inBounds,
                           const DistributedLayout &layout) {
  SliceAccess access;
  unsigned rank = tensor.dims.size();
  access.contribution.resize(layout.getRank());
  access.inside.resize(layout.getRank());
  Type i64 = e.b.getI64Type();
  for (unsigned axis = 0, t = 0; axis < rank; ++axis) {
    Value offset = offsets[axis].front();
    bool proven = inBounds && (*inBounds)[axis];
    if (llvm::is_contained(pointAxes, int64_t(axis))) {
      access.tileAxis.push_back(-1);
      Value index64 = arith::ExtSIOp::create(e.b, e.loc, i64, offset);
      Value term = e.mul(index64, tensor.strides[axis]);
      access.pointContribution =
          access.pointContribution ? e.add(access.pointContribution, term) : term;
      if (!proven)
        access.pointInside = e.andI(
            access.pointInside,
            arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ult, offset,
                                  tensor.dims[axis]));
      continue;
    }
    access.tileAxis.push_back(t);
    const AxisDistribution &dist = layout.axis(t);
    for (int64_t q = 0; q < dist.registers(); ++q) {
      Value index = e.add(offset, e.coordinate(dist, q));
      Value index64 = arith::ExtSIOp::create(e.b, e.loc, i64, index);
      access.contribution[t].push_back(e.mul(index64, tensor.strides[axis]));
      access.inside[t].push_back(
          proven ? Value()
                 : Value(arith::CmpIOp::create(e.b, e.loc,
                                               arith::CmpIPredicate::ult, index,
                                               tensor.dims[axis])));
    }
    ++t;
  }
  return access;
}

/// The linear index and in-bounds flag of register `q` (per-axis indices).
std::pair<Value, Value> phobos::tile::elementAt(ThreadEmitter &e, const SliceAccess &access,
                                  ArrayRef<int64_t> q) {
  Value linear = access.pointContribution;
  Value inside = access.pointInside;
  for (size_t t = 0; t < q.size(); ++t) {
    Value term = access.contribution[t][q[t]];
    linear = linear ? e.add(linear, term) : term;
    inside = e.andI(inside, access.inside[t][q[t]]);
  }
  if (!linear)
    linear = e.i64(0);
  return {linear, inside};
}

/// The tile axis that runs along the tensor's contiguous (last) axis and
/// the vector width its registers allow, or {-1, 1}.
std::pair<int64_t, int64_t> phobos::tile::vectorAxis(const SliceAccess &access,
                                       const DistributedLayout &layout,
                                       Type element) {
  int64_t t = access.tileAxis.back();
  int64_t width = t < 0 ? 1 : vectorWidth(layout, t, element);
  return {width >= 2 ? t : -1, width};
}

GlobalRun phobos::tile::globalRun(ThreadEmitter &e, const SliceAccess &access,
                    const DistributedLayout &layout, ArrayRef<int64_t> q,
                    int64_t axis, int64_t width) {
  GlobalRun run;
  SmallVector<int64_t, 4> qk(q.begin(), q.end());
  for (int64_t k = 0; k < width; ++k, ++qk[axis]) {
    run.registers.push_back(layout.registerIndex(qk));
    run.elements.push_back(elementAt(e, access, qk));
  }
  Value linear = run.elements.front().first;
  Value inside =
      e.andI(run.elements.front().second, run.elements.back().second);
  Value aligned = arith::CmpIOp::create(
      e.b, e.loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(e.b, e.loc, linear, e.i64(width - 1)), e.i64(0));
  run.aligned = aligned;
  run.whole = e.andI(inside, aligned);
  return run;
}

GlobalRun phobos::tile::globalRun(ThreadEmitter &e, const TensorParam &tensor,
                                  const SliceAccess &access,
                                  const DistributedLayout &layout,
                                  ArrayRef<int64_t> q, int64_t axis,
                                  int64_t width) {
  GlobalRun run = globalRun(e, access, layout, q, axis, width);
  if (!run.elements.front().second)
    return run; // nothing is masked: `whole` is the alignment alone
  // An aligned run starts at a multiple of the width along the contiguous
  // axis when every other stride is one; with the extent a multiple too,
  // its first and last elements are inside together.
  Value uniform =
      e.andI(run.aligned, isMultipleOf(e, tensor.dims.back(), width));
  for (Value stride : ArrayRef<Value>(tensor.strides).drop_back())
    uniform = e.andI(uniform, isMultipleOf(e, stride, width));
  run.uniform = uniform;
  return run;
}

void phobos::tile::forEachWrite(
    ThreadEmitter &e, const TensorParam &tensor, const SliceAccess &access,
    const DistributedLayout &layout, int64_t vecAxis, int64_t width,
    llvm::function_ref<void(int64_t, Value)> element,
    llvm::function_ref<void(const GlobalRun &, Value)> run) {
  SmallVector<bool> done(layout.numRegisters(), false);
  for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
    if (done[reg])
      continue;
    Value canonical = e.isCanonical(layout, reg);
    if (vecAxis < 0) {
      done[reg] = true;
      element(reg, canonical);
      continue;
    }
    GlobalRun vector = globalRun(e, tensor, access, layout,
                                 layout.perAxisIndices(reg), vecAxis, width);
    for (int64_t member : vector.registers)
      done[member] = true;
    run(vector, canonical);
  }
}

Value phobos::tile::isMultipleOf(ThreadEmitter &e, Value value, int64_t width) {
  Type type = value.getType();
  Value mask = arith::ConstantOp::create(e.b, e.loc,
                                         e.b.getIntegerAttr(type, width - 1));
  Value zero =
      arith::ConstantOp::create(e.b, e.loc, e.b.getIntegerAttr(type, 0));
  return arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::eq,
                               arith::AndIOp::create(e.b, e.loc, value, mask),
                               zero);
}

Value phobos::tile::globalPointer(ThreadEmitter &e, const TensorParam &tensor, Value linear) {
  auto ptrType = LLVM::LLVMPointerType::get(e.b.getContext(), 1);
  return LLVM::GEPOp::create(e.b, e.loc, ptrType, e.memoryType(tensor.element),
                             tensor.base, ValueRange{linear});
}

/// A load that reads zero where `inside` is false (the address is moved to
/// the tensor's first element, which always exists).
Value phobos::tile::maskedLoad(ThreadEmitter &e, const TensorParam &tensor, Value linear,
                 Value inside) {
  Type memory = e.memoryType(tensor.element);
  Value pointer = globalPointer(e, tensor, linear);
  if (inside)
    pointer = e.select(inside, pointer, tensor.base);
  Value value = LLVM::LoadOp::create(e.b, e.loc, memory, pointer);
  value = e.fromMemory(value, tensor.element);
  if (inside)
    value = e.select(inside, value, e.zero(tensor.element));
  return value;
}

