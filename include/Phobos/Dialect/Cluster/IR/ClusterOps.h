//===- ClusterOps.h - Operations of the phobos_cluster dialect --*- C++ -*-===//
//
// The ops of the `phobos_cluster` dialect. Including this header gives the
// dialect and its types as well.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_IR_CLUSTEROPS_H
#define PHOBOS_DIALECT_CLUSTER_IR_CLUSTEROPS_H

#include "Phobos/Dialect/Cluster/IR/ClusterDialect.h"
#include "Phobos/Dialect/Cluster/IR/ClusterTypes.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace phobos::cluster {
class ProgramOp;
class UnitsOp;
class TensorOp;
class ScalarOp;
} // namespace phobos::cluster

#define GET_OP_CLASSES
#include "Phobos/Dialect/Cluster/IR/ClusterOps.h.inc"

namespace phobos::cluster {

/// What a leaf does with each of its tensor parameters, in order.
struct LeafParamEffect {
  bool read = false;
  bool written = false;
};

/// The effects of `leaf` on its tensor parameters (loads and stores of
/// each), in the order of the tensor parameters.
llvm::SmallVector<LeafParamEffect> getLeafEffects(tile::KernelOp leaf);

/// The indices of `leaf`'s tensor and scalar arguments, in order.
void splitLeafArguments(tile::KernelOp leaf,
                        llvm::SmallVectorImpl<unsigned> &tensors,
                        llvm::SmallVectorImpl<unsigned> &scalars);

} // namespace phobos::cluster

#endif // PHOBOS_DIALECT_CLUSTER_IR_CLUSTEROPS_H
