//===- AsyncCopyToGPU.cpp - Staged buffers and cp.async -------------------===//
//
// A staged buffer becomes its base pointer and a slot the base plus the
// slot's 16-byte aligned stride. An asynchronous copy is a `cp.async` per
// run of a thread's registers that is contiguous in the tensor and in the
// buffer (16 bytes, `.cg`, when the run allows; else 4 or 8 bytes, `.ca`),
// with the source size cut to the elements inside the tensor so that the
// rest is zero-filled; a run that is not 16-byte aligned at run time goes
// element by element (16-bit elements synchronously, since cp.async moves
// at least 4 bytes). Where the layout starts every thread's runs at
// multiples of the width, one branch per copy decides that for all of its
// runs. Commits and waits are cp.async.commit_group and
// cp.async.wait_group.
//
//===----------------------------------------------------------------------===//

#include "GlobalAccess.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

struct LocalBufferLowering : TileToGPUPattern<LocalBufferOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(LocalBufferOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    rewriter.replaceOp(op, allocatedShared(e, op));
    return success();
  }
};

struct BufferSlotLowering : TileToGPUPattern<BufferSlotOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(BufferSlotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    int64_t stride = getSlotStrideBytes(op.getBuffer().getType());
    Value bytes = e.mul(adaptor.getIndex().front(), e.i32(stride));
    Value slot = LLVM::GEPOp::create(rewriter, op.getLoc(),
                                     adaptor.getBuffer().front().getType(),
                                     rewriter.getI8Type(),
                                     adaptor.getBuffer().front(),
                                     ValueRange{bytes});
    rewriter.replaceOp(op, slot);
    return success();
  }
};

/// How the runs of one copy move: each by its own alignment, or all as
/// vectors, or all element by element.
enum class RunCopy { PerRun, Vector, Elements };

struct AsyncCopyLowering : TileToGPUPattern<AsyncCopyOp> {
  using TileToGPUPattern::TileToGPUPattern;

  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    auto slice = cast<TileType>(op.getSlice());
    DistributedLayout layout = layoutOf(slice);
    TensorParam tensor =
        e.tensor(op.getTensor().getType(), adaptor.getTensor());
    SliceAccess access = describeAccess(e, tensor, adaptor.getOffsets(),
                                        op.getPointAxes(), op.getInBounds(),
                                        layout);
    SharedMemoryType buffer = op.getDestination().getType();
    Value base = adaptor.getDestination().front();
    Value enable = optionalOperand(adaptor.getEnable());
    Type element = slice.getElementType();
    int64_t elementBytes = getElementBytes(element);

    // Registers contiguous in the tensor and in the buffer move together.
    auto shared = cast<SharedLayoutAttr>(buffer.getLayout());
    unsigned fast = shared.getOrder().front();
    int64_t axis, width;
    std::tie(axis, width) = vectorAxis(access, layout, element);
    if (axis != static_cast<int64_t>(fast)) {
      axis = -1;
      width = 1;
    } else {
      width = vectorWidth(layout, fast, element,
                          shared.getVectorUnit(buffer.getShape()));
    }

