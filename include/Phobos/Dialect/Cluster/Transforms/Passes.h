//===- Passes.h - Passes of the cluster compiler ----------------*- C++ -*-===//
//
// --phobos-cluster-split and --phobos-cluster-plan. The planner behind the
// second is also a library (Planning.h) for phobos-sched.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PASSES_H
#define PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PASSES_H

#include "Phobos/Dialect/Cluster/IR/ClusterOps.h"

#include "mlir/Pass/Pass.h"

namespace phobos::cluster {

#define GEN_PASS_DECL
#include "Phobos/Dialect/Cluster/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Phobos/Dialect/Cluster/Transforms/Passes.h.inc"

} // namespace phobos::cluster

#endif // PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PASSES_H
