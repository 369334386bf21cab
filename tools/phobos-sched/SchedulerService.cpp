//===- SchedulerService.cpp - The service the pods attach to --------------===//
//
// gRPC runs one Attach call per pod, reading its heartbeats, beside a
// writer thread per pod (so that a pod that stops reading never blocks the
// scheduler); see SchedulerService.h.
//
//===----------------------------------------------------------------------===//

#include "SchedulerService.h"

#include "ClusterState.h"
#include "InterruptCleanup.h"
#include "Phobos/ClusterRuntime/Credentials.h"
#include "phobos_cluster.grpc.pb.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <thread>

using namespace phobos;
using namespace phobos::cluster::runtime;
using namespace phobos::cluster::runtime::sched;
namespace wire = phobos::cluster::wire;

namespace {

class SchedulerService final : public wire::Scheduler::Service {
public:
  SchedulerService(Cluster &cluster, const Credentials &credentials)
      : cluster(cluster), credentials(credentials) {}

  grpc::Status
  Attach(grpc::ServerContext *context,
         grpc::ServerReaderWriter<wire::SchedulerMessage, wire::PodMessage>
             *stream) override {
    if (grpc::Status status = authorize(*context, credentials); !status.ok()) {
      say(absl::StrCat("refused a connection from ", context->peer(), ": ",
                       status.error_message()));
      return status;
    }
    wire::PodMessage first;
    if (!stream->Read(&first))
      return grpc::Status::OK;
    if (!first.has_join())
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "a pod's first message is its Join");
    auto link = std::make_shared<Link>();
    link->join = first.join();
    link->peer = context->peer();
    int node = -1;
    std::string refusal;
    {
      absl::MutexLock lock(&cluster.mutex);
      // A pod is one of the job's by its address, or by its rank (--ranks).
      std::string slot = cluster.ranked
                             ? (link->join.has_rank()
                                    ? absl::StrCat("rank ", link->join.rank())
                                    : std::string("a pod without --rank"))
                             : link->join.address();
      node = cluster.nodeOf(slot);
      if (node < 0 && cluster.leftOut.count(slot)) {
        refusal = absl::StrCat("'", slot,
                               "' did not join within the join timeout, and "
                               "the job started without it (--min-pods)");
      } else if (node < 0) {
        std::vector<std::string> listed;
        for (const Node &n : cluster.nodes)
          listed.push_back(n.slot);
        refusal = absl::StrCat("'", slot, "' is not one of this job's pods (",
                               listed.size() > 8 && cluster.ranked
                                   ? absl::StrCat("ranks 0 to ", listed.size() - 1)
                                   : absl::StrJoin(listed, ", "),
                               ")");
      } else if (cluster.nodes[node].state == NodeState::Lost) {
        refusal = absl::StrCat("node ", node,
                               " was lost; the job goes on without it");
      } else if (cluster.nodes[node].link &&
                 cluster.nodes[node].link->connected) {
        refusal = absl::StrCat("node ", node, " (", link->join.address(),
                               ") is attached already");
      } else if (cluster.started) {
        refusal = "the job has started";
      } else {
        Node &entry = cluster.nodes[node];
        entry.link = link;
        entry.join = link->join;
        entry.address = link->join.address();
        entry.state = NodeState::Joined;
        entry.lastHeard = absl::Now();
        ++cluster.events;
        // The welcome is queued before the lock is released: once the node
        // counts as joined, the main thread may start the job and queue its
        // StartJob, and a pod reads the welcome first or not at all.
        // The chip its leaves compile for ("sm_90a" on an sm_90 card).
        std::string chip =
            link->join.chip().empty() ? "" : ", " + link->join.chip();
        say(absl::StrCat("node ", node, " = ", link->join.address(),
                         cluster.ranked ? absl::StrCat(" (", slot, ")") : "",
                         " joined (", link->join.device(), chip, ", pid ",
                         link->join.pid(), ")"));
        wire::SchedulerMessage welcome;
        welcome.mutable_welcome()->set_job_id(cluster.jobId);
        welcome.mutable_welcome()->set_node(node);
        welcome.mutable_welcome()->set_heartbeat_ms(cluster.heartbeatMs);
        link->outbox.send(std::move(welcome));
      }
    }
    if (!refusal.empty()) {
      say(absl::StrCat("refused ", link->join.address(), " (pid ",
                       link->join.pid(), "): ", refusal));
      wire::SchedulerMessage message;
      message.mutable_refusal()->set_reason(refusal);
      stream->Write(message);
      return grpc::Status::OK;
    }
    std::thread writer([&] { link->outbox.run(stream); });
    wire::PodMessage message;
    while (stream->Read(&message))
      receive(link, message);
    {
      absl::MutexLock lock(&cluster.mutex);
      link->connected = false;
      node = cluster.nodeOfLink(link.get());
      if (node >= 0 && !cluster.started) {
        Node &entry = cluster.nodes[node];
        entry.link.reset();
        entry.state = NodeState::Waiting;
        say(absl::StrCat("node ", node, " = ", link->join.address(),
                         " left before the job started"));
      }
      ++cluster.events;
    }
    link->outbox.close();
    writer.join();
    return grpc::Status::OK;
  }

private:
  void receive(const std::shared_ptr<Link> &link,
               const wire::PodMessage &message) {
    absl::MutexLock lock(&cluster.mutex);
    // A lost node's late messages, or those of a link that was replaced,
    // are ignored: its work was given to others.
    int node = cluster.nodeOfLink(link.get());
    if (node < 0)
      return;
    Node &entry = cluster.nodes[node];
    if (entry.state == NodeState::Lost) {
      if (!entry.lateNoted) {
        entry.lateNoted = true;
        say(absl::StrCat("node ", node, " (", entry.address,
                         ") speaks again after it was lost: its messages are "
                         "ignored"));
      }
      return;
    }
    entry.lastHeard = absl::Now();
    if (message.has_heartbeat()) {
      const wire::Heartbeat &heartbeat = message.heartbeat();
      if (heartbeat.job_id() != cluster.jobId || !cluster.started)
        return;
      for (const wire::Retired &done : heartbeat.retired()) {
        ++entry.retired;
        if (done.has_start_ns() && done.has_end_ns())
          entry.timeline.push_back({done.segment(), done.instruction(),
                                    done.start_ns(), done.end_ns()});
        auto store = entry.stores.find({done.segment(), done.instruction()});
        if (store != entry.stores.end()) {
          bool fresh = cluster.stored.insert(store->second).second;
          entry.storedHere.insert(store->second);
          if (fresh && done.has_checksum())
            journal(store->second, done.checksum());
        }
      }
      if (heartbeat.has_stats())
        entry.stats = heartbeat.stats();
      ++cluster.events;
    } else if (message.has_failure()) {
      if (message.failure().job_id() != cluster.jobId)
        return;
      cluster.failures.push_back(
          absl::StrCat("node ", node, ": ", message.failure().message()));
      ++cluster.events;
    }
  }

public:
  grpc::Status JobStatus(grpc::ServerContext *context,
                         const wire::StatusRequest *,
                         wire::JobState *state) override {
    if (grpc::Status status = authorize(*context, credentials); !status.ok())
      return status;
    absl::MutexLock lock(&cluster.mutex);
    describe(*state);
    return grpc::Status::OK;
  }

