//===- SliceAnalysis.h - Facts about slice accesses -------------*- C++ -*-===//
//
// What the mask passes need to know about a load or store: the source name
// of each tensor axis's dim, the tile extent along it, and the @aligned
// promises of the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_SLICEANALYSIS_H
#define PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_SLICEANALYSIS_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/StringMap.h"

namespace phobos::tile {

/// A load or store seen per tensor axis.
struct SliceAccess {
  mlir::Operation *op = nullptr;
  GlobalTensorType tensor;
  llvm::SmallVector<mlir::Value, 4> offsets;
  /// The extent the access covers along each tensor axis (1 for a point).
  llvm::SmallVector<int64_t, 4> extents;
  /// The source name of each tensor axis's dim ("" when unknown).
  llvm::SmallVector<std::string, 4> dimNames;
  llvm::SmallVector<bool, 4> inBounds;

  static std::optional<SliceAccess> get(mlir::Operation *op);
  /// Writes `inBounds` back to the op.
  void store() const;
};

/// The source name of the dim a `phobos.dim` reads ("" when unknown).
std::string dimName(DimOp dim);

/// `@aligned` promises: dim name -> multiple.
llvm::StringMap<int64_t> alignedDims(KernelOp kernel);

/// Folds the bound checks `iv + arange(E) < bound` (or `bound > ...`, E <=
/// the step; the columns or, reshaped to [E, 1], the rows) in `loop`'s own
/// body to true, for a caller that proved `iv + step <= bound` on every
/// iteration: each becomes a fill of true, which the canonicalizer folds
/// into the `where`s and `and`s that use it. Returns how many it folded.
unsigned foldBoundChecks(mlir::scf::ForOp loop, mlir::Value bound,
                         int64_t step);

} // namespace phobos::tile

#endif // PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_SLICEANALYSIS_H
