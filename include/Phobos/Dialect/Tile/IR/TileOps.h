//===- TileOps.h - Operations of the phobos dialect -------------*- C++ -*-===//
//
// The ops of the `phobos` dialect. Including this header gives the dialect,
// its types and attributes as well.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILEOPS_H
#define PHOBOS_DIALECT_TILE_IR_TILEOPS_H

#include "Phobos/Dialect/Tile/IR/TileDialect.h"
#include "Phobos/Dialect/Tile/IR/TileTypes.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace phobos::tile {
/// The CTA's shared memory, as a side-effect resource.
struct SharedMemoryResource
    : public mlir::SideEffects::Resource::Base<SharedMemoryResource> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};
} // namespace phobos::tile

#define GET_OP_CLASSES
#include "Phobos/Dialect/Tile/IR/TileOps.h.inc"

namespace phobos::tile {
/// The type of one slot of a staged buffer (a leading stage axis, which its
/// layout does not describe); null when `buffer` has no stage axis.
SharedMemoryType getSlotType(SharedMemoryType buffer);
/// A buffer of `stages` slots of type `slot`.
SharedMemoryType getStagedType(SharedMemoryType slot, int64_t stages);
} // namespace phobos::tile

#endif // PHOBOS_DIALECT_TILE_IR_TILEOPS_H
