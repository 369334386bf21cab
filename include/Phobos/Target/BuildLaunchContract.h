//===- BuildLaunchContract.h - A launch contract from a kernel --*- C++ -*-===//
//
// The compiler's side of the launch contract (Phobos/Runtime/LaunchContract.h):
// deriving it from a bound tile-dialect kernel.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TARGET_BUILDLAUNCHCONTRACT_H
#define PHOBOS_TARGET_BUILDLAUNCHCONTRACT_H

#include "Phobos/Runtime/LaunchContract.h"

#include "llvm/ADT/StringRef.h"

namespace phobos::tile {
class KernelOp;
} // namespace phobos::tile

namespace phobos {

/// Derives the contract of `kernel` (one bound variant) compiled for `chip`
/// (the CTA size may depend on it; empty or a chip of no GPU: the
/// interpreter's contract).
LaunchContract buildLaunchContract(tile::KernelOp kernel,
                                   llvm::StringRef chip = {});

/// Whether tile-persistent rewrote `kernel`: its CTAs loop over the tiles.
bool walksTiles(tile::KernelOp kernel);

/// The grid the interpreter runs `kernel` on for a launch of the tile grid
/// `grid`: three CTAs for a kernel whose CTAs walk the tiles (so that each
/// runs several when there are more), else `grid` itself.
std::array<int64_t, 3> interpreterGrid(tile::KernelOp kernel,
                                       std::array<int64_t, 3> grid);

/// Whether `kernel` computes in reduced precision anywhere (f16/bf16
/// tensors, or dots on f16/bf16 or tensor cores): checks against a
/// reference then default to a looser tolerance (1e-2, not 1e-5).
bool usesReducedPrecision(tile::KernelOp kernel);

} // namespace phobos

#endif // PHOBOS_TARGET_BUILDLAUNCHCONTRACT_H
