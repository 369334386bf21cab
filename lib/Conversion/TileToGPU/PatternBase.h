//===- PatternBase.h - What the TileToGPU patterns share --------*- C++ -*-===//
//
// convert-tile-to-gpu is a dialect conversion: a laid-out tile becomes the
// registers one thread holds of it (a 1:N type conversion, in the order
// DistributedLayout numbers them), a scalar stays itself, a global tensor
// becomes its pointer and dynamic extents, a shared-memory buffer its base
// pointer. One populate function per op family, each in its own file,
// adds the patterns; this private header is what they share:
//
// - KernelFrame: per gpu.func, the thread ids and the values cached in the
//   function's prologue (thread parts of layout coordinates, strides);
// - ThreadEmitter: the arithmetic every pattern builds (constants, layout
//   coordinates, masks, shared-memory pointers, NVPTX math);
// - TileToGPUPattern: OpConversionPattern with access to both.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_CONVERSION_TILETOGPU_PATTERNBASE_H
#define PHOBOS_LIB_CONVERSION_TILETOGPU_PATTERNBASE_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <array>
#include <map>

namespace phobos::tile {

using Regs = llvm::SmallVector<mlir::Value, 16>;

/// Per kernel (gpu.func): thread ids and prologue-cached values.
struct KernelFrame {
  mlir::Value tid, lane, warp; ///< i32
  mlir::Value sharedBase;      ///< !llvm.ptr<3>, the dynamic shared array
  unsigned numWarps = 1;
  int64_t scratchOffset = 0;
  /// Whether wgmma reads shared memory (the async proxy): every barrier
  /// then first fences the thread's generic-proxy writes for it.
  bool asyncProxyReads = false;
  /// Whether the kernel has a product on the FMA units (its accumulators
  /// leave few registers: masked loads there avoid predication).
  bool fmaDots = false;
  /// Values cached for the whole kernel are inserted before this op.
  mlir::Operation *prologueEnd = nullptr;
  std::map<std::array<int64_t, 6>, mlir::Value> threadBases;
  /// i64 element strides of each tensor parameter, by base pointer.
  llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value, 4>> strides;
  /// The tensor-map parameters (generic pointers to the CUtensorMaps), and
  /// which of them each TMA copy uses.
  llvm::SmallVector<mlir::Value> tensorMaps;
  llvm::DenseMap<mlir::Operation *, unsigned> tensorMapOf;
};

/// What the patterns of one conversion share.
class TileLoweringState {
public:
  TileLoweringState(mlir::gpu::GPUModuleOp gpuModule,
                    mlir::LLVM::GlobalOp sharedMemory, int64_t fmaKUnroll = 0,
                    int64_t wgmmaFragmentSteps = 0, bool vectorAtomics = false)
      : gpuModule(gpuModule), sharedMemory(sharedMemory),
        fmaKUnroll(fmaKUnroll), wgmmaFragmentSteps(wgmmaFragmentSteps),
        vectorAtomics(vectorAtomics) {}
  /// Where the kernels go.
  mlir::gpu::GPUModuleOp getGPUModule() const { return gpuModule; }
  /// The dynamic shared array every kernel uses.
  mlir::LLVM::GlobalOp getSharedMemory() const { return sharedMemory; }
  /// The frame of the gpu.func `op` is in.
  KernelFrame &frame(mlir::Operation *op);
  KernelFrame &newFrame(mlir::gpu::GPUFuncOp func) { return frames[func]; }
  /// Reduction steps per iteration of an FMA dot's K loop (0: unrolled).
  int64_t getFmaKUnroll() const { return fmaKUnroll; }
  /// k-steps of a swap_ab wgmma dot per group (0: all in one).
  int64_t getWgmmaFragmentSteps() const { return wgmmaFragmentSteps; }
  /// Whether f32 atomic additions may be vector `red`s (sm_90 and later).
  bool useVectorAtomics() const { return vectorAtomics; }

private:
  mlir::gpu::GPUModuleOp gpuModule;
  mlir::LLVM::GlobalOp sharedMemory;
  int64_t fmaKUnroll;
  int64_t wgmmaFragmentSteps;
  bool vectorAtomics;
  llvm::DenseMap<mlir::Operation *, KernelFrame> frames;
};

/// A tensor parameter as the kernel sees it.
struct TensorParam {
  mlir::Value base;                          ///< !llvm.ptr<1>
  llvm::SmallVector<mlir::Value, 4> dims;    ///< i32 extents
  llvm::SmallVector<mlir::Value, 4> strides; ///< i64 element strides
  mlir::Type element;
};

/// The layout of a laid-out tile type applied to its shape.
DistributedLayout layoutOf(mlir::Type tileType);

/// Elements of `type` a vector access of at most 16 bytes may move along
/// `axis` of `layout` (see DistributedLayout::vectorWidth; booleans: 1).
int64_t vectorWidth(const DistributedLayout &layout, unsigned axis,
                    mlir::Type element, int64_t rowLength = 0);

/// Builds the per-thread code of one op at the builder's insertion point.
/// The threads an op runs in: all of the launch, or one side of a
/// `phobos.warp_specialize` (lowered to a branch marked with
/// kRoleBranchAttrName whose then-region is the producer's).
enum class ThreadRole { All, Producer, Consumer };
inline constexpr llvm::StringLiteral kRoleBranchAttrName = "phobos.roles";
/// The role of the threads that run `op` (an op being lowered).
ThreadRole roleOf(mlir::Operation *op);

class ThreadEmitter {
public:
  ThreadEmitter(mlir::OpBuilder &b, mlir::Location loc, KernelFrame &frame,
                ThreadRole role = ThreadRole::All)
      : b(b), loc(loc), frame(frame), lane(frame.lane), warp(frame.warp),
        tid(frame.tid), role(role) {}

