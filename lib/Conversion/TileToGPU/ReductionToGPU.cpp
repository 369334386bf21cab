//===- ReductionToGPU.cpp - Reductions and scans --------------------------===//
//
// A reduction combines registers within a thread, then lanes with
// butterfly shuffles, then warps through the shared-memory scratch region.
// A scan (cumsum) goes through the scratch region. Each writes the scratch,
// waits at a barrier of its own and reads it back; the barriers that order
// it against other ops' shared-memory accesses come from
// tile-insert-barriers.
//
//===----------------------------------------------------------------------===//

#include "PatternBase.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace phobos::tile;

namespace {

/// The identity of a reduction over `type` elements.
Value identity(ThreadEmitter &e, ReduceKind kind, Type type) {
  if (kind == ReduceKind::sum)
    return e.zero(type);
  bool max = kind == ReduceKind::max;
  if (isa<FloatType>(type))
    return e.floatConst(type, max ? -std::numeric_limits<double>::infinity()
                                  : std::numeric_limits<double>::infinity());
  unsigned bits = type.getIntOrFloatBitWidth();
  APInt value =
      max ? APInt::getSignedMinValue(bits) : APInt::getSignedMaxValue(bits);
  return arith::ConstantOp::create(e.b, e.loc, e.b.getIntegerAttr(type, value));
}

Value combine(ThreadEmitter &e, ReduceKind kind, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceKind::sum:
    return isFloat ? Value(arith::AddFOp::create(e.b, e.loc, x, y))
                   : Value(arith::AddIOp::create(e.b, e.loc, x, y));
  case ReduceKind::max:
    return isFloat ? Value(arith::MaximumFOp::create(e.b, e.loc, x, y))
                   : Value(arith::MaxSIOp::create(e.b, e.loc, x, y));
  case ReduceKind::min:
    return isFloat ? Value(arith::MinimumFOp::create(e.b, e.loc, x, y))
                   : Value(arith::MinSIOp::create(e.b, e.loc, x, y));
  }
  return x;
}

struct ReduceLowering : TileToGPUPattern<ReduceOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TileType sourceType = op.getOperand().getType();
    DistributedLayout from = layoutOf(sourceType);
    DistributedLayout to = layoutOf(op.getType());
    unsigned axis = op.getAxis();
    const AxisDistribution &along = from.axis(axis);
    ReduceKind kind = op.getKind();
    Type element = sourceType.getElementType();
    Type accumulate =
        element.isF16() || element.isBF16() ? e.b.getF32Type() : element;
    ValueRange source = adaptor.getOperand();
    // tile-defer-lane-sums: a sum that leaves each lane its own partial,
    // and the one after the loop that adds the lanes' partials, which are
    // then not copies of one value.
    bool keepLanes = op.getKeepLanePartials();
    bool lanesArePartials = op.getCombineLanePartials();
    if ((keepLanes || lanesArePartials) && along.warpMod > 1)
      return op.emitOpError("lane partials of a reduction across warps");

    // 1. Within the thread: one partial per combination of the other axes.
    std::map<SmallVector<int64_t, 4>, Value> partials;
    for (int64_t reg = 0; reg < from.numRegisters(); ++reg) {
      SmallVector<int64_t, 4> q = from.perAxisIndices(reg);
      int64_t qa = q[axis];
      q[axis] = 0;
      Value x = e.widen(source[reg]);
      if (Value canonical = lanesArePartials ? Value() : e.canonical(along, qa))
        x = e.select(canonical, x, identity(e, kind, accumulate));
      auto [it, fresh] = partials.try_emplace(q, x);
      if (!fresh)
        it->second = combine(e, kind, it->second, x);
    }
    // 2. Across the lanes along the axis.
    for (int64_t bit = 1; !keepLanes && bit < along.laneMod; bit *= 2)
      for (auto &[key, partial] : partials)
        partial = combine(e, kind, partial,
                          e.shuffleXor(partial, along.laneDiv * bit));
    // 3. Across the warps along the axis, through the scratch region.
    if (along.warpMod > 1) {
      Value x = e.lane;
      if (along.laneDiv > 1)
        x = arith::DivUIOp::create(e.b, e.loc, x, e.i32(along.laneDiv));
      Value laneCoord = arith::RemUIOp::create(e.b, e.loc, x, e.i32(along.laneMod));
      Value w = e.warp;
      if (along.warpDiv > 1)
        w = arith::DivUIOp::create(e.b, e.loc, w, e.i32(along.warpDiv));
      Value warpCoord = arith::RemUIOp::create(e.b, e.loc, w, e.i32(along.warpMod));
      Value writer = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::eq,
                                           laneCoord, e.i32(0));
      // Each output element's slot: its row-major index in the result shape.
      auto slot = [&](const SmallVector<int64_t, 4> &key, Value warpIndex) {
        SmallVector<Value, 4> coords;
        for (unsigned a = 0; a < from.getRank(); ++a)
          coords.push_back(a == axis ? e.i32(0)
                                     : e.coordinate(from.axis(a), key[a]));
        Value out = e.linearIndex(op.getType().getShape(), coords);
        return e.add(e.mul(out, e.i32(along.warpMod)), warpIndex);
      };
      for (auto &[key, partial] : partials)
        e.predicatedStore(writer, partial,
                          e.scratchPointer(slot(key, warpCoord), accumulate));
      e.barrier();
      for (auto &[key, partial] : partials) {
        Value total = identity(e, kind, accumulate);
        for (int64_t k = 0; k < along.warpMod; ++k)
          total = combine(
              e, kind, total,
              LLVM::LoadOp::create(
                  e.b, e.loc, accumulate,
                  e.scratchPointer(slot(key, e.i32(k)), accumulate)));
        partial = total;
      }
    }
    // 4. The result: every register along the reduced axis holds the total.
    Regs result;
    for (int64_t reg = 0; reg < to.numRegisters(); ++reg) {
      SmallVector<int64_t, 4> q = to.perAxisIndices(reg);
      q[axis] = 0;
      Value value = partials.at(q);
      result.push_back(accumulate == element ? value
                                             : e.narrowTo(value, element));
    }
    replaceWithRegisters(rewriter, op, result);
    return success();
  }
};

