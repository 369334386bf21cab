//===- LoopUtils.h - Facts about the loops passes rewrite -------*- C++ -*-===//
//
// What tile-pipeline and tile-prefetch-dots both ask of an scf.for: where a
// value is defined, whether it changes between iterations, and whether the
// loop is the remainder tile-split-ragged-loops leaves.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
#define PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace phobos::tile {

/// Whether `value` is defined outside `loop`.
bool isOutside(mlir::Value value, mlir::scf::ForOp loop);

/// Whether `value` changes from one iteration of `loop` to the next: the
/// induction variable, or an op of it inside the loop (a value defined in
/// the loop with no defining op, an iteration argument, counts).
bool dependsOnLoop(mlir::Value value, mlir::scf::ForOp loop);

/// Whether `loop` runs at most once: it starts at (ub / step) * step, as
/// the remainder tile-split-ragged-loops leaves does.
bool runsAtMostOnce(mlir::scf::ForOp loop);

} // namespace phobos::tile

#endif // PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
