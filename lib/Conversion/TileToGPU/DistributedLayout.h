//===- DistributedLayout.h - Who holds which element, per axis --*- C++ -*-===//
//
// Every tile layout Phobos uses (blocked, mma, slices of them) has the same
// shape per axis: the coordinate a thread's register holds along an axis is
//
//   raw = ((lane / laneDiv) % laneMod) * laneScale
//       + ((warp / warpDiv) % warpMod) * warpScale
//       + (q / inner) * outerStep + (q % inner) * innerStep
//
// for the register's index q along that axis (0 <= q < outer * inner), and
// the element is raw mod extent (positions past the extent wrap, so the
// thread holds a copy: broadcasting and small tiles need no special case).
// A register is "canonical" where raw < extent on every axis; only those
// are stored and reduced. Registers are numbered row-major over all the
// axes' outer indices, then all their inner indices, which makes an
// mma.sync fragment's four values consecutive.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_CONVERSION_TILETOGPU_DISTRIBUTEDLAYOUT_H
#define PHOBOS_LIB_CONVERSION_TILETOGPU_DISTRIBUTEDLAYOUT_H

#include "mlir/IR/Attributes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace phobos::tile {

struct AxisDistribution {
  int64_t extent = 1;
  int64_t outer = 1, inner = 1;
  int64_t outerStep = 1, innerStep = 1;
  int64_t laneDiv = 1, laneMod = 1, laneScale = 0;
  int64_t warpDiv = 1, warpMod = 1, warpScale = 0;
  /// Some register holds a raw coordinate at or past the extent.
  bool wraps = false;

  int64_t registers() const { return outer * inner; }
  int64_t constOffset(int64_t q) const {
    return (q / inner) * outerStep + (q % inner) * innerStep;
  }
};

class DistributedLayout {
public:
  /// The distribution of `layout` over a tile of `shape`; `numWarps` is the
  /// CTA's warp count.
  DistributedLayout(mlir::Attribute layout, llvm::ArrayRef<int64_t> shape,
                    unsigned numWarps);

  unsigned getRank() const { return axes.size(); }
  const AxisDistribution &axis(unsigned index) const { return axes[index]; }
  int64_t numRegisters() const { return registers; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }

  /// Register number of per-axis indices, and back.
  int64_t registerIndex(llvm::ArrayRef<int64_t> perAxis) const;
  llvm::SmallVector<int64_t, 4> perAxisIndices(int64_t reg) const;

private:
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<AxisDistribution, 4> axes;
  int64_t registers = 1;
};

} // namespace phobos::tile

#endif // PHOBOS_LIB_CONVERSION_TILETOGPU_DISTRIBUTEDLAYOUT_H
