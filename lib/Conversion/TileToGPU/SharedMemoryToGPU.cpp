//===- SharedMemoryToGPU.cpp - Buffers and layout changes -----------------===//
//
// `local_alloc` stores a tile into its buffer (at the offset
// tile-allocate-shared gave it; the buffer value becomes its base pointer),
// `local_store` into a pipeline's slot, and `local_load` reads one back. Layout
// conversions, reshapes and transposes write each canonical register to the
// scratch region at the element's row-major position, wait at a barrier of
// their own, and read back what the result layout needs. Barriers between ops
// come from tile-insert-barriers.
//
//===----------------------------------------------------------------------===//

#include "PatternBase.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

/// The registers of a thread run of `width` along `axis` from per-axis
/// indices `q`.
SmallVector<int64_t, 8> runRegisters(const DistributedLayout &layout,
                                     ArrayRef<int64_t> q, int64_t axis,
                                     int64_t width) {
  SmallVector<int64_t, 8> registers;
  SmallVector<int64_t, 4> qk(q.begin(), q.end());
  for (int64_t k = 0; k < width; ++k, ++qk[axis])
    registers.push_back(layout.registerIndex(qk));
  return registers;
}

/// Stores the registers `values` of a tile in `layout` into the buffer of
/// `type` at `base`: registers consecutive along the buffer's contiguous
/// axis as one vector of up to 16 bytes.
void storeToShared(ThreadEmitter &e, const DistributedLayout &layout,
                   ValueRange values, SharedMemoryType type, Value base) {
  auto shared = cast<SharedLayoutAttr>(type.getLayout());
  unsigned fast = shared.getOrder().front();
  Type element = type.getElementType();
  int64_t width =
      vectorWidth(layout, fast, element, shared.getVectorUnit(type.getShape()));
  SmallVector<bool> done(layout.numRegisters(), false);
  for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
    if (done[reg])
      continue;
    SmallVector<int64_t, 8> run =
        runRegisters(layout, layout.perAxisIndices(reg), fast, width);
    for (int64_t member : run)
      done[member] = true;
    Value value = width == 1 ? e.toMemory(values[reg])
                             : e.packVector(values, run, element);
    e.predicatedStore(
        e.isCanonical(layout, reg), value,
        e.elementPointer(base, e.sharedIndex(type, e.coordinates(layout, reg)),
                         element),
        width == 1 ? 0
                   : static_cast<unsigned>(width * getElementBytes(element)));
  }
}

struct LocalAllocLowering : TileToGPUPattern<LocalAllocOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    Value base = allocatedShared(e, op);
    storeToShared(e, layoutOf(op.getSource().getType()), adaptor.getSource(),
                  op.getType(), base);
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct LocalStoreLowering : TileToGPUPattern<LocalStoreOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    storeToShared(e, layoutOf(op.getValue().getType()), adaptor.getValue(),
                  op.getDestination().getType(),
                  adaptor.getDestination().front());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalLoadLowering : TileToGPUPattern<LocalLoadOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    DistributedLayout layout = layoutOf(op.getType());
    SharedMemoryType type = op.getSource().getType();
    Value base = adaptor.getSource().front();
    Type element = type.getElementType();
    // Registers consecutive along the buffer's contiguous axis load as one
    // vector of up to 16 bytes (as storeToShared stores them).
    auto shared = cast<SharedLayoutAttr>(type.getLayout());
    unsigned fast = shared.getOrder().front();
    int64_t width =
        vectorWidth(layout, fast, element, shared.getVectorUnit(type.getShape()));
    Regs values(layout.numRegisters());
    SmallVector<bool> done(layout.numRegisters(), false);
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      if (done[reg])
        continue;
      Value pointer = e.elementPointer(
          base, e.sharedIndex(type, e.coordinates(layout, reg)), element);
      if (width == 1 || element.isInteger(1)) {
        done[reg] = true;
        values[reg] = e.fromMemory(
            LLVM::LoadOp::create(e.b, e.loc, e.memoryType(element), pointer),
            element);
        continue;
      }
      SmallVector<int64_t, 8> run =
          runRegisters(layout, layout.perAxisIndices(reg), fast, width);
      auto vectorType = VectorType::get({width}, e.memoryType(element));
      Value vector = LLVM::LoadOp::create(
          e.b, e.loc, vectorType, pointer,
          static_cast<unsigned>(width * getElementBytes(element)));
      for (auto [i, member] : llvm::enumerate(run)) {
        done[member] = true;
        values[member] = e.fromMemory(
            LLVM::ExtractElementOp::create(e.b, e.loc, vector,
                                           e.i32(static_cast<int64_t>(i))),
            element);
      }
    }
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