  grpc::Status Cancel(grpc::ServerContext *context,
                      const wire::CancelRequest *request,
                      wire::CancelReply *reply) override {
    if (grpc::Status status = authorize(*context, credentials); !status.ok()) {
      say(absl::StrCat("refused a cancel from ", context->peer(), ": ",
                       status.error_message()));
      return status;
    }
    absl::MutexLock lock(&cluster.mutex);
    // Once every output is stored the job is not stopped any more: what a
    // cancel would remove is the finished result.
    if (cluster.finished || cluster.phase == "finishing")
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "the job has ended, or stored all of its outputs");
    if (cluster.cancelledBy.empty()) {
      cluster.cancelledBy = absl::StrCat("a client at ", context->peer());
      if (!request->reason().empty())
        absl::StrAppend(&cluster.cancelledBy, " (", request->reason(), ")");
      ++cluster.events;
    }
    reply->set_job_id(cluster.jobId);
    return grpc::Status::OK;
  }

private:
  /// Appends a stored tile to the journal (mutex held). A journal that
  /// cannot be written costs only a resumed run's work: said once.
  void journal(uint32_t tile, uint64_t checksum) {
    auto geometry = cluster.outputGeometry.find(tile);
    if (!cluster.journal || cluster.journalBroken ||
        geometry == cluster.outputGeometry.end())
      return;
    storage::JournalTile line = geometry->second;
    line.checksum = checksum;
    absl::Status status = cluster.journal->append(line);
    if (status.ok())
      noteTileJournaled();
    if (!status.ok()) {
      cluster.journalBroken = true;
      noteJournalBroken();
      say(absl::StrCat(status.message(), "; the job goes on, but a scheduler "
                                         "restarted on it would compute every "
                                         "super-tile again"));
    }
  }

  /// The job's state for --status (mutex held).
  void describe(wire::JobState &state) {
    state.set_job_id(cluster.jobId);
    state.set_job(cluster.jobFile);
    state.set_kernel(cluster.kernel);
    state.set_phase(cluster.phase);
    bool started = cluster.startedAt != absl::InfinitePast();
    double seconds =
        started ? absl::ToDoubleSeconds(absl::Now() - cluster.startedAt) : 0;
    state.set_seconds(seconds);
    int per = std::max(1, cluster.outputTensors);
    int64_t done = static_cast<int64_t>(cluster.stored.size()) / per;
    int64_t total = (cluster.outputTiles + cluster.resumedTiles) / per;
    state.set_units_total(total);
    state.set_units_done(done);
    state.set_units_resumed(cluster.resumedTiles / per);
    int64_t left = cluster.outputTiles / per - done;
    state.set_eta_seconds(done > 0 ? seconds / done * left
                                   : (started && left == 0 ? 0 : -1));
    state.set_pods_wanted(static_cast<int64_t>(cluster.nodes.size() +
                                               cluster.leftOut.size()));
    int64_t joined = 0;
    for (size_t i = 0; i < cluster.nodes.size(); ++i) {
      const Node &node = cluster.nodes[i];
      joined += node.state != NodeState::Waiting;
      wire::NodeReport *report = state.add_nodes();
      report->set_node(static_cast<uint32_t>(i));
      report->set_address(node.address);
      report->set_device(node.join.device());
      std::string name = node.state == NodeState::Waiting  ? "waiting"
                         : node.state == NodeState::Joined ? "joined"
                         : node.state == NodeState::Lost   ? "lost"
                         : node.retired < node.instructions ? "running"
                                                            : "done";
      report->set_state(name);
      report->set_units_done(static_cast<int64_t>(node.storedHere.size()) / per);
      report->set_units_given(static_cast<int64_t>(node.owned.size()) / per);
      report->set_instructions(node.instructions);
      report->set_retired(node.retired);
      *report->mutable_stats() = node.stats;
      report->set_lost_why(node.lostWhy);
    }
    for (const std::string &address : cluster.leftOut) {
      wire::NodeReport *report = state.add_nodes();
      report->set_node(UINT32_MAX);
      report->set_address(address);
      report->set_state("left out");
    }
    state.set_pods_joined(joined);
  }

  Cluster &cluster;
  const Credentials &credentials;
};

} // namespace

std::unique_ptr<grpc::Service>
sched::makeSchedulerService(Cluster &cluster, const Credentials &credentials) {
  return std::make_unique<SchedulerService>(cluster, credentials);
}
