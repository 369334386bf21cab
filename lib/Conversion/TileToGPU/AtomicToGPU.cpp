//===- AtomicToGPU.cpp - Atomic additions to global memory ----------------===//
//
// `phobos.atomic_add` becomes relaxed additions to global memory, one per
// element a thread holds a canonical copy of: a layout may give several
// threads the same element, and an addition, unlike a store, must happen
// once. Elements outside the tensor are skipped, as for stores. The scalar
// form is done by thread 0.
//
// A thread's elements of an f32 slice that are consecutive along the
// tensor's contiguous axis (as for vector loads and stores: the run inside
// and aligned, checked at run time) are added by one `red.global.add.v2.f32`
// or `.v4.f32` where the chip has them (sm_90 and later, the pass's
// `vector-atomics`): a quarter of the instructions and of the requests to
// L2 of one `atomicrmw fadd` (PTX `red.global.add.f32`) per element, which
// is what every other element type and chip gets. No MLIR dialect has the
// vector form (NVVM's atomics are scalar), so it is inline PTX.
//
// A `bulk` addition (tile-bulk-atomics) stores the tile to the scratch
// region row by row (each row padded by 16 bytes against bank conflicts),
// fences it for the asynchronous proxy and, after a barrier, has thread t
// add rows t, t + T, ... (T threads) with one
// `cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32` each (inline
// PTX too: NVVM has only the tensor-map form), then wait until its
// reductions have read the scratch; the next op that writes the scratch
// comes after a barrier (tile-insert-barriers). The rows must start 16-byte
// aligned and lie inside the tensor's last axis: where the run-time check
// of that (uniform across the CTA) fails, the per-register path runs.
//
//===----------------------------------------------------------------------===//

#include "GlobalAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

/// Runs `body` under `predicate` (always when null).
template <typename Body>
void underPredicate(ThreadEmitter &e, Value predicate, Body body) {
  OpBuilder::InsertionGuard guard(e.b);
  if (predicate) {
    auto branch = scf::IfOp::create(e.b, e.loc, TypeRange{}, predicate, false);
    e.b.setInsertionPointToStart(&branch.getThenRegion().front());
  }
  body();
}

/// `*pointer += value` atomically, where `predicate` holds.
void atomicAdd(ThreadEmitter &e, Value predicate, Value value, Value pointer) {
  underPredicate(e, predicate, [&] {
    LLVM::AtomicBinOp kind = isa<FloatType>(value.getType())
                                 ? LLVM::AtomicBinOp::fadd
                                 : LLVM::AtomicBinOp::add;
    LLVM::AtomicRMWOp::create(e.b, e.loc, kind, pointer, value,
                              LLVM::AtomicOrdering::monotonic);
  });
}