/// Each register sums its prefix along the axis from the scratch copy.
struct CumsumLowering : TileToGPUPattern<CumsumOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(CumsumOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TileType type = op.getType();
    DistributedLayout layout = layoutOf(type);
    unsigned axis = op.getAxis();
    Type element = type.getElementType();
    Type accumulate =
        element.isF16() || element.isBF16() ? e.b.getF32Type() : element;
    ValueRange source = adaptor.getOperand();
    ArrayRef<int64_t> shape = type.getShape();
    int64_t stride = 1;
    for (size_t a = axis + 1; a < shape.size(); ++a)
      stride *= shape[a];

    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      Value pointer = e.scratchPointer(
          e.linearIndex(shape, e.coordinates(layout, reg)), accumulate);
      LLVM::StoreOp::create(e.b, e.loc, e.widen(source[reg]), pointer);
    }
    e.barrier();
    Regs result;
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      SmallVector<Value, 4> coords = e.coordinates(layout, reg);
      Value row = coords[axis];
      coords[axis] = e.i32(0);
      Value base = e.linearIndex(shape, coords);
      Value end = e.add(row, e.i32(1));
      auto loop = scf::ForOp::create(e.b, e.loc, e.i32(0), end, e.i32(1),
                                     ValueRange{e.zero(accumulate)});
      {
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(loop.getBody());
        Value index = e.add(base, e.mul(loop.getInductionVar(), e.i32(stride)));
        Value x = LLVM::LoadOp::create(e.b, e.loc, accumulate,
                                       e.scratchPointer(index, accumulate));
        Value sum =
            isa<FloatType>(accumulate)
                ? Value(arith::AddFOp::create(e.b, e.loc,
                                              loop.getRegionIterArgs()[0], x))
                : Value(arith::AddIOp::create(e.b, e.loc,
                                              loop.getRegionIterArgs()[0], x));
        scf::YieldOp::create(e.b, e.loc, sum);
      }
      Value value = loop.getResult(0);
      result.push_back(accumulate == element ? value
                                             : e.narrowTo(value, element));
    }
    replaceWithRegisters(rewriter, op, result);
    return success();
  }
};

} // namespace

void phobos::tile::populateReductionToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    TileLoweringState &state) {
  patterns.add<ReduceLowering, CumsumLowering>(converter, patterns.getContext(),
                                               state);
}
