//===- LowerShared.cpp - Ops that move data between threads ---------------===//
//
// Layout conversions, reshapes and transposes write each (canonical)
// register to the shared-memory scratch region at the element's row-major
// position and read back what the result layout needs. Reductions combine
// registers within a thread, then lanes with butterfly shuffles, then
// warps through the scratch region; scans go through the scratch region.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace phobos::tile;

/// Row-major linear index (i32) of `coords` in `shape`.
static Value linearIndex(Lowering &l, ArrayRef<int64_t> shape,
                         ArrayRef<Value> coords) {
  Value index = coords[0];
  for (size_t a = 1; a < shape.size(); ++a)
    index = l.add(l.mul(index, l.i32(shape[a])), coords[a]);
  return index;
}

/// Moves `source` (registers of `sourceType`) into registers of
/// `resultType` through the scratch region; `remap` turns a source
/// element's coordinates into the result's.
static Regs throughScratch(
    Lowering &l, const Regs &source, TileType sourceType, TileType resultType,
    function_ref<SmallVector<Value, 4>(ArrayRef<Value>)> remap) {
  DistributedLayout from = l.layoutOf(sourceType);
  DistributedLayout to = l.layoutOf(resultType);
  Type element = sourceType.getElementType();
  l.beforeSharedWrite();
  for (int64_t reg = 0; reg < from.numRegisters(); ++reg) {
    SmallVector<Value, 4> coords = remap(l.coordinates(from, reg));
    Value pointer = l.sharedPointer(
        l.scratchOffset, linearIndex(l, resultType.getShape(), coords), element);
    Value canonical = l.isCanonical(from, reg);
    Value value = l.toMemory(source[reg]);
    if (canonical) {
      auto branch = scf::IfOp::create(l.b, l.loc, TypeRange{}, canonical, false);
      OpBuilder::InsertionGuard guard(l.b);
      l.b.setInsertionPointToStart(&branch.getThenRegion().front());
      LLVM::StoreOp::create(l.b, l.loc, value, pointer);
    } else {
      LLVM::StoreOp::create(l.b, l.loc, value, pointer);
    }
  }
  l.beforeSharedRead();
  Regs result;
  for (int64_t reg = 0; reg < to.numRegisters(); ++reg) {
    Value pointer = l.sharedPointer(
        l.scratchOffset,
        linearIndex(l, resultType.getShape(), l.coordinates(to, reg)), element);
    result.push_back(l.fromMemory(
        LLVM::LoadOp::create(l.b, l.loc, l.memoryType(element), pointer),
        element));
  }
  return result;
}

/// The identity of a reduction over `type` elements.
static Value identity(Lowering &l, ReduceKind kind, Type type) {
  if (kind == ReduceKind::sum)
    return l.zero(type);
  bool max = kind == ReduceKind::max;
  if (isa<FloatType>(type))
    return l.floatConst(type, max ? -std::numeric_limits<double>::infinity()
                                  : std::numeric_limits<double>::infinity());
  unsigned bits = type.getIntOrFloatBitWidth();
  APInt value = max ? APInt::getSignedMinValue(bits)
                    : APInt::getSignedMaxValue(bits);
  return arith::ConstantOp::create(l.b, l.loc, l.b.getIntegerAttr(type, value));
}

static Value combine(Lowering &l, ReduceKind kind, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::sum:
    return isFloat ? Value(arith::AddFOp::create(l.b, l.loc, x, y))
                   : Value(arith::AddIOp::create(l.b, l.loc, x, y));
  case ReduceKind::max:
    return isFloat ? Value(arith::MaximumFOp::create(l.b, l.loc, x, y))
                   : Value(arith::MaxSIOp::create(l.b, l.loc, x, y));
  case ReduceKind::min:
    return isFloat ? Value(arith::MinimumFOp::create(l.b, l.loc, x, y))
                   : Value(arith::MinSIOp::create(l.b, l.loc, x, y));
  }
  return x;
}