/// `pointer[k] += values[k]` for the 2 or 4 f32 `values`, as one relaxed
/// `red.global.add.v2/v4.f32` (16-byte or 8-byte aligned `pointer`), where
/// `predicate` holds.
void vectorAtomicAdd(ThreadEmitter &e, Value predicate, ValueRange values,
                     Value pointer) {
  underPredicate(e, predicate, [&] {
    SmallVector<Value, 5> operands{LLVM::PtrToIntOp::create(
        e.b, e.loc, e.b.getI64Type(), pointer)};
    std::string text = "red.relaxed.gpu.global.add.v" +
                       std::to_string(values.size()) + ".f32 [$0], {";
    std::string constraints = "l";
    for (auto [k, value] : llvm::enumerate(values)) {
      operands.push_back(value);
      text += (k ? ", $" : "$") + std::to_string(k + 1);
      constraints += ",f";
    }
    text += "};";
    constraints += ",~{memory}";
    LLVM::InlineAsmOp::create(e.b, e.loc, TypeRange{}, operands, text,
                              constraints, /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
  });
}

/// One run of a thread's registers: a vector addition where the whole run
/// is inside and aligned, element by element otherwise (a masked run whose
/// elements are all inside or all outside together is one vector addition
/// under its first element's flag, as for stores).
void addRun(ThreadEmitter &e, const TensorParam &tensor, const GlobalRun &run,
            ValueRange values, Value canonical) {
  OpBuilder::InsertionGuard guard(e.b);
  SmallVector<Value, 4> parts;
  for (int64_t member : run.registers)
    parts.push_back(values[member]);
  Value first = globalPointer(e, tensor, run.elements.front().first);
  if (Value inside = run.elements.front().second) {
    auto outer = scf::IfOp::create(e.b, e.loc, TypeRange{}, run.uniform, true);
    e.b.setInsertionPointToStart(&outer.getThenRegion().front());
    vectorAtomicAdd(e, e.andI(canonical, inside), parts, first);
    e.b.setInsertionPointToStart(&outer.getElseRegion().front());
  }
  auto branch = scf::IfOp::create(e.b, e.loc, TypeRange{}, run.whole, true);
  e.b.setInsertionPointToStart(&branch.getThenRegion().front());
  vectorAtomicAdd(e, canonical, parts, first);
  e.b.setInsertionPointToStart(&branch.getElseRegion().front());
  for (auto [part, item] : llvm::zip(parts, run.elements))
    atomicAdd(e, e.andI(canonical, item.second), part,
              globalPointer(e, tensor, item.first));
}

/// The i64 linear index of the element at `indices` (one per tensor axis)
/// and whether it lies inside the tensor (null: known to), testing each
/// axis but those `inBounds` promises and `untested`.
std::pair<Value, Value> locate(ThreadEmitter &e, const TensorParam &tensor,
                               ArrayRef<Value> indices,
                               std::optional<ArrayRef<bool>> inBounds,
                               int64_t untested = -1) {
  Value linear = e.i64(0), inside;
  for (auto [axis, index] : llvm::enumerate(indices)) {
    linear = e.add(linear,
                   e.mul(arith::ExtSIOp::create(e.b, e.loc, e.b.getI64Type(),
                                                index),
                         tensor.strides[axis]));
    if (int64_t(axis) != untested && (!inBounds || !(*inBounds)[axis]))
      inside = e.andI(inside, arith::CmpIOp::create(
                                  e.b, e.loc, arith::CmpIPredicate::ult,
                                  index, tensor.dims[axis]));
  }
  return {linear, inside};
}

/// Whether a bulk addition's rows may go through bulk reductions: the
/// tensor's base 16-byte aligned, the rows starting at a multiple of four
/// elements and inside the last axis.
Value bulkRowsFit(ThreadEmitter &e, const TensorParam &tensor,
                  AtomicAddOp op, Value lastOffset, int64_t width) {
  Value base = LLVM::PtrToIntOp::create(e.b, e.loc, e.b.getI64Type(),
                                        tensor.base);
  Value fits = e.andI(isMultipleOf(e, base, 16),
                      e.andI(isMultipleOf(e, tensor.dims.back(), 4),
                             isMultipleOf(e, lastOffset, 4)));
  std::optional<ArrayRef<bool>> inBounds = op.getInBounds();
  if (!inBounds || !inBounds->back()) {
    Value end = e.add(lastOffset, e.i32(width));
    fits = e.andI(fits, arith::CmpIOp::create(e.b, e.loc,
                                              arith::CmpIPredicate::sge,
                                              lastOffset, e.i32(0)));
    fits = e.andI(fits, arith::CmpIOp::create(e.b, e.loc,
                                              arith::CmpIPredicate::sle, end,
                                              tensor.dims.back()));
  }
  return fits;
}

/// The bulk path: the tile to scratch, then one bulk reduction per row.
void bulkAdd(ThreadEmitter &e, const TensorParam &tensor, AtomicAddOp op,
             ArrayRef<ValueRange> offsets, ValueRange values, TileType type) {
  DistributedLayout layout = layoutOf(type);
  ArrayRef<int64_t> shape = type.getShape();
  Type f32 = e.b.getF32Type();
  // Rows padded by 16 bytes: an mma accumulator's eight rows of a warp
  // would otherwise fall on the same banks (rows of 512 bytes at D 128).
  int64_t width = shape.back(), pitch = width + 4;
  for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
    SmallVector<Value, 4> coords = e.coordinates(layout, reg);
    Value row = shape.size() > 1
                    ? e.linearIndex(shape.drop_back(),
                                    ArrayRef<Value>(coords).drop_back())
                    : e.i32(0);
    e.predicatedStore(
        e.isCanonical(layout, reg), values[reg],
        e.scratchPointer(e.add(e.mul(row, e.i32(pitch)), coords.back()),
                         f32));
  }
  MLIRContext *context = e.b.getContext();
  NVVM::FenceProxyOp::create(
      e.b, e.loc,
      NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
  e.barrier();

  int64_t rows = type.getNumElements() / width;
  int64_t threads = int64_t(e.frame.numWarps) * 32;
  ArrayRef<int64_t> pointAxes = op.getPointAxes();
  std::optional<ArrayRef<bool>> inBounds = op.getInBounds();
  std::string text = "cp.reduce.async.bulk.global.shared::cta.bulk_group."
                     "add.f32 [$0], [$1], " +
                     std::to_string(width * 4) + ";";
  for (int64_t first = 0; first < rows; first += threads) {
    Value row = e.add(e.tid, e.i32(first));
    Value inside;
    if (first + threads > rows)
      inside = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt,
                                     row, e.i32(rows));
    // The row's tile coordinates (row-major over all but the last axis),
    // then its first element's place in the tensor.
    SmallVector<Value, 4> coords(shape.size(), e.i32(0));
    Value rest = row;
    for (int64_t axis = int64_t(shape.size()) - 2; axis >= 0; --axis) {
      coords[axis] = arith::RemSIOp::create(e.b, e.loc, rest,
                                            e.i32(shape[axis]));
      rest = arith::DivSIOp::create(e.b, e.loc, rest, e.i32(shape[axis]));
    }
    SmallVector<Value, 4> indices;
    int64_t tileAxis = 0;
    for (auto [axis, offset] : llvm::enumerate(offsets))
      indices.push_back(llvm::is_contained(pointAxes, int64_t(axis))
                            ? offset.front()
                            : e.add(offset.front(), coords[tileAxis++]));
    // The last axis was tested for the whole row (bulkRowsFit).
    auto [linear, rowInside] =
        locate(e, tensor, indices, inBounds, int64_t(indices.size()) - 1);
    inside = e.andI(inside, rowInside);
    Value global = LLVM::PtrToIntOp::create(e.b, e.loc, e.b.getI64Type(),
                                            globalPointer(e, tensor, linear));
    Value shared = LLVM::PtrToIntOp::create(
        e.b, e.loc, e.b.getI32Type(),
        e.scratchPointer(e.mul(row, e.i32(pitch)), f32));
    underPredicate(e, inside, [&] {
      LLVM::InlineAsmOp::create(
          e.b, e.loc, TypeRange{}, ValueRange{global, shared}, text,
          "l,r,~{memory}", /*has_side_effects=*/true,
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr(), ArrayAttr());
    });
  }
  NVVM::CpAsyncBulkCommitGroupOp::create(e.b, e.loc);
  NVVM::CpAsyncBulkWaitGroupOp::create(e.b, e.loc, 0, e.b.getUnitAttr());
}

