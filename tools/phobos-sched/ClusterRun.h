//===- ClusterRun.h - phobos-sched running a job on pods --------*- C++ -*-===//
//
// The scheduler's runtime half, apart from MLIR: it listens for pods, waits
// for the job's pods to join, asks the planner (phobos-sched.cpp, which has
// the cluster compiler) for a plan, sends every node its share, follows the
// heartbeats, re-plans a lost node's unstored outputs onto the nodes left,
// and at the end moves the outputs into place and prints a summary.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_PHOBOS_SCHED_CLUSTERRUN_H
#define PHOBOS_TOOLS_PHOBOS_SCHED_CLUSTERRUN_H

#include "Phobos/ClusterRuntime/Credentials.h"
#include "Phobos/ClusterRuntime/TensorStorage.h"

#include "absl/status/statusor.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace phobos::cluster::runtime {

/// What a pod said of itself when it joined.
struct PodInfo {
  std::string address, backend, device, chip, hostId;
  int deviceOrdinal = -1;
  int64_t memoryBytes = 0;
};

/// One leaf as the pods get it.
struct LeafBuild {
  std::string name;
  /// Tile-dialect MLIR, for interpreter pods.
  std::string mlir;
  struct Compiled {
    std::string ptx, cubin, contract;
  };
  /// For GPU pods, by chip.
  std::map<std::string, Compiled> byChip;
};

struct PlannedJob {
  /// planToJSON of the planned program.
  llvm::json::Value plan = nullptr;
  std::vector<LeafBuild> leaves;
  /// The cost model's floating-point operations of the whole job.
  double flops = 0;
  /// With --autotune: the cost model's ranking of the @cluster sizes, as
  /// --plan prints it (empty otherwise).
  std::string ranking;
};

/// What a resumed job keeps from the run before it.
struct ResumePoint {
  /// The @cluster sizes that run planned with: tile ids mean the same tiles.
  std::map<std::string, int64_t> bindings;
  /// Output super-tiles (tile ids) stored and verified: their units are
  /// not planned again.
  std::vector<int64_t> stored;
};

/// The cluster compiler, as the runtime sees it.
class JobPlanner {
public:
  virtual ~JobPlanner();
  /// Plans the job on these pods (one node each, in order) and builds the
  /// leaves they need; with `resume`, only the units not yet stored, at the
  /// sizes of the run before.
  virtual absl::StatusOr<PlannedJob> plan(const std::vector<PodInfo> &pods,
                                          const ResumePoint *resume) = 0;
  /// Re-plans the units that write `outputs` (tile ids) onto `nodes` nodes
  /// that load every input from storage; planToJSON of the result.
  virtual absl::StatusOr<llvm::json::Value>
  replan(const std::vector<int64_t> &outputs, int64_t nodes) = 0;
};

/// A tensor of the job and its file.
struct StorageTensor {
  enum class Mode { Read, Write, Rmw };
  std::string name, uri, path;
  Mode mode = Mode::Read;
  /// Inputs: what the file holds. Outputs: what will be written.
  storage::TensorInfo layout;
};

struct RunSettings {
  std::string job;
  std::string listen;
  std::vector<std::string> pods;
  Credentials credentials;
  int heartbeatMs = 250;
  int heartbeatTimeoutMs = 5000;
  int joinTimeoutMs = 60000;
  int progressMs = 1000;
  /// Where to write the summary as JSON (empty: nowhere).
  std::string summaryJson;
  /// Start with the pods that joined within the join timeout when there
  /// are at least this many (0: every pod must join).
  int minPods = 0;
  /// Names the job and what it reads (16 hex digits): the partial outputs
  /// and the journal carry it, so a scheduler restarted on the same job
  /// finds them.
  std::string jobKey;
  /// Skip the output super-tiles a journal of the same job says were
  /// stored (after reading them back); false: start afresh.
  bool resume = true;
  /// > 0: the job's pods are this many ranks (0 to ranks - 1), each a pod
  /// that joins with that --rank from wherever it listens (Slurm tasks, a
  /// Kubernetes indexed Job); `pods` is then unused.
  int ranks = 0;
  /// Starts the pods once the scheduler listens at `address` (empty: they
  /// are started by someone else); an error ends the run.
  std::function<absl::Status(const std::string &address)> launchPods;
  /// After the job (done or not): waits for the pods it launched.
  std::function<void()> reapPods;
};

/// Runs the job; returns the process's exit status (0: the outputs are in
/// place). Progress and the summary go to stdout, errors to stderr.
int runCluster(const RunSettings &settings,
               const std::vector<StorageTensor> &tensors, JobPlanner &planner);

} // namespace phobos::cluster::runtime

#endif // PHOBOS_TOOLS_PHOBOS_SCHED_CLUSTERRUN_H