  mlir::OpBuilder &b;
  mlir::Location loc;
  KernelFrame &frame;
  mlir::Value lane, warp, tid;
  ThreadRole role;

  /// The first thread of the role's threads (i32): the producer warpgroup
  /// follows the consumers' `@launch` threads.
  mlir::Value firstThread();

  //===--- Constants and arithmetic ---------------------------------------===//
  mlir::Value i32(int64_t value);
  mlir::Value i64(int64_t value);
  mlir::Value i1(bool value);
  mlir::Value zero(mlir::Type type);
  mlir::Value floatConst(mlir::Type type, double value);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  /// Conjunction; a null operand means "true".
  mlir::Value andI(mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y);
  mlir::Value cmpLt(mlir::Value x, mlir::Value y); ///< signed
  /// Half-precision values compute in f32.
  mlir::Value widen(mlir::Value value);
  mlir::Value narrowTo(mlir::Value value, mlir::Type type);
  /// e^x, 2^x, log, log2, sqrt, rsqrt, tanh, |x| and -x of one element, on
  /// the NVPTX fast paths (ex2.approx, lg2.approx, rsqrt.approx, tanh.approx;
  /// no libdevice). Null for f64 exp, exp2, log, log2 and tanh, which have
  /// none.
  enum class MathFunction { Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Tanh, Abs, Neg };
  mlir::Value mathFunction(MathFunction function, mlir::Value x);
  /// 2^x of f16 registers two at a time: `ex2.approx.f16x2` (relative
  /// error about 2^-9.9; no conversions to and from f32, though sm_90 runs
  /// it as one MUFU.EX2.F16 per half) on each pair, and mathFunction's f32
  /// path for an odd last one.
  Regs halfExp2(mlir::ValueRange xs);

  //===--- Threads and layouts --------------------------------------------===//
  /// The thread-dependent part of `axis`'s raw coordinate (cached in the
  /// prologue).
  mlir::Value threadBase(const AxisDistribution &axis);
  /// The coordinate (i32) register index `q` of `axis` holds.
  mlir::Value coordinate(const AxisDistribution &axis, int64_t q);
  /// Whether register `q` of `axis` holds a canonical copy (raw < extent);
  /// null when it always does.
  mlir::Value canonical(const AxisDistribution &axis, int64_t q);
  /// All coordinates of register `reg`.
  llvm::SmallVector<mlir::Value, 4> coordinates(const DistributedLayout &layout,
                                                int64_t reg);
  /// Row-major linear index (i32) of `coords` in `shape`.
  mlir::Value linearIndex(llvm::ArrayRef<int64_t> shape,
                          llvm::ArrayRef<mlir::Value> coords);
  /// Conjunction of the per-axis canonical flags of `reg` (null: always).
  mlir::Value isCanonical(const DistributedLayout &layout, int64_t reg);
  /// A butterfly shuffle (`shfl.sync.bfly`, all lanes) of a 32- or 64-bit
  /// value: the value of lane `lane ^ mask`.
  mlir::Value shuffleXor(mlir::Value value, int64_t mask);
  /// The register of an operand (of type `operandType`, a layout
  /// compatible with `result`'s, of equal or lower rank, extents equal or
  /// 1; `values` its registers) that holds what broadcasts to register
  /// `reg` of `result`. A scalar operand is its one value.
  mlir::Value broadcastOperand(mlir::Type operandType, mlir::ValueRange values,
                               const DistributedLayout &result, int64_t reg);

