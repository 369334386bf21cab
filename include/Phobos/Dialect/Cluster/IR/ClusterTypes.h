//===- ClusterTypes.h - Types of the phobos_cluster dialect -----*- C++ -*-===//
//
// Super-tile references, per-node buffers and tokens, and the access
// modes of tensors and super-tiles.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_IR_CLUSTERTYPES_H
#define PHOBOS_DIALECT_CLUSTER_IR_CLUSTERTYPES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#include "Phobos/Dialect/Cluster/IR/ClusterEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Phobos/Dialect/Cluster/IR/ClusterOpsTypes.h.inc"

namespace phobos::cluster {

/// Whether a unit or tensor with this mode reads the stored value.
inline bool readsStorage(AccessMode mode) { return mode != AccessMode::write; }
/// Whether it writes the tensor.
inline bool writesStorage(AccessMode mode) { return mode != AccessMode::read; }

} // namespace phobos::cluster

#endif // PHOBOS_DIALECT_CLUSTER_IR_CLUSTERTYPES_H
