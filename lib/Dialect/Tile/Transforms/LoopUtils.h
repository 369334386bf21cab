//===- LoopUtils.h - Facts about the loops passes rewrite -------*- C++ -*-===//
//
// What tile-pipeline and tile-prefetch-dots both ask of an scf.for: where a
// value is defined, whether it changes between iterations, whether the loop
// is the remainder tile-split-ragged-loops leaves; and the one rewrite both
// make of it, more iteration arguments.
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

/// `loop` rebuilt with `inits` as extra iteration arguments (after the
/// others), each yielded unchanged until the caller sets its yield operand.
/// The body moves to the new loop; `loop` is erased.
mlir::scf::ForOp addIterArgs(mlir::OpBuilder &builder, mlir::scf::ForOp loop,
                             mlir::ValueRange inits);

} // namespace phobos::tile

#endif // PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
