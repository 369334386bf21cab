//===- AtomicToGPU.cpp - Atomic additions to global memory ----------------===//
//
// `phobos.atomic_add` becomes one relaxed `atomicrmw add`/`fadd` (PTX
// `atom.global.add` or `red.global.add`) per element a thread holds a
// canonical copy of: a layout may give several threads the same element,
// and an addition, unlike a store, must happen once. Elements outside the
// tensor are skipped, as for stores. The scalar form is done by thread 0.
// There are no vector atomics here: a thread's elements are added one by
// one.
//
//===----------------------------------------------------------------------===//

#include "PatternBase.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

/// `*pointer += value` atomically, where `predicate` holds (always when
/// null).
void atomicAdd(ThreadEmitter &e, Value predicate, Value value, Value pointer) {
  OpBuilder::InsertionGuard guard(e.b);
  if (predicate) {
    auto branch = scf::IfOp::create(e.b, e.loc, TypeRange{}, predicate, false);
    e.b.setInsertionPointToStart(&branch.getThenRegion().front());
  }
  LLVM::AtomicBinOp kind = isa<FloatType>(value.getType())
                               ? LLVM::AtomicBinOp::fadd
                               : LLVM::AtomicBinOp::add;
  LLVM::AtomicRMWOp::create(e.b, e.loc, kind, pointer, value,
                            LLVM::AtomicOrdering::monotonic);
}

Value globalPointer(ThreadEmitter &e, const TensorParam &tensor, Value linear) {
  auto ptrType = LLVM::LLVMPointerType::get(e.b.getContext(), 1);
  return LLVM::GEPOp::create(e.b, e.loc, ptrType, tensor.element, tensor.base,
                             ValueRange{linear});
}

/// The i64 contribution of `index` on `axis` to the linear index, and
/// whether it lies inside the tensor (null when `in_bounds` proves it).
std::pair<Value, Value> axisTerm(ThreadEmitter &e, const TensorParam &tensor,
                                 unsigned axis, Value index, bool proven) {
  Value index64 =
      arith::ExtSIOp::create(e.b, e.loc, e.b.getI64Type(), index);
  Value term = e.mul(index64, tensor.strides[axis]);
  Value inside =
      proven ? Value()
             : Value(arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ult,
                                           index, tensor.dims[axis]));
  return {term, inside};
}

struct AtomicAddLowering : TileToGPUPattern<AtomicAddOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(AtomicAddOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TensorParam tensor =
        e.tensor(op.getTensor().getType(), adaptor.getTensor());
    std::optional<ArrayRef<bool>> inBounds = op.getInBounds();
    ArrayRef<int64_t> pointAxes = op.getPointAxes();
    auto proven = [&](unsigned axis) { return inBounds && (*inBounds)[axis]; };
    ValueRange values = adaptor.getValue();
    auto tileType = dyn_cast<TileType>(op.getValue().getType());

    // The point axes' part of every element's index.
    Value pointLinear, pointInside;
    for (unsigned axis = 0; axis < tensor.dims.size(); ++axis) {
      if (!llvm::is_contained(pointAxes, int64_t(axis)))
        continue;
      auto [term, inside] = axisTerm(e, tensor, axis,
                                     adaptor.getOffsets()[axis].front(),
                                     proven(axis));
      pointLinear = pointLinear ? e.add(pointLinear, term) : term;
      pointInside = e.andI(pointInside, inside);
    }
    if (!tileType) {
      Value first = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::eq,
                                          e.tid, e.i32(0));
      atomicAdd(e, e.andI(first, pointInside), values.front(),
                globalPointer(e, tensor, pointLinear ? pointLinear : e.i64(0)));
      rewriter.eraseOp(op);
      return success();
    }

    DistributedLayout layout = layoutOf(tileType);
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      SmallVector<Value, 4> coords = e.coordinates(layout, reg);
      Value linear = pointLinear, inside = pointInside;
      for (unsigned axis = 0, t = 0; axis < tensor.dims.size(); ++axis) {
        if (llvm::is_contained(pointAxes, int64_t(axis)))
          continue;
        Value index = e.add(adaptor.getOffsets()[axis].front(), coords[t++]);
        auto [term, axisInside] =
            axisTerm(e, tensor, axis, index, proven(axis));
        linear = linear ? e.add(linear, term) : term;
        inside = e.andI(inside, axisInside);
      }
      // Copies held by several threads are added by the canonical ones.
      Value predicate = e.andI(e.isCanonical(layout, reg), inside);
      atomicAdd(e, predicate, values[reg],
                globalPointer(e, tensor, linear ? linear : e.i64(0)));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void phobos::tile::populateAtomicToGPUPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               TileLoweringState &state) {
  patterns.add<AtomicAddLowering>(converter, patterns.getContext(), state);
}
