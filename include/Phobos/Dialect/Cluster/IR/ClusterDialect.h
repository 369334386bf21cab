//===- ClusterDialect.h - The phobos_cluster dialect ------------*- C++ -*-===//
//
// Declares the `phobos_cluster` dialect class. Include ClusterOps.h for the
// ops and types.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_IR_CLUSTERDIALECT_H
#define PHOBOS_DIALECT_CLUSTER_IR_CLUSTERDIALECT_H

#include "Phobos/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Dialect.h"

#include "Phobos/Dialect/Cluster/IR/ClusterOpsDialect.h.inc"

#endif // PHOBOS_DIALECT_CLUSTER_IR_CLUSTERDIALECT_H
