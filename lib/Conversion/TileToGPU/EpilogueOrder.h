//===- EpilogueOrder.h - An epilogue's registers, one run at a time -*- C++ -*-===//
//
// The conversion lowers a tile program op by op: an epilogue such as
// C = gelu(alpha * acc + bias) + R over a 128 x 256 accumulator becomes
// every thread's 128 additions, then 128 of each step of the activation,
// then every load of R, then every store. Whole-tile temporaries are then
// live together, and ptxas, which schedules within basic blocks, spills
// (1,052 bytes at 128 x 256 x 64). Two reorderings after the conversion
// put each run of registers through the epilogue in turn:
//
// - In-place updates: an epilogue that reads a slice, computes on it and
//   stores the result to the same slice (C = alpha * acc + beta * C). The
//   lowering tags the memory accesses of such a load and store with the
//   slice and the registers they move; each tagged load and the arithmetic
//   on it move down to the first store that needs them, past the stores of
//   the other registers of the same slice, which cannot alias (one
//   thread's registers of a layout that neither wraps nor repeats hold
//   distinct elements).
// - Epilogue blocks (those that store an accumulator-layout tile): after
//   the block's last loop, every store gets, right before it, the pure
//   arithmetic, shuffles and loads of read-only tensors (tensors the
//   kernel never writes; distinct tensor arguments are distinct memory)
//   that it needs, and the read-only loads of the next two stores, so that
//   their latency overlaps this store's arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_CONVERSION_TILETOGPU_EPILOGUEORDER_H
#define PHOBOS_LIB_CONVERSION_TILETOGPU_EPILOGUEORDER_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace phobos::tile {

class KernelOp;

/// Before the conversion: tags each phobos.store of `kernel` and the
/// phobos.loads before it in its block that read the same slice (tensor,
/// offsets, point axes, tile type) in a layout whose registers hold
/// distinct elements of a thread (`phobos.update_slice`, one id per
/// store); the loads of tensors the kernel only reads
/// (`phobos.read_only`); the stores of accumulator-layout tiles
/// (`phobos.epilogue`).
void markEpilogues(KernelOp kernel);

/// The slice id `markEpilogues` gave `op`, or -1.
int64_t getInPlaceUpdate(mlir::Operation *op);

/// Records where the lowering of the load or store `op` starts emitting;
/// `tag` then marks the ops emitted since that touch memory with `op`'s
/// tags: its update slice (if any) with the `registers` they move and
/// whether they are the store's, read-only, epilogue.
class EpilogueTagger {
public:
  EpilogueTagger(mlir::Operation *op, bool writes, mlir::Block *block,
                 mlir::Block::iterator point);
  /// Tags what was emitted since the last call (or the constructor).
  void tag(llvm::ArrayRef<int64_t> registers);

private:
  int64_t slice;
  bool writes, readOnly, epilogue;
  mlir::Block *block;
  mlir::Block::iterator point;
  mlir::Operation *last;
};

/// After the conversion, in every block under `root`: moves the tagged
/// in-place loads and the pure ops after the first of them down to their
/// first user where only pure ops, tagged loads and tagged stores of other
/// registers of the same slice lie between; orders the tail of each
/// epilogue block store by store (unless `byStore` is false); then drops
/// the tags.
void orderEpilogues(mlir::Operation *root, bool byStore = true);

} // namespace phobos::tile

#endif // PHOBOS_LIB_CONVERSION_TILETOGPU_EPILOGUEORDER_H