struct AtomicAddLowering : TileToGPUPattern<AtomicAddOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(AtomicAddOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TensorParam tensor =
        e.tensor(op.getTensor().getType(), adaptor.getTensor());
    ValueRange values = adaptor.getValue();
    auto tileType = dyn_cast<TileType>(op.getValue().getType());

    if (!tileType) {
      // Every axis is a point: the element, added by thread 0.
      SmallVector<Value, 4> indices;
      for (ValueRange offset : adaptor.getOffsets())
        indices.push_back(offset.front());
      auto [linear, inside] = locate(e, tensor, indices, op.getInBounds());
      Value first = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::eq,
                                          e.tid, e.i32(0));
      atomicAdd(e, e.andI(first, inside), values.front(),
                globalPointer(e, tensor, linear));
      rewriter.eraseOp(op);
      return success();
    }

    if (op.getBulk()) {
      // Either path, on a condition the whole CTA shares.
      Value fits =
          bulkRowsFit(e, tensor, op, adaptor.getOffsets().back().front(),
                      tileType.getShape().back());
      auto branch = scf::IfOp::create(e.b, e.loc, TypeRange{}, fits, true);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(&branch.getThenRegion().front());
      bulkAdd(e, tensor, op, adaptor.getOffsets(), values, tileType);
      e.b.setInsertionPointToStart(&branch.getElseRegion().front());
      addRegisters(e, tensor, op, adaptor.getOffsets(), values, tileType);
    } else {
      addRegisters(e, tensor, op, adaptor.getOffsets(), values, tileType);
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// The per-register path: a relaxed reduction per canonical register,
  /// or per vector run of them.
  void addRegisters(ThreadEmitter &e, const TensorParam &tensor,
                    AtomicAddOp op, ArrayRef<ValueRange> offsets,
                    ValueRange values, TileType tileType) const {
    DistributedLayout layout = layoutOf(tileType);
    SliceAccess access = describeAccess(e, tensor, offsets, op.getPointAxes(),
                                        op.getInBounds(), layout);
    int64_t vecAxis = -1, width = 1;
    if (state.useVectorAtomics() && tensor.element.isF32())
      std::tie(vecAxis, width) = vectorAxis(access, layout, tensor.element);
    // Copies held by several threads are added by the canonical ones.
    forEachWrite(
        e, tensor, access, layout, vecAxis, width,
        [&](int64_t reg, Value canonical) {
          auto [linear, inside] =
              elementAt(e, access, layout.perAxisIndices(reg));
          atomicAdd(e, e.andI(canonical, inside), values[reg],
                    globalPointer(e, tensor, linear));
        },
        [&](const GlobalRun &run, Value canonical) {
          addRun(e, tensor, run, values, canonical);
        });
  }
};

} // namespace

void phobos::tile::populateAtomicToGPUPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               TileLoweringState &state) {
  patterns.add<AtomicAddLowering>(converter, patterns.getContext(), state);
}
