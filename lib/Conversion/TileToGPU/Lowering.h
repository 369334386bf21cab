//===- Lowering.h - State of lowering one kernel to per-thread code -*- C++ -*-===//
//
// The lowering walks a laid-out `phobos.kernel` op by op and emits, into a
// `gpu.func`, the code one thread runs: each tile value becomes the
// registers the thread holds of it (`Regs`, in the order DistributedLayout
// numbers them), each scalar its one value. Op families are lowered in
// their own files; this header is what they share.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_CONVERSION_TILETOGPU_LOWERING_H
#define PHOBOS_LIB_CONVERSION_TILETOGPU_LOWERING_H

#include "DistributedLayout.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <map>

namespace phobos::tile {

using Regs = llvm::SmallVector<mlir::Value, 16>;

/// A tensor parameter as the kernel sees it.
struct TensorParam {
  mlir::Value base;                           ///< !llvm.ptr<1>
  llvm::SmallVector<mlir::Value, 4> dims;     ///< i32 extents
  llvm::SmallVector<mlir::Value, 4> strides;  ///< i64 element strides
  mlir::Type element;
};

class Lowering {
public:
  Lowering(KernelOp kernel, mlir::gpu::GPUFuncOp func,
           mlir::LLVM::GlobalOp sharedMemory);

  /// Lowers the kernel body; false after reporting an error.
  bool run();

  //===--- Values ---------------------------------------------------------===//
  mlir::OpBuilder b;
  mlir::Location loc;
  KernelOp kernel;
  unsigned numWarps;

  const Regs &regs(mlir::Value tile) { return tiles[tile]; }
  void setRegs(mlir::Value tile, Regs values) { tiles[tile] = std::move(values); }
  mlir::Value scalar(mlir::Value value) { return mapping.lookup(value); }
  void setScalar(mlir::Value from, mlir::Value to) { mapping.map(from, to); }
  const TensorParam &tensor(mlir::Value value) { return tensors[value]; }

  DistributedLayout layoutOf(mlir::Type tileType) const;

  //===--- Constants and arithmetic ---------------------------------------===//
  mlir::Value i32(int64_t value);
  mlir::Value i64(int64_t value);
  mlir::Value i1(bool value);
  mlir::Value zero(mlir::Type type);
  mlir::Value floatConst(mlir::Type type, double value);
  mlir::Value add(mlir::Value a, mlir::Value b);
  mlir::Value mul(mlir::Value a, mlir::Value b);
  mlir::Value andI(mlir::Value a, mlir::Value b);
  mlir::Value select(mlir::Value c, mlir::Value a, mlir::Value b);
  mlir::Value cmpLt(mlir::Value a, mlir::Value b); ///< signed
  /// e^x, log, sqrt, rsqrt, |x| and -x of one element, on the NVPTX fast
  /// paths (ex2.approx, lg2.approx, rsqrt.approx; no libdevice). Null
  /// after an error (f64 exp/log).
  enum class MathFunction { Exp, Log, Sqrt, Rsqrt, Abs, Neg };
  mlir::Value mathFunction(MathFunction function, mlir::Value x);
  /// Half-precision values compute in f32.
  mlir::Value widen(mlir::Value value);
  mlir::Value narrowTo(mlir::Value value, mlir::Type type);

  //===--- Threads and layouts --------------------------------------------===//
  mlir::Value lane, warp, tid;
  /// The thread-dependent part of `axis`'s raw coordinate (cached).
  mlir::Value threadBase(const AxisDistribution &axis);
  /// The coordinate (i32) register index `q` of `axis` holds.
  mlir::Value coordinate(const AxisDistribution &axis, int64_t q);
  /// Whether register `q` of `axis` holds a canonical copy (raw < extent);
  /// null when it always does.
  mlir::Value canonical(const AxisDistribution &axis, int64_t q);
  /// All coordinates of register `reg`.
  llvm::SmallVector<mlir::Value, 4> coordinates(const DistributedLayout &layout,
                                                int64_t reg);
  /// Conjunction of the per-axis canonical flags of `reg` (null: always).
  mlir::Value isCanonical(const DistributedLayout &layout, int64_t reg);
  /// The register of `operand` (in a layout compatible with `result`'s, of
  /// equal or lower rank, extents equal or 1) that holds what broadcasts to
  /// register `reg` of `result`; a scalar operand is returned as is.
  mlir::Value broadcastOperand(mlir::Value operand,
                               const DistributedLayout &result, int64_t reg);

  //===--- Shared memory --------------------------------------------------===//
  /// A pointer into the dynamic shared memory: `byteOffset` plus
  /// `elementIndex` elements of `element` (bool as i8).
  mlir::Value sharedPointer(int64_t byteOffset, mlir::Value elementIndex,
                            mlir::Type element);
  int64_t scratchOffset = 0;
  /// Barrier bookkeeping: shared memory written / read since the last
  /// barrier. Region boundaries reset both to "maybe".
  bool sharedWritten = true, sharedRead = true;
  void barrier();
  /// A write needs a barrier only after reads (write-after-read): ops
  /// write distinct elements, and a place written twice is always read in
  /// between.
  void beforeSharedWrite() {
    if (sharedRead)
      barrier();
    sharedWritten = true;
  }
  void beforeSharedRead() {
    if (sharedWritten)
      barrier();
    sharedRead = true;
  }

  /// The memory type of an element (i1 is stored as i8).
  mlir::Type memoryType(mlir::Type element);
  mlir::Value toMemory(mlir::Value value);
  mlir::Value fromMemory(mlir::Value value, mlir::Type element);

  bool fail(mlir::Operation *op, const llvm::Twine &message);

  //===--- Op families (one file each) ------------------------------------===//
  bool lowerMemory(mlir::Operation *op);      // LowerMemory.cpp
  bool lowerCompute(mlir::Operation *op);     // LowerCompute.cpp
  bool lowerThroughShared(mlir::Operation *op); // LowerShared.cpp
  bool lowerDot(DotOp op);                    // LowerDot.cpp

private:
  bool lowerBlock(mlir::Block &block);
  bool lowerOp(mlir::Operation *op);
  bool lowerScalar(mlir::Operation *op);
  bool lowerFor(mlir::scf::ForOp op);
  bool lowerWhile(mlir::scf::WhileOp op);
  bool lowerIf(mlir::scf::IfOp op);
  /// Flattens the registers and scalars `values` stand for.
  llvm::SmallVector<mlir::Value> flatten(mlir::ValueRange values);
  llvm::SmallVector<mlir::Type> flatTypes(mlir::TypeRange types);
  /// Binds `values` (source) to consecutive entries of `flat`.
  void bindFlat(mlir::ValueRange values, mlir::ValueRange flat);

  mlir::gpu::GPUFuncOp func;
  mlir::LLVM::GlobalOp sharedMemory;
  mlir::Operation *prologueEnd = nullptr;
  llvm::DenseMap<mlir::Value, Regs> tiles;
  mlir::IRMapping mapping;
  llvm::DenseMap<mlir::Value, TensorParam> tensors;
  std::map<std::array<int64_t, 6>, mlir::Value> threadBases;
  mlir::Value sharedBase;
  bool failed = false;
};

} // namespace phobos::tile

#endif // PHOBOS_LIB_CONVERSION_TILETOGPU_LOWERING_H