/// A butterfly shuffle of a 32- or 64-bit value.
static Value shuffleXor(Lowering &l, Value value, int64_t mask) {
  OpBuilder &b = l.b;
  Type type = value.getType();
  auto shfl = [&](Value word) -> Value {
    return NVVM::ShflOp::create(
        b, l.loc, word.getType(), l.i32(-1), word, l.i32(mask), l.i32(31),
        NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::bfly),
        UnitAttr());
  };
  if (type.getIntOrFloatBitWidth() == 32)
    return shfl(value);
  // 64-bit: two 32-bit halves.
  Value bits = arith::BitcastOp::create(b, l.loc, b.getI64Type(), value);
  Value low = arith::TruncIOp::create(b, l.loc, b.getI32Type(), bits);
  Value high = arith::TruncIOp::create(
      b, l.loc, b.getI32Type(),
      arith::ShRUIOp::create(b, l.loc, bits, l.i64(32)));
  low = arith::ExtUIOp::create(b, l.loc, b.getI64Type(), shfl(low));
  high = arith::ExtUIOp::create(b, l.loc, b.getI64Type(), shfl(high));
  Value joined = arith::OrIOp::create(
      b, l.loc, low, arith::ShLIOp::create(b, l.loc, high, l.i64(32)));
  return arith::BitcastOp::create(b, l.loc, type, joined);
}

static bool lowerReduce(Lowering &l, ReduceOp op) {
  TileType sourceType = op.getOperand().getType();
  DistributedLayout from = l.layoutOf(sourceType);
  DistributedLayout to = l.layoutOf(op.getType());
  unsigned axis = op.getAxis();
  const AxisDistribution &along = from.axis(axis);
  ReduceKind kind = op.getKind();
  Type element = sourceType.getElementType();
  Type accumulate = element.isF16() || element.isBF16() ? l.b.getF32Type() : element;
  const Regs &source = l.regs(op.getOperand());

  // 1. Within the thread: one partial per combination of the other axes.
  std::map<SmallVector<int64_t, 4>, Value> partials;
  for (int64_t reg = 0; reg < from.numRegisters(); ++reg) {
    SmallVector<int64_t, 4> q = from.perAxisIndices(reg);
    int64_t qa = q[axis];
    q[axis] = 0;
    Value x = l.widen(source[reg]);
    if (Value canonical = l.canonical(along, qa))
      x = l.select(canonical, x, identity(l, kind, accumulate));
    auto [it, fresh] = partials.try_emplace(q, x);
    if (!fresh)
      it->second = combine(l, kind, it->second, x);
  }
  // 2. Across the lanes along the axis.
  for (int64_t bit = 1; bit < along.laneMod; bit *= 2)
    for (auto &[key, partial] : partials)
      partial = combine(l, kind, partial,
                        shuffleXor(l, partial, along.laneDiv * bit));
  // 3. Across the warps along the axis, through the scratch region.
  if (along.warpMod > 1) {
    Value laneCoord = l.i32(0), warpCoord = l.i32(0);
    {
      Value x = l.lane;
      if (along.laneDiv > 1)
        x = arith::DivUIOp::create(l.b, l.loc, x, l.i32(along.laneDiv));
      laneCoord = arith::RemUIOp::create(l.b, l.loc, x, l.i32(along.laneMod));
      Value w = l.warp;
      if (along.warpDiv > 1)
        w = arith::DivUIOp::create(l.b, l.loc, w, l.i32(along.warpDiv));
      warpCoord = arith::RemUIOp::create(l.b, l.loc, w, l.i32(along.warpMod));
    }
    Value writer = arith::CmpIOp::create(l.b, l.loc, arith::CmpIPredicate::eq,
                                         laneCoord, l.i32(0));
    // Each output element's slot: its row-major index in the result shape.
    auto slot = [&](const SmallVector<int64_t, 4> &key, Value w) {
      SmallVector<Value, 4> coords;
      for (unsigned a = 0; a < from.getRank(); ++a)
        coords.push_back(a == axis ? l.i32(0)
                                   : l.coordinate(from.axis(a), key[a]));
      Value out = linearIndex(l, op.getType().getShape(), coords);
      return l.add(l.mul(out, l.i32(along.warpMod)), w);
    };
    l.beforeSharedWrite();
    for (auto &[key, partial] : partials) {
      Value pointer = l.sharedPointer(l.scratchOffset, slot(key, warpCoord),
                                      accumulate);
      auto branch = scf::IfOp::create(l.b, l.loc, TypeRange{}, writer, false);
      OpBuilder::InsertionGuard guard(l.b);
      l.b.setInsertionPointToStart(&branch.getThenRegion().front());
      LLVM::StoreOp::create(l.b, l.loc, partial, pointer);
    }
    l.beforeSharedRead();
    for (auto &[key, partial] : partials) {
      Value total = identity(l, kind, accumulate);
      for (int64_t w = 0; w < along.warpMod; ++w)
        total = combine(l, kind, total,
                        LLVM::LoadOp::create(
                            l.b, l.loc, accumulate,
                            l.sharedPointer(l.scratchOffset, slot(key, l.i32(w)),
                                            accumulate)));
      partial = total;
    }
  }
  // 4. The result: every register along the reduced axis holds the total.
  Regs result;
  for (int64_t reg = 0; reg < to.numRegisters(); ++reg) {
    SmallVector<int64_t, 4> q = to.perAxisIndices(reg);
    q[axis] = 0;
    Value value = partials.at(q);
    result.push_back(accumulate == element ? value : l.narrowTo(value, element));
  }
  l.setRegs(op, std::move(result));
  return true;
}

