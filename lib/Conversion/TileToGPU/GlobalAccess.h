//===- GlobalAccess.h - Per-thread addressing of tensor slices --*- C++ -*-===//
//
// How a thread's registers of a laid-out tile map to the elements of a
// tensor slice: each register's i64 linear index and in-bounds flag, runs
// of registers that one vector access can move, masked loads. Shared by
// loads, stores and asynchronous copies.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_CONVERSION_TILETOGPU_GLOBALACCESS_H
#define PHOBOS_LIB_CONVERSION_TILETOGPU_GLOBALACCESS_H

#include "PatternBase.h"

namespace phobos::tile {

/// How one slice access maps registers to tensor elements.
struct SliceAccess {
  /// Per tensor axis: the tile axis it follows, or -1 for a point axis.
  llvm::SmallVector<int64_t, 4> tileAxis;
  /// Per tile axis and register index along it: the i64 contribution to
  /// the linear index and the in-bounds flag (null: always inside).
  llvm::SmallVector<llvm::SmallVector<mlir::Value>, 4> contribution, inside;
  /// The point axes' contribution and flag.
  mlir::Value pointContribution, pointInside;
};

SliceAccess describeAccess(ThreadEmitter &e, const TensorParam &tensor,
                           llvm::ArrayRef<mlir::ValueRange> offsets,
                           llvm::ArrayRef<int64_t> pointAxes,
                           std::optional<llvm::ArrayRef<bool>> inBounds,
                           const DistributedLayout &layout);

/// The linear index and in-bounds flag (null: always) of register `q`
/// (per-axis indices).
std::pair<mlir::Value, mlir::Value> elementAt(ThreadEmitter &e,
                                              const SliceAccess &access,
                                              llvm::ArrayRef<int64_t> q);

/// The tile axis that runs along the tensor's contiguous (last) axis and
/// the vector width its registers allow, or {-1, 1}.
std::pair<int64_t, int64_t> vectorAxis(const SliceAccess &access,
                                       const DistributedLayout &layout,
                                       mlir::Type element);

/// One `width`-element vector access of global memory: its registers, each
/// element's (linear index, in bounds), and whether the whole vector is in
/// bounds and aligned, so that one vector instruction may move it.
struct GlobalRun {
  llvm::SmallVector<int64_t, 8> registers;
  llvm::SmallVector<std::pair<mlir::Value, mlir::Value>, 8> elements;
  mlir::Value whole;
  /// Only the alignment part of `whole`.
  mlir::Value aligned;
  /// Whether the run is aligned and its elements are all inside or all
  /// outside together (the contiguous extent and every other stride are
  /// multiples of the width), so that the first element's flag masks one
  /// vector access. LLVM folds it to true where @aligned promises that.
  /// Null when nothing is masked.
  mlir::Value uniform;
};

GlobalRun globalRun(ThreadEmitter &e, const SliceAccess &access,
                    const DistributedLayout &layout, llvm::ArrayRef<int64_t> q,
                    int64_t axis, int64_t width);

/// globalRun, with `uniform` set from the tensor's extents and strides.
GlobalRun globalRun(ThreadEmitter &e, const TensorParam &tensor,
                    const SliceAccess &access, const DistributedLayout &layout,
                    llvm::ArrayRef<int64_t> q, int64_t axis, int64_t width);

/// Walks a thread's registers of a written slice (a store, an atomic
/// addition): `element(reg, canonical)` for each register on its own,
/// `run(run, canonical)` for each `width`-register run along `vecAxis`
/// (every register on its own when `vecAxis` < 0). `canonical` says whether
/// this thread holds the canonical copy (null: always), so that copies
/// held by several threads are written once.
void forEachWrite(
    ThreadEmitter &e, const TensorParam &tensor, const SliceAccess &access,
    const DistributedLayout &layout, int64_t vecAxis, int64_t width,
    llvm::function_ref<void(int64_t reg, mlir::Value canonical)> element,
    llvm::function_ref<void(const GlobalRun &run, mlir::Value canonical)>
        run);

mlir::Value globalPointer(ThreadEmitter &e, const TensorParam &tensor,
                          mlir::Value linear);

/// Whether the integer `value` is a multiple of `width` (a power of two).
mlir::Value isMultipleOf(ThreadEmitter &e, mlir::Value value, int64_t width);

/// A load that reads zero where `inside` is false (the address is moved to
/// the tensor's first element, which always exists).
mlir::Value maskedLoad(ThreadEmitter &e, const TensorParam &tensor,
                       mlir::Value linear, mlir::Value inside);

} // namespace phobos::tile

#endif // PHOBOS_LIB_CONVERSION_TILETOGPU_GLOBALACCESS_H
