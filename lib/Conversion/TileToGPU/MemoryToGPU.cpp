//===- MemoryToGPU.cpp - Global memory accesses ---------------------------===//
//
// Slice loads and stores compute each register's tensor index, mask it
// against the tensor's extents (unless `in_bounds` proves it inside) and
// read zero / skip the store where it is outside. Registers that are
// consecutive along the tensor's contiguous axis become one 16-byte vector
// access when the whole vector is inside and aligned (checked at run time;
// the launcher guarantees 16-byte aligned base pointers).
//
//===----------------------------------------------------------------------===//

#include "GlobalAccess.h"
#include "InPlaceUpdates.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

struct LoadLowering : TileToGPUPattern<LoadOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TensorParam tensor =
        e.tensor(op.getTensor().getType(), adaptor.getTensor());
    DistributedLayout layout = layoutOf(op.getType());
    SliceAccess access =
        describeAccess(e, tensor, adaptor.getOffsets(), op.getPointAxes(),
                       op.getInBounds(), layout);
    Type element = tensor.element;
    auto [vecAxis, width] = vectorAxis(access, layout, element);
    Regs values(layout.numRegisters());
    UpdateTagger tagger(getInPlaceUpdate(op), /*writes=*/false,
                        e.b.getInsertionBlock(), e.b.getInsertionPoint());
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      if (values[reg])
        continue;
      SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
      if (vecAxis < 0) {
        auto [linear, inside] = elementAt(e, access, q);
        values[reg] = maskedLoad(e, tensor, linear, inside);
        tagger.tag({reg});
        continue;
      }
      // The vector of `width` registers starting at this one.
      GlobalRun run =
          globalRun(e, tensor, access, layout, q, vecAxis, width);
      Value linear = run.elements.front().first;
      SmallVector<Type> types(width, element);
      auto vectorType = VectorType::get({width}, element);
      unsigned bytes = static_cast<unsigned>(width * getElementBytes(element));
      // One vector load of `pointer`, each part zero where `inside` is false.
      auto vectorLoad = [&](Value pointer, Value inside) {
        Value vector =
            LLVM::LoadOp::create(e.b, e.loc, vectorType, pointer, bytes);
        SmallVector<Value> parts;
        for (int64_t k = 0; k < width; ++k) {
          Value part =
              LLVM::ExtractElementOp::create(e.b, e.loc, vector, e.i32(k));
          parts.push_back(inside ? e.select(inside, part, e.zero(element))
                                 : part);
        }
        scf::YieldOp::create(e.b, e.loc, parts);
      };
      // A whole run is one vector load and any other goes element by
      // element.
      auto wholeOrElements = [&]() {
        auto branch = scf::IfOp::create(e.b, e.loc, types, run.whole, true);
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(&branch.getThenRegion().front());
        vectorLoad(globalPointer(e, tensor, linear), Value());
        e.b.setInsertionPointToStart(&branch.getElseRegion().front());
        SmallVector<Value> scalars;
        for (auto &[elementLinear, elementInside] : run.elements)
          scalars.push_back(
              maskedLoad(e, tensor, elementLinear, elementInside));
        scf::YieldOp::create(e.b, e.loc, scalars);
        return branch;
      };
      // A masked run that is uniform (always, where @aligned promises the
      // extents) is one vector load under its first element's flag, without
      // a branch.
      Value inside = run.elements.front().second;
      scf::IfOp outer;
      if (!inside) {
        outer = wholeOrElements();
      } else {
        outer = scf::IfOp::create(e.b, e.loc, types, run.uniform, true);
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(&outer.getThenRegion().front());
        vectorLoad(e.select(inside, globalPointer(e, tensor, linear),
                            tensor.base),
                   inside);
        e.b.setInsertionPointToStart(&outer.getElseRegion().front());
        scf::YieldOp::create(e.b, e.loc, wholeOrElements().getResults());
      }
      for (auto [k, reg] : llvm::enumerate(run.registers))
        values[reg] = outer.getResult(k);
      tagger.tag(run.registers);
    }
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