static bool lowerCumsum(Lowering &l, CumsumOp op) {
  TileType type = op.getType();
  DistributedLayout layout = l.layoutOf(type);
  unsigned axis = op.getAxis();
  Type element = type.getElementType();
  Type accumulate = element.isF16() || element.isBF16() ? l.b.getF32Type() : element;
  const Regs &source = l.regs(op.getOperand());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t stride = 1;
  for (size_t a = axis + 1; a < shape.size(); ++a)
    stride *= shape[a];

  l.beforeSharedWrite();
  for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
    Value pointer = l.sharedPointer(
        l.scratchOffset, linearIndex(l, shape, l.coordinates(layout, reg)),
        accumulate);
    LLVM::StoreOp::create(l.b, l.loc, l.widen(source[reg]), pointer);
  }
  l.beforeSharedRead();
  Regs result;
  for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
    SmallVector<Value, 4> coords = l.coordinates(layout, reg);
    Value row = coords[axis];
    coords[axis] = l.i32(0);
    Value base = linearIndex(l, shape, coords);
    Value end = l.add(row, l.i32(1));
    auto loop = scf::ForOp::create(l.b, l.loc, l.i32(0), end, l.i32(1),
                                   ValueRange{l.zero(accumulate)});
    {
      OpBuilder::InsertionGuard guard(l.b);
      l.b.setInsertionPointToStart(loop.getBody());
      Value index = l.add(base, l.mul(loop.getInductionVar(), l.i32(stride)));
      Value x = LLVM::LoadOp::create(
          l.b, l.loc, accumulate,
          l.sharedPointer(l.scratchOffset, index, accumulate));
      Value sum = isa<FloatType>(accumulate)
                      ? Value(arith::AddFOp::create(l.b, l.loc,
                                                    loop.getRegionIterArgs()[0], x))
                      : Value(arith::AddIOp::create(l.b, l.loc,
                                                    loop.getRegionIterArgs()[0], x));
      scf::YieldOp::create(l.b, l.loc, sum);
    }
    Value value = loop.getResult(0);
    result.push_back(accumulate == element ? value : l.narrowTo(value, element));
  }
  l.setRegs(op, std::move(result));
  return true;
}

bool Lowering::lowerThroughShared(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return lowerReduce(*this, reduce);
  if (auto cumsum = dyn_cast<CumsumOp>(op))
    return lowerCumsum(*this, cumsum);
  Value source = op->getOperand(0);
  auto sourceType = cast<TileType>(source.getType());
  auto resultType = cast<TileType>(op->getResult(0).getType());
  std::function<SmallVector<Value, 4>(ArrayRef<Value>)> remap =
      [](ArrayRef<Value> coords) {
        return SmallVector<Value, 4>(coords.begin(), coords.end());
      };
  if (isa<TransposeOp>(op))
    remap = [](ArrayRef<Value> coords) {
      return SmallVector<Value, 4>{coords[1], coords[0]};
    };
  else if (isa<ReshapeOp>(op))
    // Same row-major position in the new shape.
    remap = [&](ArrayRef<Value> coords) {
      Value linear = linearIndex(*this, sourceType.getShape(), coords);
      SmallVector<Value, 4> result(resultType.getRank());
      for (int64_t a = resultType.getRank(); a-- > 0;) {
        int64_t extent = resultType.getDimSize(a);
        result[a] = arith::RemUIOp::create(b, loc, linear, i32(extent));
        linear = arith::DivUIOp::create(b, loc, linear, i32(extent));
      }
      return result;
    };
  setRegs(op->getResult(0),
          throughScratch(*this, regs(source), sourceType, resultType, remap));
  return true;
}
