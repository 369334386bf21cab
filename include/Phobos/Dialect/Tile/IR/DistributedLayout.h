//===- DistributedLayout.h - Who holds which element of a tile --*- C++ -*-===//
//
// What a register layout means, in one form every layout kind reduces to.
// Along each axis, the coordinate a thread's register holds is
//
//   raw = ((lane / laneDiv) % laneMod) * laneScale
//       + ((warp / warpDiv) % warpMod) * warpScale
//       + (q / inner) * outerStep + (q % inner) * innerStep
//
// for the register's index q along that axis (0 <= q < outer * inner), and
// the element is raw mod extent: positions past the extent wrap, so the
// thread holds a copy (broadcasting and small tiles need no special case).
// A register is "canonical" where raw < extent on every axis; only those are
// stored and reduced. Registers are numbered row-major over all the axes'
// outer indices, then all their inner indices, which makes an mma.sync
// fragment's four values consecutive.
//
// Each layout attribute computes its axes through
// DistributedLayoutInterface::getAxisDistributions; everything else (owner
// queries, register numbering, vector widths) is defined here once.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_DISTRIBUTEDLAYOUT_H
#define PHOBOS_DIALECT_TILE_IR_DISTRIBUTEDLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace phobos::tile {

/// How one axis of a tile is spread over lanes, warps and registers.
struct AxisDistribution {
  int64_t extent = 1;
  int64_t outer = 1, inner = 1;
  int64_t outerStep = 1, innerStep = 1;
  int64_t laneDiv = 1, laneMod = 1, laneScale = 0;
  int64_t warpDiv = 1, warpMod = 1, warpScale = 0;
  /// Some register holds a raw coordinate at or past the extent.
  bool wraps = false;

  int64_t registers() const { return outer * inner; }
  /// The register-dependent part of the raw coordinate of index `q`.
  int64_t constOffset(int64_t q) const {
    return (q / inner) * outerStep + (q % inner) * innerStep;
  }
  /// The thread-dependent part of the raw coordinate.
  int64_t threadOffset(int64_t warp, int64_t lane) const {
    return ((lane / laneDiv) % laneMod) * laneScale +
           ((warp / warpDiv) % warpMod) * warpScale;
  }
  /// The largest raw coordinate any register reaches.
  int64_t maxRaw() const {
    return (outer - 1) * outerStep + (inner - 1) * innerStep +
           (laneMod - 1) * laneScale + (warpMod - 1) * warpScale;
  }
};

/// One register of one thread.
struct RegisterOwner {
  int64_t warp = 0, lane = 0, reg = 0;
  /// The register holds the element at its raw position (not a wrapped
  /// copy).
  bool canonical = false;
  bool operator==(const RegisterOwner &other) const {
    return warp == other.warp && lane == other.lane && reg == other.reg &&
           canonical == other.canonical;
  }
};

/// A layout applied to a tile shape.
class DistributedLayout {
public:
  /// `axes` as a layout computes them for `shape`; fills in `wraps`.
  DistributedLayout(llvm::ArrayRef<int64_t> shape,
                    llvm::SmallVector<AxisDistribution, 4> axes);

  unsigned getRank() const { return axes.size(); }
  const AxisDistribution &axis(unsigned index) const { return axes[index]; }
  llvm::ArrayRef<AxisDistribution> getAxes() const { return axes; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  /// Registers each thread holds.
  int64_t numRegisters() const { return registers; }

  /// Register number of per-axis indices, and back.
  int64_t registerIndex(llvm::ArrayRef<int64_t> perAxis) const;
  llvm::SmallVector<int64_t, 4> perAxisIndices(int64_t reg) const;

  /// The element register `reg` of (`warp`, `lane`) holds; `canonical`
  /// (if given) says whether it is that element's canonical copy.
  llvm::SmallVector<int64_t, 4> elementOf(int64_t warp, int64_t lane,
                                          int64_t reg,
                                          bool *canonical = nullptr) const;

  /// Every register of a CTA of `numWarps` warps that holds `coords`
  /// (canonical or copy), ordered by warp, lane, register.
  llvm::SmallVector<RegisterOwner> owners(llvm::ArrayRef<int64_t> coords,
                                          int64_t numWarps) const;

  /// How many of a thread's registers along `axis` one access of at most
  /// 16 bytes can move: consecutive elements (no wrapping, step 1), a
  /// width that divides the thread's run and `rowLength` (elements between
  /// the starts of two rows; 0 when there are no rows to keep aligned).
  /// 1 when none, or for booleans (`elementBytes` 0).
  int64_t vectorWidth(unsigned axis, int64_t elementBytes,
                      int64_t rowLength = 0) const;

private:
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<AxisDistribution, 4> axes;
  int64_t registers = 1;
};

} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_IR_DISTRIBUTEDLAYOUT_H