struct StoreLowering : TileToGPUPattern<StoreOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TensorParam tensor =
        e.tensor(op.getTensor().getType(), adaptor.getTensor());
    DistributedLayout layout = layoutOf(op.getValue().getType());
    SliceAccess access =
        describeAccess(e, tensor, adaptor.getOffsets(), op.getPointAxes(),
                       op.getInBounds(), layout);
    ValueRange values = adaptor.getValue();
    Type element = tensor.element;
    auto [vecAxis, width] = vectorAxis(access, layout, element);
    UpdateTagger tagger(getInPlaceUpdate(op), /*writes=*/true,
                        e.b.getInsertionBlock(), e.b.getInsertionPoint());
    unsigned bytes = static_cast<unsigned>(width * getElementBytes(element));
    forEachWrite(
        e, tensor, access, layout, vecAxis, width,
        [&](int64_t reg, Value canonical) {
          auto [linear, inside] =
              elementAt(e, access, layout.perAxisIndices(reg));
          e.predicatedStore(e.andI(canonical, inside),
                            e.toMemory(values[reg]),
                            globalPointer(e, tensor, linear));
          tagger.tag({reg});
        },
        [&](const GlobalRun &run, Value canonical) {
          storeRun(e, tensor, run, values, canonical, element, bytes);
          tagger.tag(run.registers);
        });
    rewriter.eraseOp(op);
    return success();
  }

  /// One run of registers: a vector store where the whole run is inside
  /// and aligned, element by element otherwise.
  static void storeRun(ThreadEmitter &e, const TensorParam &tensor,
                       const GlobalRun &run, ValueRange values, Value canonical,
                       Type element, unsigned bytes) {
    // As for loads: a masked uniform run is one vector store under its
    // first element's flag.
    OpBuilder::InsertionGuard guard(e.b);
    if (Value inside = run.elements.front().second) {
      auto outer =
          scf::IfOp::create(e.b, e.loc, TypeRange{}, run.uniform, true);
      e.b.setInsertionPointToStart(&outer.getThenRegion().front());
      e.predicatedStore(e.andI(canonical, inside),
                        e.packVector(values, run.registers, element),
                        globalPointer(e, tensor, run.elements.front().first),
                        bytes);
      e.b.setInsertionPointToStart(&outer.getElseRegion().front());
    }
    auto branch = scf::IfOp::create(e.b, e.loc, TypeRange{}, run.whole, true);
    e.b.setInsertionPointToStart(&branch.getThenRegion().front());
    e.predicatedStore(canonical, e.packVector(values, run.registers, element),
                      globalPointer(e, tensor, run.elements.front().first),
                      bytes);
    e.b.setInsertionPointToStart(&branch.getElseRegion().front());
    for (auto [member, item] : llvm::zip(run.registers, run.elements))
      e.predicatedStore(e.andI(canonical, std::get<1>(item)),
                        e.toMemory(values[member]),
                        globalPointer(e, tensor, std::get<0>(item)));
  }
};

/// Linear index and in-bounds flag of an all-points access.
std::pair<Value, Value> scalarElement(ThreadEmitter &e,
                                      const TensorParam &tensor,
                                      ArrayRef<ValueRange> indices) {
  Value linear, inside;
  for (auto [axis, index] : llvm::enumerate(indices)) {
    Value value = index.front();
    Value term = e.mul(
        arith::ExtSIOp::create(e.b, e.loc, e.b.getI64Type(), value),
        tensor.strides[axis]);
    linear = linear ? e.add(linear, term) : term;
    inside = e.andI(inside,
                    arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ult,
                                          value, tensor.dims[axis]));
  }
  return {linear, inside};
}

/// Every thread reads the element.
struct LoadScalarLowering : TileToGPUPattern<LoadScalarOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(LoadScalarOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TensorParam tensor =
        e.tensor(op.getTensor().getType(), adaptor.getTensor());
    auto [linear, inside] = scalarElement(e, tensor, adaptor.getIndices());
    rewriter.replaceOp(op, maskedLoad(e, tensor, linear, inside));
    return success();
  }
};

/// Every thread holds the value; the first stores it.
struct StoreScalarLowering : TileToGPUPattern<StoreScalarOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(StoreScalarOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TensorParam tensor =
        e.tensor(op.getTensor().getType(), adaptor.getTensor());
    auto [linear, inside] = scalarElement(e, tensor, adaptor.getIndices());
    Value first = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::eq,
                                        e.tid, e.i32(0));
    e.predicatedStore(e.andI(first, inside),
                      e.toMemory(adaptor.getValue().front()),
                      globalPointer(e, tensor, linear));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void phobos::tile::populateMemoryToGPUPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               TileLoweringState &state) {
  patterns.add<LoadLowering, StoreLowering, LoadScalarLowering,
               StoreScalarLowering>(converter, patterns.getContext(), state);
}
