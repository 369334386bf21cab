//===- LoopUtils.h - Facts about the loops passes rewrite -------*- C++ -*-===//
//
// What tile-pipeline and tile-defer-dots ask of an
// scf.for: where a value is defined, whether it changes between iterations,
// which tensors it writes,
// whether the loop is the remainder tile-split-ragged-loops leaves, which
// loads an operand needs, whether a value after a loop is one of its
// values computed for the iteration past the last; and the rewrites they
// share: more iteration arguments, an operand's loads for another
// iteration, the loop's trip count. Also what
// tile-warp-specialize and tile-pingpong call scalar bookkeeping.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
#define PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace phobos::tile {

/// Whether `value` is defined outside `loop`.
bool isOutside(mlir::Value value, mlir::scf::ForOp loop);

/// Whether `value` changes from one iteration of `loop` to the next: the
/// induction variable, or an op of it inside the loop (a value defined in
/// the loop with no defining op, an iteration argument, counts).
bool dependsOnLoop(mlir::Value value, mlir::scf::ForOp loop);

/// Scalar bookkeeping (index arithmetic and the like): an op with no
/// tiles among its operands and results, no memory effects and no
/// regions, which every thread runs alike.
bool isScalarPure(mlir::Operation &op);

/// The tensor arguments that stores, scalar stores and atomic additions in
/// `root` write. Distinct tensor arguments are distinct memory (the memory
/// model, docs/language.md), so a load of any other tensor reads the same
/// values wherever in the loop, or before it, it runs.
llvm::SmallDenseSet<mlir::Value, 4> writtenTensors(mlir::Operation *root);

/// Whether `loop` starts at most once in a kernel: only scf.if ops (an
/// unswitched loop's branches) stand between it and the kernel.
bool runsOncePerKernel(mlir::scf::ForOp loop);

/// Whether `loop` runs at most once: it starts at (ub / step) * step, as
/// the remainder tile-split-ragged-loops leaves does.
bool runsAtMostOnce(mlir::scf::ForOp loop);

/// The loads and pure ops in `loop`'s body that `roots` depend on, in body
/// order, when they depend only on the induction variable and values from
/// outside the loop (each load used once): what can be computed for another
/// iteration. Nothing when some depend on anything else (an iteration
/// argument, an op with regions, a load with other users).
std::optional<llvm::SmallVector<mlir::Operation *>>
getLoadChain(mlir::ValueRange roots, mlir::scf::ForOp loop);

/// Clones `chain` (from getLoadChain) for the iteration `mapping` maps the
/// induction variable to, its loads masked on the axes that move with
/// `loop` (that iteration may not exist); `mapping` then maps its values.
void cloneLoadChain(mlir::OpBuilder &builder,
                    llvm::ArrayRef<mlir::Operation *> chain,
                    mlir::scf::ForOp loop, mlir::IRMapping &mapping);

/// The iterations `loop` runs, max(0, ceil((ub - lb) / step)), and the
/// induction variable one step past its last iteration, lb + trips * step.
struct LoopEnd {
  mlir::Value trips, end;
};

/// Builds LoopEnd's values at the builder's insertion point (outside
/// `loop`): where tile-defer-dots' dot after a loop reads its operand, and
/// what tile-pipeline recognises there (isLoopEnd).
LoopEnd buildLoopEnd(mlir::OpBuilder &builder, mlir::Location loc,
                     mlir::scf::ForOp loop);

/// Whether `value` is buildLoopEnd's `end` for `loop`'s bounds as they are.
bool isLoopEnd(mlir::Value value, mlir::scf::ForOp loop);

/// Whether `after` (outside `loop`) is `inLoop` (a value of its body)
/// computed for another value of the induction variable: the same pure ops
/// on the same values from outside the loop, with one value `at` where
/// `inLoop` has the induction variable. `at` is set at the first
/// occurrence and must match every other.
bool isSameAt(mlir::Value inLoop, mlir::Value after, mlir::scf::ForOp loop,
              mlir::Value &at);

/// `loop` rebuilt with `inits` as extra iteration arguments (after the
/// others), each yielded unchanged until the caller sets its yield operand.
/// The body moves to the new loop; `loop` is erased.
mlir::scf::ForOp addIterArgs(mlir::OpBuilder &builder, mlir::scf::ForOp loop,
                             mlir::ValueRange inits);

} // namespace phobos::tile

#endif // PHOBOS_LIB_DIALECT_TILE_TRANSFORMS_LOOPUTILS_H
