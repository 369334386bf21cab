//===- ClusterState.h - What a run's threads share --------------*- C++ -*-===//
//
// Private to phobos-sched. The state of a run on pods that the main thread
// (ClusterRun.cpp) and the gRPC service the pods attach to
// (SchedulerService.cpp) share, under Cluster::mutex: the nodes, what each
// was given and has retired, the outputs stored, failures and a cancel.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_PHOBOS_SCHED_CLUSTERSTATE_H
#define PHOBOS_TOOLS_PHOBOS_SCHED_CLUSTERSTATE_H

#include "Phobos/ClusterRuntime/Log.h"
#include "Phobos/ClusterRuntime/OutputJournal.h"
#include "phobos_cluster.pb.h"

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace phobos::cluster::runtime::sched {

/// A line of the scheduler's log, on stdout.
inline void say(absl::string_view message) {
  logLine("sched", message, stdout);
}

/// Messages to one pod, written by a thread of their own.
class Outbox {
public:
  void send(wire::SchedulerMessage message) {
    absl::MutexLock lock(&mutex);
    if (!closed)
      queue.push_back(std::move(message));
  }
  void close() {
    absl::MutexLock lock(&mutex);
    closed = true;
  }
  /// Writes until closed (and drained) or the stream breaks. `Stream` is
  /// the Attach call's gRPC stream (a template, so that this header does
  /// not include gRPC).
  template <typename Stream> void run(Stream *stream) {
    while (true) {
      wire::SchedulerMessage message;
      {
        absl::MutexLock lock(&mutex);
        mutex.Await(absl::Condition(
            +[](Outbox *box) { return box->closed || !box->queue.empty(); },
            this));
        if (queue.empty())
          return;
        message = std::move(queue.front());
        queue.pop_front();
      }
      if (!stream->Write(message)) {
        close();
        return;
      }
    }
  }

private:
  absl::Mutex mutex;
  std::deque<wire::SchedulerMessage> queue;
  bool closed = false;
};

struct Link {
  wire::Join join;
  std::string peer;
  Outbox outbox;
  bool connected = true;
};

enum class NodeState { Waiting, Joined, Running, Lost };

/// One instruction a pod retired, as it measured it: nanoseconds of its
/// steady clock since it took the job.
struct TimedInstruction {
  uint32_t segment = 0;
  uint64_t instruction = 0;
  int64_t startNs = 0, endNs = 0;
};

struct Node {
  /// What the node is listed by: its address, or `rank N` (--ranks).
  std::string slot;
  /// Where it serves tiles: the slot, or the address a ranked pod joined
  /// with.
  std::string address;
  NodeState state = NodeState::Waiting;
  std::shared_ptr<Link> link;
  wire::Join join;
  absl::Time lastHeard;
  double lostAt = 0;
  std::string lostWhy;
  /// Whether a message after its loss was noted (once per node).
  bool lateNoted = false;
  uint32_t nextSegment = 0;
  int64_t instructions = 0, retired = 0;
  /// Store instructions: (segment, id) -> output tile.
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> stores;
  std::set<uint32_t> owned, storedHere;
  wire::NodeStats stats;
  std::string lastProgress;
  /// Every instruction it retired, in the order its heartbeats said so.
  std::vector<TimedInstruction> timeline;
};

/// What the main thread, the Attach calls and the status clients share.
struct Cluster {
  absl::Mutex mutex;
  std::vector<Node> nodes;
  bool started = false;
  bool finished = false;
  uint64_t jobId = 0;
  int heartbeatMs = 250;
  std::set<uint32_t> stored;
  std::vector<std::string> failures;
  /// Bumped on every event, so the main thread can wait for one.
  uint64_t events = 0;

  // For --status and the progress line.
  std::string jobFile, kernel, phase = "waiting for pods";
  absl::Time startedAt = absl::InfinitePast();
  /// Output super-tiles of this run, and those an earlier run stored.
  int64_t outputTiles = 0, resumedTiles = 0;
  int outputTensors = 1;
  /// Pods of --pods that did not join before a --min-pods start (slots).
  std::set<std::string> leftOut;
  /// Pods are taken by rank (--ranks), not by address.
  bool ranked = false;
  /// Who asked to cancel the job (empty: nobody).
  std::string cancelledBy;

  /// The job's journal, and the output super-tiles of the plan (segment
  /// tiles of stores) with their tensor's name, for its lines.
  storage::OutputJournal *journal = nullptr;
  std::map<uint32_t, storage::JournalTile> outputGeometry;
  bool journalBroken = false;

  /// The node a pod's stream belongs to (-1: none). By the link, not by
  /// the number the pod joined as: a --min-pods start renumbers the nodes.
  int nodeOfLink(const Link *link) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].link.get() == link)
        return static_cast<int>(i);
    return -1;
  }

  int nodeOf(const std::string &slot) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].slot == slot)
        return static_cast<int>(i);
    return -1;
  }
};

} // namespace phobos::cluster::runtime::sched

#endif // PHOBOS_TOOLS_PHOBOS_SCHED_CLUSTERSTATE_H
