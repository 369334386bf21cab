//===- Planning.h - Per-node programs of a cluster program ------*- C++ -*-===//
//
// The planner behind --phobos-cluster-plan and phobos-sched: binds a
// cluster program's dims and @cluster sizes, places its units of work on
// nodes, unrolls them into per-node programs, and ranks @cluster sizes by a
// cost model. Also the plan's text and JSON forms, which the runtime reads.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PLANNING_H
#define PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PLANNING_H

#include "Phobos/Dialect/Cluster/IR/ClusterOps.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>
#include <vector>

namespace phobos::cluster {

/// How input super-tiles reach the nodes that read them.
enum class Ingest {
  /// Loaded from storage once, by the node of the first unit that reads
  /// the tile (its holder); the other nodes fetch it from there.
  Fetch,
  /// Loaded from storage by every node that reads it.
  Direct,
};

struct PlanOptions {
  /// The problem's dims: name -> extent.
  llvm::StringMap<int64_t> dims;
  int64_t nodes = 1;
  /// A node's memory in bytes; 0 for no limit.
  int64_t vramBytes = 0;
  /// @cluster sizes given explicitly; the others take their first value,
  /// or are searched with `autotune`.
  llvm::StringMap<int64_t> cluster;
  bool autotune = false;
  /// Cost model: a node's FLOP/s in units of 10^12, its link in GB/s.
  double nodeTflops = 50.0;
  double linkGbps = 25.0;
  Ingest ingest = Ingest::Fetch;
  /// Plans only the units of work that write one of these output
  /// super-tiles (tile ids, numbered as in planToJSON), dealt round robin
  /// over the nodes in unit order; empty: every unit. The runtime re-plans
  /// a lost node's unstored outputs with it.
  std::vector<int64_t> outputs;
  /// Output super-tiles already in storage (tile ids): the units whose
  /// every output is among them are left out, the rest dealt anew round
  /// robin; none left is an empty plan. A resumed job plans with it.
  std::vector<int64_t> storedOutputs;
};

/// What the cost model sees of one node in one plan.
struct NodeCost {
  int64_t units = 0;
  int64_t computes = 0;
  double flops = 0;
  /// Bytes loaded or fetched into the node; stored or served out of it.
  int64_t inBytes = 0, outBytes = 0;
  int64_t peakBytes = 0;
  double computeSeconds = 0, transferSeconds = 0;
  double seconds() const { return computeSeconds + transferSeconds; }
};

/// One combination of @cluster sizes and what the cost model says of it.
struct Candidate {
  /// @cluster name -> size, in the order of the @cluster space.
  std::vector<std::pair<std::string, int64_t>> sizes;
  /// Why the combination was dropped; empty when it was ranked.
  std::string dropped;
  int64_t units = 0;
  std::vector<NodeCost> nodes;
  /// The busiest node and its modelled time.
  unsigned busiest = 0;
  double seconds = 0;
};

/// Parses `NAME=VALUE` items into `values`; returns an error message, empty
/// on success. `what` names the list in messages.
std::string parseNameValues(llvm::ArrayRef<std::string> items,
                            llvm::StringMap<int64_t> &values,
                            llvm::StringRef what);

/// Binds `program` and appends its per-node programs. Errors are reported
/// at the program's location. With `ranking`, it receives every combination
/// the planner considered, ranked ones first (best first), then the dropped
/// ones.
mlir::LogicalResult planProgram(ProgramOp program, const PlanOptions &options,
                                std::vector<Candidate> *ranking = nullptr);

/// The estimated floating-point operations of one launch of `leaf` when its
/// tensor parameters have `shapes` and its grid has `ctas` CTAs.
double estimateLeafFlops(phobos::tile::KernelOp leaf,
                         llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                         int64_t ctas);

/// The CTAs of each grid axis of a leaf launched on one super-tile of a
/// planned program: the super-tile over the leaf's first @autotune value.
llvm::SmallVector<int64_t, 3> leafGrid(ProgramOp program,
                                       phobos::tile::KernelOp leaf);

/// A planned program as JSON: tensors, scalars, leaves and every node's
/// instructions with ids, kinds, tiles, byte sizes and dependencies.
llvm::json::Value planToJSON(ProgramOp program);

/// A planned program's per-node instructions, one per line.
void printPlan(ProgramOp program, llvm::raw_ostream &os);

/// The cost model's ranking as a table.
void printRanking(llvm::ArrayRef<Candidate> ranking, llvm::raw_ostream &os);

/// `1.2 GiB`, or with `exact` `1.2 GiB (1288490188 bytes)`.
std::string formatBytes(int64_t bytes, bool exact = true);

} // namespace phobos::cluster

#endif // PHOBOS_DIALECT_CLUSTER_TRANSFORMS_PLANNING_H