    // The runs: `width` registers along `axis` each (one register where
    // nothing is contiguous).
    SmallVector<SmallVector<int64_t, 4>> runStarts;
    SmallVector<bool> done(layout.numRegisters(), false);
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      if (done[reg])
        continue;
      SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
      SmallVector<int64_t, 4> member = q;
      for (int64_t k = 0; k < (axis < 0 ? 1 : width); ++k) {
        done[layout.registerIndex(member)] = true;
        if (axis >= 0)
          ++member[axis];
      }
      runStarts.push_back(std::move(q));
    }

    auto emitRuns = [&](RunCopy how) {
      for (ArrayRef<int64_t> q : runStarts) {
        int64_t reg = layout.registerIndex(q);
        GlobalRun run = globalRun(e, access, layout, q, axis < 0 ? 0 : axis,
                                  axis < 0 ? 1 : width);
        OpBuilder::InsertionGuard guard(rewriter);
        // Copies held by several threads are made by the canonical ones.
        if (Value canonical = e.isCanonical(layout, reg)) {
          auto branch =
              scf::IfOp::create(rewriter, e.loc, TypeRange{}, canonical, false);
          rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
        }
        Value destination = e.elementPointer(
            base, e.sharedIndex(buffer, e.coordinates(layout, reg)), element);
        if (run.registers.size() == 1)
          copyElement(e, tensor, run.elements.front(), destination, enable,
                      elementBytes);
        else if (how == RunCopy::Vector)
          copyVector(e, tensor, run, destination, enable, elementBytes);
        else if (how == RunCopy::Elements)
          copyElements(e, tensor, run, destination, enable, elementBytes);
        else
          copyRun(e, tensor, run, destination, enable, elementBytes);
      }
    };

    // Where every run is aligned together, one branch on that chooses
    // 16-byte copies for all of them or element-wise copies for all: a
    // branch per run kept both kinds of addresses live at once (the
    // general tf32 GEMMs of K 64 tiles spilled).
    if (Value aligned =
            width > 1 ? allRunsAligned(e, tensor, access, adaptor.getOffsets(),
                                       layout, axis, width)
                      : Value()) {
      auto branch = scf::IfOp::create(rewriter, e.loc, TypeRange{}, aligned,
                                      /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
      emitRuns(RunCopy::Vector);
      rewriter.setInsertionPointToStart(&branch.getElseRegion().front());
      emitRuns(RunCopy::Elements);
    } else {
      emitRuns(RunCopy::PerRun);
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// One element: a cp.async of its size (4 or 8 bytes) with the source
  /// size 0 outside the tensor, or, for 16-bit elements, a plain load and
  /// store.
  static void copyElement(ThreadEmitter &e, const TensorParam &tensor,
                          std::pair<Value, Value> element, Value destination,
                          Value enable, int64_t bytes) {
    auto [linear, inside] = element;
    inside = e.andI(inside, enable);
    if (bytes < 4) {
      Value value = maskedLoad(e, tensor, linear, inside);
      LLVM::StoreOp::create(e.b, e.loc, e.toMemory(value), destination);
      return;
    }
    Value source = globalPointer(e, tensor, linear);
    Value size = e.i32(bytes);
    if (inside) {
      // Outside: copy nothing (zero-fill) from an address that exists.
      source = e.select(inside, source, tensor.base);
      size = e.select(inside, size, e.i32(0));
    }
    NVVM::CpAsyncOp::create(e.b, e.loc, destination, source,
                            static_cast<uint32_t>(bytes),
                            NVVM::LoadCacheModifierKind::CA, size);
  }

  /// Whether every run of `width` registers along `axis` starts at an
  /// element index that is a multiple of `width`, as one predicate the
  /// whole CTA shares: the slice's offset along the contiguous axis and
  /// every other stride are multiples of the width (checked at run time),
  /// and each thread's runs start at multiples of it within the tile
  /// (checked here, from the layout). Null where the layout does not
  /// promise the latter.
  static Value allRunsAligned(ThreadEmitter &e, const TensorParam &tensor,
                              const SliceAccess &access,
                              ArrayRef<ValueRange> offsets,
                              const DistributedLayout &layout, int64_t axis,
                              int64_t width) {
    const AxisDistribution &dist = layout.axis(axis);
    auto multiple = [&](int64_t count, int64_t step) {
      return count <= 1 || step % width == 0;
    };
    if (dist.wraps || dist.innerStep != 1 || dist.inner % width ||
        !multiple(dist.outer, dist.outerStep) ||
        !multiple(dist.laneMod, dist.laneScale) ||
        !multiple(dist.warpMod, dist.warpScale) ||
        access.tileAxis.back() != axis)
      return Value();
    Value aligned = isMultipleOf(e, offsets.back().front(), width);
    for (Value stride : ArrayRef<Value>(tensor.strides).drop_back())
      aligned = e.andI(aligned, isMultipleOf(e, stride, width));
    return aligned;
  }

  /// A run of consecutive elements: one cp.async of up to 16 bytes whose
  /// source size counts the elements inside the tensor, when the run is
  /// aligned; else element by element.
  static void copyRun(ThreadEmitter &e, const TensorParam &tensor,
                      const GlobalRun &run, Value destination, Value enable,
                      int64_t elementBytes) {
    auto branch = scf::IfOp::create(e.b, e.loc, TypeRange{}, run.aligned,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(&branch.getThenRegion().front());
    copyVector(e, tensor, run, destination, enable, elementBytes);
    e.b.setInsertionPointToStart(&branch.getElseRegion().front());
    copyElements(e, tensor, run, destination, enable, elementBytes);
  }

  /// An aligned run: one cp.async whose source size counts the elements
  /// inside the tensor (they form a prefix of the run).
  static void copyVector(ThreadEmitter &e, const TensorParam &tensor,
                         const GlobalRun &run, Value destination, Value enable,
                         int64_t elementBytes) {
    int64_t bytes = run.registers.size() * elementBytes;
    Value valid = e.i32(0);
    for (auto &[linear, inside] : run.elements) {
      Value in = e.andI(inside, enable);
      valid = e.add(valid, in ? Value(arith::ExtUIOp::create(
                                    e.b, e.loc, e.b.getI32Type(), in))
                              : e.i32(1));
    }
    Value any = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::ne,
                                      valid, e.i32(0));
    Value source = e.select(
        any, globalPointer(e, tensor, run.elements.front().first), tensor.base);
    Value size = e.mul(valid, e.i32(elementBytes));
    NVVM::CpAsyncOp::create(e.b, e.loc, destination, source,
                            static_cast<uint32_t>(bytes),
                            bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                        : NVVM::LoadCacheModifierKind::CA,
                            size);
  }

  /// A run copied element by element.
  static void copyElements(ThreadEmitter &e, const TensorParam &tensor,
                           const GlobalRun &run, Value destination,
                           Value enable, int64_t elementBytes) {
    for (auto [k, element] : llvm::enumerate(run.elements)) {
      Value at = LLVM::GEPOp::create(
          e.b, e.loc, destination.getType(), e.memoryType(tensor.element),
          destination, ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)});
      copyElement(e, tensor, element, at, enable, elementBytes);
    }
  }
};

using AsyncCommitLowering =
    NullaryOpLowering<AsyncCommitOp, NVVM::CpAsyncCommitGroupOp>;

struct AsyncWaitLowering : TileToGPUPattern<AsyncWaitOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

} // namespace

void phobos::tile::populateAsyncCopyToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    TileLoweringState &state) {
  patterns.add<LocalBufferLowering, BufferSlotLowering, AsyncCopyLowering,
               AsyncCommitLowering, AsyncWaitLowering>(
      converter, patterns.getContext(), state);
}
