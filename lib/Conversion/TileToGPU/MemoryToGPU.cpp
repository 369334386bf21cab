//===- MemoryToGPU.cpp - Global memory accesses ---------------------------===//
//
// Slice loads and stores compute each register's tensor index, mask it
// against the tensor's extents (unless `in_bounds` proves it inside) and
// read zero / skip the store where it is outside. Registers that are
// consecutive along the tensor's contiguous axis become one 16-byte vector
// access when the whole vector is inside and aligned (checked at run time;
// the launcher guarantees 16-byte aligned base pointers). A store of 16-bit
// elements from an accumulator's layout first regroups the registers of
// each four lanes into 16-byte runs (quadTranspose).
//
//===----------------------------------------------------------------------===//

#include "GlobalAccess.h"
#include "EpilogueOrder.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

using namespace mlir;
using namespace phobos::tile;

namespace {

/// A tile's registers in another arrangement than its type's layout.
struct Rearranged {
  DistributedLayout layout;
  Regs values;
};

/// The accumulator layout (#phobos.mma: mma.sync and wgmma) gives a lane
/// two consecutive elements of each 8-column fragment, so a warp storing
/// one register pair of 16-bit elements writes 4 bytes a lane and 16 a row:
/// half of each 32-byte sector, and four times the store instructions that
/// 16-byte vectors take. Instead the four lanes of a quad (which hold the
/// same rows) swap their pairs of four neighbouring fragments, a 4 x 4
/// transpose in two rounds of butterfly shuffles, so that each lane holds
/// the eight elements of one fragment and stores them as one 16-byte
/// vector: whole sectors, as Triton's and CUTLASS's epilogues write. The
/// registers then follow the accumulator's layout with 8 consecutive
/// columns a lane, at 8 * (lane % 4) in each group of 32. Nothing where the
/// store is not such a case: another layout or element width, a tensor
/// whose contiguous axis is not the tile's columns, fewer than four
/// fragments a warp along a row, copies, or an in-place update (whose loads
/// and stores are paired register by register, EpilogueOrder.h).
std::optional<Rearranged> quadTranspose(ThreadEmitter &e, StoreOp op,
                                        ValueRange values) {
  auto type = cast<TileType>(op.getValue().getType());
  Type element = type.getElementType();
  int64_t contiguous = int64_t(op.getOffsets().size()) - 1;
  if (!isa<MmaLayoutAttr>(type.getEncoding()) || type.getRank() != 2 ||
      element.isInteger(1) || getElementBytes(element) != 2 ||
      getInPlaceUpdate(op) >= 0 ||
      llvm::is_contained(op.getPointAxes(), contiguous))
    return std::nullopt;
  DistributedLayout layout = layoutOf(type);
  AxisDistribution rows = layout.axis(0), cols = layout.axis(1);
  if (rows.wraps || cols.wraps || cols.inner != 2 || cols.outer % 4 != 0 ||
      cols.laneDiv != 1 || cols.laneMod != 4 || cols.laneScale != 2)
    return std::nullopt;
  AxisDistribution runs = cols;
  runs.inner = 8;
  runs.outer = cols.outer / 4;
  runs.outerStep = 4 * cols.outerStep;
  runs.laneScale = 8;
  Rearranged result{DistributedLayout(type.getShape(), {rows, runs}), {}};
  result.values.resize(result.layout.numRegisters());

  Type word = e.b.getI32Type();
  auto pair = VectorType::get({2}, element);
  auto laneBit = [&](int64_t bit) {
    return arith::CmpIOp::create(
        e.b, e.loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(e.b, e.loc, e.lane, e.i32(bit)), e.i32(0));
  };
  Value upper1 = laneBit(2), upper0 = laneBit(1);
  // Lanes `lane` and `lane ^ mask` trade: the one whose bit is clear keeps
  // `low` and receives the other's `low` as its `high`; the other keeps
  // `high` and receives the first one's `high` as its `low`.
  auto trade = [&](Value &low, Value &high, Value upper, int64_t mask) {
    Value received = e.shuffleXor(e.select(upper, low, high), mask);
    Value newLow = e.select(upper, received, low);
    high = e.select(upper, high, received);
    low = newLow;
  };
  for (int64_t row = 0; row < rows.registers(); ++row)
    for (int64_t group = 0; group < runs.outer; ++group) {
      // words[i]: this lane's two elements of fragment 4 * group + i.
      std::array<Value, 4> words;
      for (int64_t i = 0; i < 4; ++i) {
        int64_t column = 2 * (4 * group + i);
        Value vector = e.packVector(
            values,
            {layout.registerIndex({row, column}),
             layout.registerIndex({row, column + 1})},
            element);
        words[i] = LLVM::BitcastOp::create(e.b, e.loc, word, vector);
      }
      trade(words[0], words[2], upper1, 2);
      trade(words[1], words[3], upper1, 2);
      trade(words[0], words[1], upper0, 1);
      trade(words[2], words[3], upper0, 1);
      // Now words[i] holds lane i's two elements of fragment
      // 4 * group + lane % 4.
      for (int64_t i = 0; i < 4; ++i) {
        Value vector = LLVM::BitcastOp::create(e.b, e.loc, pair, words[i]);
        for (int64_t half = 0; half < 2; ++half)
          result.values[result.layout.registerIndex(
              {row, 8 * group + 2 * i + half})] =
              LLVM::ExtractElementOp::create(e.b, e.loc, vector,
                                             e.i32(half));
      }
    }
  return result;
}

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
    // A masked vector loads under its flag (below), except in a kernel with
    // an FMA product: there it moves its address to the tensor's first
    // element and loads unconditionally, since predicated loads kept more
    // registers live around the SGEMM's 128 accumulators a thread (its
    // 128 x 128 x 32 variant spilled 228 bytes).
    bool unconditional = state.frame(op).fmaDots;
    Regs values(layout.numRegisters());
    EpilogueTagger tagger(op, /*writes=*/false,
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
      // the element-by-element path.
      Value inside = run.elements.front().second;
      scf::IfOp outer;
      if (!inside) {
        outer = wholeOrElements();
      } else {
        outer = scf::IfOp::create(e.b, e.loc, types, run.uniform, true);
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(&outer.getThenRegion().front());
        if (unconditional) {
          vectorLoad(e.select(inside, globalPointer(e, tensor, linear),
                              tensor.base),
                     inside);
        } else {
          // Under its flag: a lane masked off issues no memory request
          // (ptxas predicates the load) and reads zeros.
          auto guarded = scf::IfOp::create(e.b, e.loc, types, inside, true);
          OpBuilder::InsertionGuard inner(e.b);
          e.b.setInsertionPointToStart(&guarded.getThenRegion().front());
          vectorLoad(globalPointer(e, tensor, linear), Value());
          e.b.setInsertionPointToStart(&guarded.getElseRegion().front());
          scf::YieldOp::create(
              e.b, e.loc, SmallVector<Value>(width, e.zero(element)));
          e.b.setInsertionPointAfter(guarded);
          scf::YieldOp::create(e.b, e.loc, guarded.getResults());
        }
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
    ValueRange values = adaptor.getValue();
    std::optional<Rearranged> runs = quadTranspose(e, op, values);
    if (runs) {
      layout = runs->layout;
      values = runs->values;
    }
    SliceAccess access =
        describeAccess(e, tensor, adaptor.getOffsets(), op.getPointAxes(),
                       op.getInBounds(), layout);
    Type element = tensor.element;
    auto [vecAxis, width] = vectorAxis(access, layout, element);
    EpilogueTagger tagger(op, /*writes=*/true,
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

/// The element an all-points access (load_scalar, store_scalar) reaches:
/// its tensor, linear index and in-bounds flag.
struct ScalarElement {
  TensorParam tensor;
  Value linear, inside;
};

template <typename ScalarOp>
ScalarElement
scalarElement(ThreadEmitter &e, ScalarOp op,
              typename ScalarOp::template GenericAdaptor<ArrayRef<ValueRange>>
                  adaptor) {
  TensorParam tensor = e.tensor(op.getTensor().getType(), adaptor.getTensor());
  Value linear, inside;
  for (auto [axis, index] : llvm::enumerate(adaptor.getIndices())) {
    Value value = index.front();
    Value term = e.mul(
        arith::ExtSIOp::create(e.b, e.loc, e.b.getI64Type(), value),
        tensor.strides[axis]);
    linear = linear ? e.add(linear, term) : term;
    inside = e.andI(inside,
                    arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ult,
                                          value, tensor.dims[axis]));
  }
  return {std::move(tensor), linear, inside};
}

/// Every thread reads the element.
struct LoadScalarLowering : TileToGPUPattern<LoadScalarOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(LoadScalarOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    auto [tensor, linear, inside] = scalarElement(e, op, adaptor);
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
    auto [tensor, linear, inside] = scalarElement(e, op, adaptor);
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