  //===--- Memory ---------------------------------------------------------===//
  /// The tensor parameter of `type` whose converted values are `values`
  /// (base pointer, then one i32 per dynamic extent).
  TensorParam tensor(mlir::Type type, mlir::ValueRange values);
  /// `base` (a !llvm.ptr<3>) plus `byteOffset` bytes.
  mlir::Value offsetShared(mlir::Value base, int64_t byteOffset);
  /// A pointer to element `elementIndex` of `element`s from `base`.
  mlir::Value elementPointer(mlir::Value base, mlir::Value elementIndex,
                             mlir::Type element);
  /// The element index (i32) of `coords` in a buffer (or one slot of a
  /// staged buffer) of `type`, as its shared layout places it.
  mlir::Value sharedIndex(SharedMemoryType type, llvm::ArrayRef<mlir::Value> coords);
  /// A pointer into the scratch region.
  mlir::Value scratchPointer(mlir::Value elementIndex, mlir::Type element);
  /// `bar.sync 0`: inside an op that exchanges data through scratch,
  /// between its writes and its reads. Barriers between ops come from
  /// tile-insert-barriers. In the consumers of a warp_specialize, named
  /// barrier 1 over their threads (the producer never arrives).
  void barrier();
  /// The memory type of an element (i1 is stored as i8).
  mlir::Type memoryType(mlir::Type element);
  mlir::Value toMemory(mlir::Value value);
  mlir::Value fromMemory(mlir::Value value, mlir::Type element);
  /// Stores `value` where `predicate` holds (always when null), with
  /// `alignment` bytes (0: the type's).
  void predicatedStore(mlir::Value predicate, mlir::Value value,
                       mlir::Value pointer, unsigned alignment = 0);
  /// The registers `registers` of `values` as one vector.
  mlir::Value packVector(mlir::ValueRange values,
                         llvm::ArrayRef<int64_t> registers, mlir::Type element);
};

/// The base of the patterns: an OpConversionPattern that can emit
/// per-thread code for its op.
template <typename SourceOp>
class TileToGPUPattern : public mlir::OpConversionPattern<SourceOp> {
public:
  TileToGPUPattern(const mlir::TypeConverter &converter,
                   mlir::MLIRContext *context, TileLoweringState &state)
      : mlir::OpConversionPattern<SourceOp>(converter, context),
        state(state) {}

protected:
  ThreadEmitter emitter(mlir::Operation *op, mlir::OpBuilder &builder) const {
    return ThreadEmitter(builder, op->getLoc(), state.frame(op), roleOf(op));
  }
  TileLoweringState &state;
};

/// An op that becomes one `TargetOp` with no operands and no results
/// (`return`, `async_commit`).
template <typename SourceOp, typename TargetOp>
struct NullaryOpLowering : TileToGPUPattern<SourceOp> {
  using TileToGPUPattern<SourceOp>::TileToGPUPattern;
  mlir::LogicalResult
  matchAndRewrite(
      SourceOp op,
      typename mlir::OpConversionPattern<SourceOp>::OneToNOpAdaptor,
      mlir::ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<TargetOp>(op);
    return mlir::success();
  }
};

/// The value of an optional operand (`enable`); null when it is absent.
inline mlir::Value optionalOperand(mlir::ValueRange operand) {
  return operand.empty() ? mlir::Value() : operand.front();
}

/// Where an op the shared-memory allocator placed (`local_alloc`,
/// `local_buffer`, `local_barriers`) starts: the dynamic shared array plus
/// the op's offset (0 when it has none).
template <typename AllocOp>
mlir::Value allocatedShared(ThreadEmitter &e, AllocOp op) {
  return e.offsetShared(e.frame.sharedBase, op.getOffset().value_or(0));
}

/// Replaces the single tile result of `op` with its registers.
inline void replaceWithRegisters(mlir::ConversionPatternRewriter &rewriter,
                                 mlir::Operation *op, mlir::ValueRange values) {
  llvm::SmallVector<llvm::SmallVector<mlir::Value>> replacement;
  replacement.emplace_back(values.begin(), values.end());
  rewriter.replaceOpWithMultiple(op, std::move(replacement));
}

//===----------------------------------------------------------------------===//
// The op families (one file each)
//===----------------------------------------------------------------------===//

/// KernelToGPU.cpp: `phobos.kernel` to `gpu.func`, `return`, `block_id`,
/// `grid_dim`, `dim`, `barrier`.
void populateKernelToGPUPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 TileLoweringState &state);
/// MemoryToGPU.cpp: `load`, `store`, `load_scalar`, `store_scalar`.
void populateMemoryToGPUPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 TileLoweringState &state);
/// ComputeToGPU.cpp: element-wise tile ops and scalar math.
void populateComputeToGPUPatterns(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  TileLoweringState &state);
/// ReductionToGPU.cpp: `reduce`, `cumsum`.
void populateReductionToGPUPatterns(const mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    TileLoweringState &state);
/// SharedMemoryToGPU.cpp: `local_alloc`, `local_load`, `convert_layout`,
/// `transpose`, `reshape`.
void populateSharedMemoryToGPUPatterns(const mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       TileLoweringState &state);
/// AsyncCopyToGPU.cpp: `local_buffer`, `buffer_slot`, `async_copy`,
/// `async_commit`, `async_wait` (cp.async).
void populateAsyncCopyToGPUPatterns(const mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    TileLoweringState &state);
/// TmaToGPU.cpp: `local_barriers`, `tma_copy`, `mbarrier_wait` (TMA and
/// mbarriers).
void populateTmaToGPUPatterns(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns,
                              TileLoweringState &state);
/// DotToGPU.cpp: `dot` on FMA micro-tiles and on mma.sync.
void populateDotToGPUPatterns(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns,
                              TileLoweringState &state);

/// AtomicToGPU.cpp: `atomic_add`.
void populateAtomicToGPUPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 TileLoweringState &state);

} // namespace phobos::tile

#endif // PHOBOS_LIB_CONVERSION_TILETOGPU_PATTERNBASE_H
