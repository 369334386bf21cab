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
//===----------------------------------------------------------------------===//

#include "GlobalAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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
/// axis but those `inBounds` promises.
std::pair<Value, Value> locate(ThreadEmitter &e, const TensorParam &tensor,
                               ArrayRef<Value> indices,
                               std::optional<ArrayRef<bool>> inBounds) {
  Value linear = e.i64(0), inside;
  for (auto [axis, index] : llvm::enumerate(indices)) {
    linear = e.add(linear,
                   e.mul(arith::ExtSIOp::create(e.b, e.loc, e.b.getI64Type(),
                                                index),
                         tensor.strides[axis]));
    if (!inBounds || !(*inBounds)[axis])
      inside = e.andI(inside, arith::CmpIOp::create(
                                  e.b, e.loc, arith::CmpIPredicate::ult,
                                  index, tensor.dims[axis]));
  }
  return {linear, inside};
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

    addRegisters(e, tensor, op, adaptor.getOffsets(), values, tileType);
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
