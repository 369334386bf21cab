//===- JobClient.cpp - phobos-sched --status and --cancel -----------------===//
//
// The client side of job control: asks a scheduler's Scheduler service for
// its job's state or to cancel it; at a pod's address (which serves no
// Scheduler service: UNIMPLEMENTED), --status asks the pod instead.
//
//===----------------------------------------------------------------------===//

#include "JobClient.h"

#include "Phobos/ClusterRuntime/Log.h"
#include "phobos_cluster.grpc.pb.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <grpcpp/grpcpp.h>

#include <chrono>

using namespace phobos::cluster::runtime;
namespace wire = phobos::cluster::wire;

static int fail(const std::string &message) {
  llvm::errs() << "phobos-sched: " << message << "\n";
  return 1;
}

/// A failed call to `who` (`the pod at ADDR`) in words.
static std::string describeCall(const std::string &who,
                                const grpc::Status &result) {
  static const char *names[] = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
      "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  int code = static_cast<int>(result.error_code());
  std::string tls = explainTlsFailure(result.error_message());
  if (!tls.empty())
    return who + " failed the TLS handshake: " + tls +
           "; check both machines' --credentials (" + result.error_message() +
           ")";
  return who + " answered " +
         (code >= 0 && code <= 16 ? names[code] : "an error") + ": " +
         result.error_message();
}

static std::shared_ptr<grpc::Channel>
channelTo(const std::string &address, const Credentials &credentials) {
  return grpc::CreateCustomChannel(address,
                                   channelCredentials(credentials),
                                   channelArguments());
}

/// --status of a scheduler: its job's nodes, units, bytes and ETA.
static void printJobState(const std::string &address,
                          const wire::JobState &state) {
  llvm::raw_ostream &os = llvm::outs();
  os << "scheduler " << address << ": job "
     << llvm::format_hex_no_prefix(state.job_id(), 16);
  if (!state.kernel().empty())
    os << " '" << state.kernel() << "'";
  os << " (" << state.job() << "): " << state.phase();
  if (state.phase() == "waiting for pods") {
    os << ", " << state.pods_joined() << " of " << state.pods_wanted()
       << " joined\n";
  } else {
    os << " for " << llvm::format("%.1f", state.seconds()) << " s\n";
    int64_t left = state.units_total() - state.units_done() - state.units_resumed();
    os << "  units: " << state.units_done() + state.units_resumed() << " of "
       << state.units_total() << " stored";
    if (state.units_resumed())
      os << " (" << state.units_resumed() << " by an earlier run)";
    os << ", " << left << " left; ETA ";
    if (state.eta_seconds() < 0)
      os << "unknown (no unit stored yet)\n";
    else
      os << llvm::format("%.1f", state.eta_seconds()) << " s\n";
  }
  wire::NodeStats total;
  for (const wire::NodeReport &node : state.nodes()) {
    const wire::NodeStats &s = node.stats();
    total.set_loaded_bytes(total.loaded_bytes() + s.loaded_bytes());
    total.set_fetched_bytes(total.fetched_bytes() + s.fetched_bytes());
    total.set_peer_bytes(total.peer_bytes() + s.peer_bytes());
    total.set_stored_bytes(total.stored_bytes() + s.stored_bytes());
  }
  int64_t moved = total.loaded_bytes() + total.fetched_bytes() +
                  total.peer_bytes() + total.stored_bytes();
  os << "  moved " << formatBytes(moved) << ": loaded "
     << formatBytes(total.loaded_bytes()) << ", fetched "
     << formatBytes(total.fetched_bytes()) << ", GPU to GPU "
     << formatBytes(total.peer_bytes()) << ", stored "
     << formatBytes(total.stored_bytes()) << "\n";
  os << llvm::formatv("  {0,-5} {1,-22} {2,-9} {3,6} {4,13} {5,8} {6,10} "
                      "{7,10} {8,10}\n",
                      "node", "pod", "state", "units", "instructions", "busy_s",
                      "loaded", "fetched", "stored");
  for (const wire::NodeReport &node : state.nodes()) {
    const wire::NodeStats &s = node.stats();
    std::string number =
        node.node() == UINT32_MAX ? "-" : std::to_string(node.node());
    os << llvm::formatv(
        "  {0,-5} {1,-22} {2,-9} {3,6} {4,13} {5,8} {6,10} {7,10} {8,10}\n",
        number, node.address(), node.state(),
        std::to_string(node.units_done()) + "/" +
            std::to_string(node.units_given()),
        std::to_string(node.retired()) + "/" +
            std::to_string(node.instructions()),
        llvm::formatv("{0:F3}", s.busy_ns() / 1e9).str(),
        formatBytes(s.loaded_bytes()),
        formatBytes(s.fetched_bytes() + s.peer_bytes()),
        formatBytes(s.stored_bytes()));
    if (!node.lost_why().empty())
      os << "        lost: " << node.lost_why() << "\n";
  }
}

int phobos::cluster::runtime::queryStatus(const std::string &address,
                                          const Credentials &credentials) {
  auto channel = channelTo(address, credentials);
  auto deadline = [] {
    return std::chrono::system_clock::now() + std::chrono::seconds(5);
  };
  {
    auto scheduler = wire::Scheduler::NewStub(channel);
    grpc::ClientContext context;
    prepareCall(context, credentials);
    context.set_deadline(deadline());
    wire::JobState state;
    grpc::Status result =
        scheduler->JobStatus(&context, wire::StatusRequest(), &state);
    if (result.ok()) {
      printJobState(address, state);
      return 0;
    }
    // A pod serves no Scheduler service: ask it as a pod.
    if (result.error_code() != grpc::StatusCode::UNIMPLEMENTED)
      return fail(describeCall("the scheduler or pod at " + address, result));
  }
  auto stub = wire::Pod::NewStub(channel);
  grpc::ClientContext context;
  prepareCall(context, credentials);
  context.set_deadline(deadline());
  wire::StatusRequest request;
  wire::PodStatus status;
  grpc::Status result = stub->Status(&context, request, &status);
  if (!result.ok())
    return fail(describeCall("the pod at " + address, result));
  llvm::outs() << "pod " << status.address() << ": " << status.device() << "\n"
               << "  scheduler " << status.scheduler()
               << (status.attached() ? " (attached)" : " (not attached)") << "\n";
  if (status.job_id())
    llvm::outs() << "  job " << llvm::format_hex_no_prefix(status.job_id(), 16)
                 << ": node " << status.node() << ", " << status.retired()
                 << " of " << status.instructions()
                 << " instructions retired, busy "
                 << llvm::format("%.3f", status.stats().busy_ns() / 1e9)
                 << " s\n";
  else
    llvm::outs() << "  idle\n";
  return 0;
}

int phobos::cluster::runtime::cancelJob(const std::string &address,
                                        const Credentials &credentials) {
  auto scheduler = wire::Scheduler::NewStub(channelTo(address, credentials));
  grpc::ClientContext context;
  prepareCall(context, credentials);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  wire::CancelRequest request;
  wire::CancelReply reply;
  grpc::Status result = scheduler->Cancel(&context, request, &reply);
  if (result.error_code() == grpc::StatusCode::UNIMPLEMENTED)
    return fail(address + " is a pod, not a scheduler: --cancel ADDR takes "
                           "the scheduler's --listen address");
  if (!result.ok())
    return fail(describeCall("the scheduler at " + address, result));
  llvm::outs() << "job " << llvm::format_hex_no_prefix(reply.job_id(), 16)
               << " of the scheduler at " << address
               << " is cancelled: it stops its pods and removes its partial "
                  "outputs\n";
  return 0;
}
