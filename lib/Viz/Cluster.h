//===- Cluster.h - The cluster panel's data ---------------------*- C++ -*-===//
//
// A cluster job as phobos-sched plans it (planned here from the job file,
// or read from its --plan JOB --json output):
// the program's tensors and leaves, every node's instructions (allocate,
// load, fetch, compute, store, free) with their dependencies, laid out in
// dependency levels for the page's DAG and per-node timeline, the bytes
// each link moves; and, after a run, what the scheduler's summary
// (--summary-json) measured of each node.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_VIZ_CLUSTER_H
#define PHOBOS_LIB_VIZ_CLUSTER_H

#include "Phobos/Viz/Visualization.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

namespace phobos::viz {

/// The panel's data for kernel `kernel` of `sourceMgr`'s main buffer, of
/// the job options.clusterJob gives (planned here) or the plan
/// options.clusterPlanText holds:
///
///   {"job", "program", "nodes", "dims", "bindings", "tensors", "leaves",
///    "instructions": [{"id", "node", "kind", "bytes", "deps", "label",
///                      "level" (its depth in the DAG), "from" (a fetch's
///                      holder), "source" (the instruction there that
///                      holds the tile), "leaf" (a compute's)}],
///    "levels": the DAG's depth,
///    "links": [{"from", "to", "bytes"}] (fetches, holder to reader),
///    "node_totals": [{"node", "instructions", "computes", "loaded",
///                     "fetched", "served", "stored", "peak_bytes"}],
///    "summary": {"seconds", "flops",
///                "nodes": [the scheduler's per-node numbers, and each
///                          node's measured "timeline": [[segment,
///                          instruction, start, end] in seconds since its
///                          pod took the job, ...]],
///                "timed_instructions": the timeline's rows,
///                "measured_instructions": those of the plan's own
///                                         instructions (segment 0)}
///               (with a summary)}
///
/// or {"note": why there is none}. A plan or summary that is not one, or is
/// of another program, is an error at its file; failure then.
mlir::FailureOr<llvm::json::Object>
describeCluster(llvm::SourceMgr &sourceMgr, llvm::StringRef kernel,
                const VisualizationOptions &options,
                mlir::MLIRContext *context);

/// The cluster program phobos-cluster-split makes of the @cluster kernel
/// `kernel` of `sourceMgr`'s main buffer (what phobos-sched plans), as
/// lines of IR; or why there is none (the split's errors, caught).
llvm::json::Object describeClusterProgram(llvm::SourceMgr &sourceMgr,
                                          mlir::MLIRContext *context,
                                          llvm::StringRef kernel,
                                          const VisualizationOptions &options);

} // namespace phobos::viz

#endif // PHOBOS_LIB_VIZ_CLUSTER_H