/// Moves `source` (registers of `sourceType`) into registers of
/// `resultType` through the scratch region; `remap` turns a source
/// element's coordinates into the result's.
Regs throughScratch(
    ThreadEmitter &e, ValueRange source, TileType sourceType,
    TileType resultType,
    function_ref<SmallVector<Value, 4>(ArrayRef<Value>)> remap) {
  DistributedLayout from = layoutOf(sourceType);
  DistributedLayout to = layoutOf(resultType);
  Type element = sourceType.getElementType();
  for (int64_t reg = 0; reg < from.numRegisters(); ++reg) {
    SmallVector<Value, 4> coords = remap(e.coordinates(from, reg));
    Value pointer = e.scratchPointer(
        e.linearIndex(resultType.getShape(), coords), element);
    e.predicatedStore(e.isCanonical(from, reg), e.toMemory(source[reg]),
                      pointer);
  }
  e.barrier();
  Regs result;
  for (int64_t reg = 0; reg < to.numRegisters(); ++reg) {
    Value pointer = e.scratchPointer(
        e.linearIndex(resultType.getShape(), e.coordinates(to, reg)), element);
    result.push_back(e.fromMemory(
        LLVM::LoadOp::create(e.b, e.loc, e.memoryType(element), pointer),
        element));
  }
  return result;
}

/// convert_layout, transpose and reshape: a round trip through scratch.
template <typename Op>
struct ThroughScratchLowering : TileToGPUPattern<Op> {
  using TileToGPUPattern<Op>::TileToGPUPattern;
  using OneToNOpAdaptor = typename TileToGPUPattern<Op>::OneToNOpAdaptor;
  LogicalResult
  matchAndRewrite(Op op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = this->emitter(op, rewriter);
    // Every thread holds what it needs already: registers renamed, as
    // getScratchBytes (0 for such an op: no scratch, no barrier) assumed.
    if (std::optional<SmallVector<int64_t>> permutation =
            getRegisterPermutation(op, e.frame.numWarps)) {
      ValueRange source = adaptor.getOperands()[0];
      Regs result;
      for (int64_t reg : *permutation)
        result.push_back(source[reg]);
      replaceWithRegisters(rewriter, op, result);
      return success();
    }
    auto sourceType = cast<TileType>(op->getOperand(0).getType());
    auto resultType = cast<TileType>(op->getResult(0).getType());
    auto remap = [&](ArrayRef<Value> coords) -> SmallVector<Value, 4> {
      if constexpr (std::is_same_v<Op, TransposeOp>) {
        return {coords[1], coords[0]};
      } else if constexpr (std::is_same_v<Op, ReshapeOp>) {
        // The same row-major position in the new shape.
        Value linear = e.linearIndex(sourceType.getShape(), coords);
        SmallVector<Value, 4> result(resultType.getRank());
        for (int64_t a = resultType.getRank(); a-- > 0;) {
          int64_t extent = resultType.getDimSize(a);
          result[a] = arith::RemUIOp::create(e.b, e.loc, linear, e.i32(extent));
          linear = arith::DivUIOp::create(e.b, e.loc, linear, e.i32(extent));
        }
        return result;
      } else {
        return SmallVector<Value, 4>(coords.begin(), coords.end());
      }
    };
    replaceWithRegisters(rewriter, op,
                         throughScratch(e, adaptor.getOperands()[0], sourceType,
                                        resultType, remap));
    return success();
  }
};

} // namespace

void phobos::tile::populateSharedMemoryToGPUPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    TileLoweringState &state) {
  patterns.add<LocalAllocLowering, LocalStoreLowering, LocalLoadLowering,
               ThroughScratchLowering<ConvertLayoutOp>,
               ThroughScratchLowering<TransposeOp>,
               ThroughScratchLowering<ReshapeOp>>(converter,
                                                  patterns.getContext(), state);
}
