//===- ClusterPlan.cpp - Per-node programs of cluster programs ------------===//
//
// --phobos-cluster-plan: binds every phobos_cluster.program of the module
// with the pass's dims, node count and @cluster sizes (or the cost model's
// choice) and appends its per-node programs. The work is in Planning.cpp,
// which phobos-sched calls directly.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/Transforms/Passes.h"
#include "Phobos/Dialect/Cluster/Transforms/Planning.h"

namespace phobos::cluster {
#define GEN_PASS_DEF_CLUSTERPLAN
#include "Phobos/Dialect/Cluster/Transforms/Passes.h.inc"
} // namespace phobos::cluster

using namespace mlir;
using namespace phobos::cluster;

namespace {
struct ClusterPlan : phobos::cluster::impl::ClusterPlanBase<ClusterPlan> {
  using ClusterPlanBase::ClusterPlanBase;

  void runOnOperation() override {
    PlanOptions plan;
    plan.nodes = nodes;
    plan.vramBytes = vramBytes;
    plan.autotune = autotune;
    plan.nodeTflops = nodeTflops;
    plan.linkGbps = linkGbps;
    std::string problem = parseNameValues(dims, plan.dims, "dims");
    if (problem.empty())
      problem = parseNameValues(cluster, plan.cluster, "cluster");
    if (problem.empty() && ingest != "fetch" && ingest != "direct")
      problem = "ingest: expected fetch or direct, got '" + ingest + "'";
    plan.ingest = ingest == "direct" ? Ingest::Direct : Ingest::Fetch;
    if (!problem.empty()) {
      getOperation().emitError("--phobos-cluster-plan ") << problem;
      return signalPassFailure();
    }
    SmallVector<ProgramOp> programs(getOperation().getOps<ProgramOp>());
    for (ProgramOp program : programs) {
      std::vector<Candidate> ranking;
      if (failed(planProgram(program, plan, &ranking)))
        return signalPassFailure();
      for (NodeOp node : program.getBody().front().getOps<NodeOp>())
        numInstructions += node.getBodyBlock().getOperations().size();
      if (!autotune || ranking.empty() || !ranking.front().dropped.empty())
        continue;
      // The cost model's choice, for the record.
      std::string text;
      llvm::raw_string_ostream os(text);
      printRanking(ranking, os);
      program.emitRemark("cost model ranking of the @cluster sizes:\n")
          << text;
    }
  }
};
} // namespace
