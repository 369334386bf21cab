//===- InPlaceUpdates.h - Read, compute, write back, per register -*- C++
//-*-===//
//
// An epilogue that reads a slice, computes on it and stores the result to
// the same slice (C = alpha * acc + beta * C) is lowered op by op: every
// load, then all arithmetic, then every store, so each loaded register is
// live next to the accumulator (a thread that holds 128 accumulators needs
// 256 registers, and ptxas spills). The lowering tags the memory accesses
// of such a load and store with the slice and the registers they move;
// after the conversion each tagged load and the arithmetic on it move down
// to the first store that needs them, past the stores of the other
// registers of the same slice, which cannot alias (one thread's registers
// of a layout that neither wraps nor repeats hold distinct elements).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_CONVERSION_TILETOGPU_INPLACEUPDATES_H
#define PHOBOS_LIB_CONVERSION_TILETOGPU_INPLACEUPDATES_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace phobos::tile {

class KernelOp;

/// Tags each phobos.store of `kernel` and the phobos.loads before it in its
/// block that read the same slice (tensor, offsets, point axes, tile type)
/// in a layout whose registers hold distinct elements of a thread
/// (`phobos.update_slice`, one id per store).
void markInPlaceUpdates(KernelOp kernel);

/// The slice id `markInPlaceUpdates` gave `op`, or -1.
int64_t getInPlaceUpdate(mlir::Operation *op);

/// Records where a lowering starts emitting; `tag` then marks the ops
/// emitted since that touch memory with the update `slice` (nothing when it
/// is -1), the `registers` they move and whether they are the store's.
class UpdateTagger {
public:
  UpdateTagger(int64_t slice, bool writes, mlir::Block *block,
               mlir::Block::iterator point);
  /// Tags what was emitted since the last call (or the constructor).
  void tag(llvm::ArrayRef<int64_t> registers);

private:
  int64_t slice;
  bool writes;
  mlir::Block *block;
  mlir::Block::iterator point;
  mlir::Operation *last;
};

/// Moves, in every block under `root`, the tagged loads and the pure ops
/// after the first of them down to their first user where only pure ops,
/// tagged loads and tagged stores of other registers of the same slice lie
/// between; then drops the tags.
void interleaveInPlaceUpdates(mlir::Operation *root);

} // namespace phobos::tile

#endif // PHOBOS_LIB_CONVERSION_TILETOGPU_INPLACEUPDATES_H
