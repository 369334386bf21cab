//===- PodEngine.h - A pod running its share of a job -----------*- C++ -*-===//
//
// One job on one pod: its segments of instructions (segment 0 from the
// plan, more when a lost node's work is re-planned here), each started as
// soon as the instructions it depends on have retired:
//
//  - allocate: in program order (within the pod's memory budget, if any),
//    into a freed buffer of the same size when the backend reuses them;
//  - load / store: a super-tile read from or written to its tensor file;
//  - fetch: from the holder, over gRPC in chunks with checksums, or GPU to
//    GPU through CUDA IPC when both pods share a host; when the holder is
//    lost or the transfer fails, the tile is loaded from storage instead;
//  - compute: one leaf launch at a time on the backend;
//  - free: once the tile's fetchers (the live ones) have been served.
//
// The engine also serves the tiles it holds (segment 0's loads) to the
// other pods of its job, and collects what the next heartbeat reports.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_CLUSTERRUNTIME_PODENGINE_H
#define PHOBOS_CLUSTERRUNTIME_PODENGINE_H

#include "Phobos/ClusterRuntime/Credentials.h"
#include "Phobos/ClusterRuntime/PodBackend.h"
#include "Phobos/ClusterRuntime/TensorStorage.h"

#include "absl/status/status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace grpc {
class ServerContext;
class Status;
template <class W> class ServerWriter;
template <class W, class R> class ServerReaderWriter;
} // namespace grpc

namespace phobos::cluster::wire {
class StartJob;
class Segment;
class Heartbeat;
class JobFailure;
class FetchRequest;
class TileChunk;
class PeerFetchMessage;
class PeerFetchReply;
class PodStatus;
} // namespace phobos::cluster::wire

namespace phobos::cluster::runtime {

struct EngineOptions {
  /// This pod's host id (GPU-to-GPU fetches from pods with the same one).
  std::string hostId;
  /// Threads for allocations, loads, stores and frees.
  unsigned ioThreads = 4;
  /// The most bytes of tiles the pod holds at once (0: no limit but the
  /// device's). Allocations run in program order within it; one stalled
  /// for a second runs past it rather than wait on fetchers for ever. The
  /// plan's peak (checked against the device when planning) assumes frees
  /// in program order; a holder's tile outlives that until it is fetched.
  /// Freed buffers kept for reuse count against it too (without a budget,
  /// against the most the tiles have taken at once).
  int64_t memoryBudget = 0;
  /// Bytes per chunk of a tile sent over gRPC.
  int64_t chunkBytes = 1 << 20;
  /// How stores write output files (TensorFile::WriteMethod).
  storage::TensorFile::WriteMethod storeWrites =
      storage::TensorFile::WriteMethod::Auto;
  /// Who the job's log lines say speaks: `pod ADDR`, to which the node
  /// number (and the rank, when the pod has one) is added.
  std::string logName = "pod";
  int rank = -1;
  /// Log every instruction.
  bool verbose = false;
  /// Test aids: sleep before every compute; exit the process in the middle
  /// of serving the first tile (a pod that disconnects while serving).
  int computeDelayMs = 0;
  /// Measuring aid: computes do nothing (the output tiles keep what they
  /// were allocated or loaded with), so that a job's time is its loads,
  /// fetches and stores: the storage side of its roofline.
  bool skipCompute = false;
  bool dieWhileServing = false;
};

class JobRun {
public:
  /// `onFailure` is called (from a worker thread) when an instruction fails
  /// in a way that ends the job. `onSettled`, when given, is called (from a
  /// worker thread, with the job's lock held: it must not call the JobRun)
  /// when every instruction given so far has retired or is a free waiting
  /// for its tile's fetchers, so that the pod reports the end of its share
  /// at once rather than at the next heartbeat (and again as such a free
  /// retires).
  JobRun(Backend &backend, const Credentials &credentials,
         const wire::StartJob &spec, EngineOptions options,
         std::function<void(const wire::JobFailure &)> onFailure,
         std::function<void()> onSettled = nullptr);
  /// Stops the job (as abort) and waits for its threads.
  ~JobRun();
  JobRun(const JobRun &) = delete;
  JobRun &operator=(const JobRun &) = delete;

  /// Prepares the backend and starts segment 0.
  absl::Status start();
  /// More work: a lost node's outputs re-planned onto this pod.
  void addSegment(const wire::Segment &segment);
  /// A node of the job is gone.
  void nodeLost(uint32_t node);
  /// Stops: no instruction starts any more, waiting serves end.
  void stop();
  /// Stops and waits for the job's threads (the leaf running, if any), so
  /// that the backend can take the next job; serves still running keep the
  /// job's tiles until they end. Neither callback is called after it.
  void shutdown();

  uint64_t jobId() const;
  uint32_t node() const;
  /// Retired instructions since the last call, and the totals so far.
  void takeReport(wire::Heartbeat &heartbeat);
  /// Called every heartbeat: lets a stalled allocation run past its budget.
  void tick();
  void describe(wire::PodStatus &status);

  /// The Pod service's calls, for this job.
  grpc::Status serveFetch(const grpc::ServerContext &context,
                          const wire::FetchRequest &request,
                          grpc::ServerWriter<wire::TileChunk> *writer);
  grpc::Status
  servePeerFetch(const grpc::ServerContext &context,
                 const wire::FetchRequest &request,
                 grpc::ServerReaderWriter<wire::PeerFetchReply,
                                          wire::PeerFetchMessage> *stream);

  struct State;

private:
  std::unique_ptr<State> state;
};

/// An identifier of this machine (its machine id and boot), equal for the
/// pods that share it.
std::string hostIdentifier();

} // namespace phobos::cluster::runtime

#endif // PHOBOS_CLUSTERRUNTIME_PODENGINE_H
