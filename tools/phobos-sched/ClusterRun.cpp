//===- ClusterRun.cpp - phobos-sched running a job on pods ----------------===//
//
// Threads: gRPC runs one Attach call per pod (reading its heartbeats) plus
// a writer per pod (so that a pod that stops reading never blocks the
// scheduler); the main thread plans, sends, watches and finishes. Shared
// state is under one mutex; the main thread alone decides that a node is
// lost, re-plans and ends the job.
//
// Why this file is long: the run is one state machine (Run: wait for the
// pods, resume from the journal, start, watch, lose a node and re-plan its
// work, finish the outputs, report) whose steps share its state, its first
// error and its summary. Its own parts are files of their own: the state
// the threads share (ClusterState.h), the gRPC service the pods attach to
// (SchedulerService.cpp), the plans turned into what the pods get
// (PlanSegments.cpp) and the clean-up on an interrupt (InterruptCleanup.cpp).
// What could still go: the report (progress lines, the summary table and its
// JSON) and the resume from a journal (openJournal).
//
//===----------------------------------------------------------------------===//

#include "ClusterRun.h"

#include "ClusterState.h"
#include "InterruptCleanup.h"
#include "PlanSegments.h"
#include "SchedulerService.h"
#include "Phobos/ClusterRuntime/Log.h"
#include "Phobos/ClusterRuntime/OutputJournal.h"
#include "phobos_cluster.grpc.pb.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "llvm/Support/FormatVariadic.h"
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <thread>
#include <unistd.h>

using namespace phobos;
using namespace phobos::cluster::runtime;
using namespace phobos::cluster::runtime::sched;
namespace wire = phobos::cluster::wire;
namespace json = llvm::json;

JobPlanner::~JobPlanner() = default;

namespace {

/// A node's measured timeline for the summary: [segment, instruction,
/// start, end] per retired instruction, in seconds since the pod took the
/// job, in order of start.
json::Array timelineJSON(const Node &node) {
  std::vector<TimedInstruction> sorted = node.timeline;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const TimedInstruction &a, const TimedInstruction &b) {
                     return a.startNs < b.startNs;
                   });
  json::Array rows;
  for (const TimedInstruction &timed : sorted)
    rows.push_back(json::Array{static_cast<int64_t>(timed.segment),
                               static_cast<int64_t>(timed.instruction),
                               timed.startNs / 1e9, timed.endNs / 1e9});
  return rows;
}

uint64_t randomWord() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

/// `.c.tensor.phobos-<job key>.partial` beside the output: named by the
/// job, not by one run of it, so that a restarted scheduler finds it.
std::string partialPath(const std::string &path, const std::string &key) {
  size_t slash = path.rfind('/');
  std::string directory = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return absl::StrFormat("%s.%s.phobos-%s.partial", directory, base, key);
}

/// `.c.tensor.phobos.journal` beside the job's first output.
std::string journalPath(const std::string &path) {
  size_t slash = path.rfind('/');
  std::string directory = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return absl::StrFormat("%s.%s.phobos.journal", directory, base);
}

std::string stateName(const Node &node) {
  switch (node.state) {
  case NodeState::Waiting: return "waiting";
  case NodeState::Joined: return "joined";
  case NodeState::Running: return "done";
  case NodeState::Lost: return "lost";
  }
  return "?";
}

/// The job on the cluster, driven by the main thread.
class Run {
public:
  Run(const RunSettings &settings, const std::vector<StorageTensor> &tensors,
      JobPlanner &planner)
      : settings(settings), tensors(tensors), planner(planner),
        service(makeSchedulerService(cluster, settings.credentials)) {}

  int run();

private:
  /// run() but the failed job's summary.
  int runJob();
  bool waitForPods();
  /// waitForPods' wait, the cluster's lock held.
  bool awaitPods();
  /// While pods are awaited, every second: asks each awaited pod of a
  /// known address for its status, as a client with this scheduler's
  /// credentials, so that a pod that cannot join is named with the cause
  /// (a TLS handshake that fails, a secret that differs); gRPC's own lines
  /// of a failed handshake name neither the pod nor, on the side that
  /// rejected a certificate, the cause.
  void probePods(const std::atomic<bool> &stop);
  /// Locks the job's journal and, when it is this job's, verifies what it
  /// says was stored; fills `resumePoint`. False on an error (said). Runs
  /// before the scheduler listens: a second scheduler on the same output,
  /// or a damaged journal, is an error before any pod is waited for.
  bool openJournal();
  /// The job did not start (its pods did not come): an earlier run's
  /// journal and partial outputs stay for the next try, an empty journal
  /// this run made goes.
  void leaveJournal();
  bool startJob();
  /// A --cancel arrived: ends the job (the partial outputs removed).
  bool cancelled();
  void watch();
  /// Marks `node` lost and gives its unstored outputs to the others; false
  /// when no node is left.
  bool lose(int node, const std::string &why);
  void send(int node, wire::SchedulerMessage message);
  void endJob(bool aborted, const std::string &reason);
  bool finishOutputs();
  void removePartials();
  void printProgress(bool force);
  void printSummary();
  int fail(const std::string &message);
  /// Prints an error (printf-style, with its "phobos-sched: " and newline)
  /// to stderr; the first is the job's error in the summary.
  void report(const char *format, ...) __attribute__((format(printf, 2, 3)));
  /// --summary-json: what became of the job (`done`, `failed`, `cancelled`),
  /// the error of one that did not finish, the nodes and their bytes.
  void writeSummaryJson(const std::string &outcome);
  /// Waits (mutex held) for the next event or `timeout`.
  void waitForEvent(absl::Duration timeout) {
    struct Seen {
      Cluster *cluster;
      uint64_t events;
    } seen{&cluster, cluster.events};
    cluster.mutex.AwaitWithTimeout(
        absl::Condition(
            +[](Seen *arg) { return arg->cluster->events != arg->events; },
            &seen),
        timeout);
  }

  const RunSettings &settings;
  const std::vector<StorageTensor> &tensors;
  JobPlanner &planner;
  Cluster cluster;
  std::unique_ptr<grpc::Service> service;
  std::unique_ptr<grpc::Server> server;
  PlannedJob planned;
  std::string token;
  std::map<std::string, std::string> partials;
  storage::OutputJournal journal;
  storage::JournalContents journalContents;
  /// Set when an earlier run of the job stored verified super-tiles.
  std::optional<ResumePoint> resumePoint;
  /// The partial outputs already exist (resumed) and are kept.
  bool keepPartials = false;
  /// The journal was empty when this run locked it.
  bool journalFresh = false;
  std::set<uint32_t> outputs;
  int outputTensors = 0;
  absl::Time startedAt, doneAt, planStart;
  double planSeconds = 0;
  absl::Time lastProgress = absl::InfinitePast();
  std::vector<std::string> written;
  bool failed = false;
  /// The first error reported (without "phobos-sched: ").
  std::string error;
  /// What probePods found keeps an awaited pod away, by its address (under
  /// the cluster's lock).
  std::map<std::string, std::string> podTrouble;
};

int Run::fail(const std::string &message) {
  report("phobos-sched: %s\n", message.c_str());
  return 1;
}

void Run::report(const char *format, ...) {
  char buffer[4096];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(buffer, sizeof buffer, format, arguments);
  va_end(arguments);
  std::fputs(buffer, stderr);
  std::fflush(stderr);
  // The first error is the job's; later ones follow from it.
  if (error.empty()) {
    error = buffer;
    if (absl::StartsWith(error, "phobos-sched: "))
      error = error.substr(std::strlen("phobos-sched: "));
    while (!error.empty() && error.back() == '\n')
      error.pop_back();
  }
}

void Run::send(int node, wire::SchedulerMessage message) {
  std::shared_ptr<Link> link;
  {
    absl::MutexLock lock(&cluster.mutex);
    link = cluster.nodes[node].link;
  }
  if (link)
    link->outbox.send(std::move(message));
}

bool Run::waitForPods() {
  std::atomic<bool> stop{false};
  std::thread prober;
  if (!cluster.ranked)
    prober = std::thread([&] { probePods(stop); });
  bool joined = awaitPods();
  stop.store(true);
  if (prober.joinable())
    prober.join();
  return joined;
}

void Run::probePods(const std::atomic<bool> &stop) {
  auto pause = [&](absl::Duration length) {
    for (absl::Time end = absl::Now() + length; !stop.load() && absl::Now() < end;)
      absl::SleepFor(absl::Milliseconds(50));
  };
  pause(absl::Seconds(1));
  while (!stop.load()) {
    std::vector<std::pair<size_t, std::string>> awaited;
    {
      absl::MutexLock lock(&cluster.mutex);
      for (size_t i = 0; i < cluster.nodes.size(); ++i)
        if (cluster.nodes[i].state == NodeState::Waiting)
          awaited.push_back({i, cluster.nodes[i].slot});
    }
    for (auto &[node, address] : awaited) {
      if (stop.load())
        return;
      auto channel = grpc::CreateCustomChannel(
          address, channelCredentials(settings.credentials), channelArguments());
      auto stub = wire::Pod::NewStub(channel);
      grpc::ClientContext context;
      prepareCall(context, settings.credentials);
      context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
      wire::StatusRequest request;
      wire::PodStatus status;
      grpc::Status result = stub->Status(&context, request, &status);
      // What keeps the pod away, and whether it is worth a line now (a pod
      // not started yet is not).
      std::string why;
      bool tell = false;
      std::string tls = explainTlsFailure(result.error_message(), "the pod",
                                          "this scheduler");
      if (result.ok()) {
        why = absl::StrCat("it answers, ",
                           status.attached() ? "attached to" : "looking for",
                           " the scheduler at ", status.scheduler());
      } else if (!tls.empty()) {
        why = absl::StrCat("the TLS handshake between it and this scheduler "
                           "fails: ", tls);
        tell = true;
      } else if (result.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
                 result.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
        why = absl::StrCat("it refuses this scheduler: ", result.error_message());
        tell = true;
      } else if (absl::StrContains(result.error_message(), "onnection refused")) {
        why = "nothing listens there";
      } else {
        why = absl::StrCat("it does not answer (", result.error_message(), ")");
      }
      absl::MutexLock lock(&cluster.mutex);
      if (node >= cluster.nodes.size() ||
          cluster.nodes[node].state != NodeState::Waiting)
        continue;
      std::string &last = podTrouble[address];
      if (why == last)
        continue;
      last = why;
      if (tell)
        say(absl::StrCat("node ", node, " = ", address, " cannot join: ", why,
                         "; check that pod's --credentials against this "
                         "scheduler's"));
    }
    pause(absl::Seconds(1));
  }
}

bool Run::awaitPods() {
  absl::Time deadline = absl::Now() + absl::Milliseconds(settings.joinTimeoutMs);
  absl::MutexLock lock(&cluster.mutex);
  while (true) {
    bool all = true;
    for (const Node &node : cluster.nodes)
      all &= node.state == NodeState::Joined;
    if (all)
      return true;
    if (absl::Now() > deadline || !cluster.cancelledBy.empty())
      break;
    waitForEvent(absl::Milliseconds(200));
  }
  if (!cluster.cancelledBy.empty())
    return false;
  std::vector<std::string> missing, explained;
  std::vector<Node> joined;
  for (const Node &node : cluster.nodes)
    if (node.state != NodeState::Joined) {
      missing.push_back(node.slot);
      auto trouble = podTrouble.find(node.slot);
      explained.push_back(trouble == podTrouble.end()
                              ? node.slot
                              : absl::StrCat(node.slot, " (", trouble->second,
                                             ")"));
    } else {
      joined.push_back(node);
    }
  if (settings.minPods > 0 &&
      static_cast<int>(joined.size()) >= settings.minPods) {
    // Start with those that came, numbered in --pods order; the others are
    // refused if they come later. A welcome said a node number already:
    // the job's StartJob says the one that counts.
    size_t wanted = cluster.nodes.size();
    cluster.nodes = std::move(joined);
    cluster.leftOut.insert(missing.begin(), missing.end());
    std::vector<std::string> numbered;
    for (size_t i = 0; i < cluster.nodes.size(); ++i)
      numbered.push_back(absl::StrCat(i, " = ", cluster.nodes[i].address));
    say(absl::StrFormat("%zu of %zu pods joined within %.0f s, at least %d "
                        "wanted (--min-pods): starting without %s; nodes %s",
                        cluster.nodes.size(), wanted,
                        settings.joinTimeoutMs / 1000.0, settings.minPods,
                        absl::StrJoin(missing, ", "),
                        absl::StrJoin(numbered, ", ")));
    return true;
  }
  std::string fewest =
      settings.minPods > 0
          ? absl::StrFormat("; --min-pods %d would start with %d or more, "
                            "and %zu joined",
                            settings.minPods, settings.minPods, joined.size())
          : "";
  report(
               "phobos-sched: %zu of %zu pods did not join within %.0f s: %s "
               "(is each running with --scheduler %s and the cluster's "
               "credentials?)%s\n",
               missing.size(), missing.size() + joined.size(),
               settings.joinTimeoutMs / 1000.0,
               absl::StrJoin(explained, ", ").c_str(), settings.listen.c_str(),
               fewest.c_str());
  return false;
}

bool Run::cancelled() {
  std::string by;
  {
    absl::MutexLock lock(&cluster.mutex);
    by = cluster.cancelledBy;
  }
  if (by.empty())
    return false;
  endJob(true, absl::StrCat("the job was cancelled by ", by));
  bool hadPartials = !partials.empty();
  removePartials();
  report("phobos-sched: job %016llx cancelled by %s: stopped; %s\n",
               static_cast<unsigned long long>(cluster.jobId), by.c_str(),
               hadPartials ? "its partial outputs were removed and the outputs "
                             "are as they were"
                           : "no output was written");
  return true;
}

bool Run::openJournal() {
  const StorageTensor *first = nullptr;
  for (const StorageTensor &tensor : tensors)
    if (tensor.mode != StorageTensor::Mode::Read && !first)
      first = &tensor;
  if (!first) {
    report("phobos-sched: internal error: the job has no output\n");
    return false;
  }
  absl::StatusOr<storage::OutputJournal> locked =
      storage::OutputJournal::lock(journalPath(first->path));
  if (!locked.ok()) {
    report("phobos-sched: %s\n",
                 std::string(locked.status().message()).c_str());
    return false;
  }
  journal = std::move(*locked);
  absl::StatusOr<storage::JournalContents> earlier = journal.read();
  journalFresh = earlier.ok() && earlier->key.empty() && !earlier->tornTail;
  if (!earlier.ok() && settings.resume) {
    report(
                 "phobos-sched: %s; remove the journal, or run with "
                 "--no-resume to start the job afresh\n",
                 std::string(earlier.status().message()).c_str());
    return false;
  }
  if (!earlier.ok() || earlier->key.empty())
    return true;
  // The partial outputs an earlier run left, as this job names them: a
  // journal never makes the scheduler touch another file.
  std::map<std::string, const StorageTensor *> outputsByName;
  for (const StorageTensor &tensor : tensors)
    if (tensor.mode != StorageTensor::Mode::Read)
      outputsByName[tensor.name] = &tensor;
  if (earlier->key != settings.jobKey || !settings.resume) {
    // Set aside: another job's (or one whose files changed), or --no-resume.
    for (auto &[name, path] : earlier->partials) {
      auto tensor = outputsByName.find(name);
      if (tensor != outputsByName.end() &&
          path == partialPath(tensor->second->path, earlier->key))
        ::unlink(path.c_str());
    }
    if (settings.resume)
      say(absl::StrFormat("the journal %s is of another job, or its files "
                          "changed since (job key %s, this job %s): starting "
                          "afresh",
                          journal.path(), earlier->key, settings.jobKey));
    return true;
  }
  std::map<std::string, storage::TensorFile> files;
  for (auto &[name, tensor] : outputsByName) {
    std::string path = partialPath(tensor->path, settings.jobKey);
    auto listed = earlier->partials.find(name);
    absl::StatusOr<storage::TensorFile> file =
        listed == earlier->partials.end() || listed->second != path
            ? absl::NotFoundError(absl::StrCat("the journal names no partial "
                                               "output ", path))
            : storage::TensorFile::open(path, tensor->layout, /*writable=*/false);
    if (!file.ok()) {
      say(absl::StrFormat("cannot resume from the journal %s: %s: starting "
                          "afresh",
                          journal.path(), file.status().message()));
      return true;
    }
    files.emplace(name, std::move(*file));
  }
  // Each stored tile is read back and compared: a journal line whose bytes
  // did not reach the file (a machine that went down) costs that tile.
  ResumePoint point;
  point.bindings = earlier->bindings;
  std::set<uint32_t> seen;
  std::vector<std::string> redone;
  for (const storage::JournalTile &tile : earlier->stored) {
    auto file = files.find(tile.tensor);
    std::string why;
    if (file == files.end()) {
      why = absl::StrCat("'", tile.tensor, "' is not an output of the job");
    } else {
      const std::vector<int64_t> &shape = file->second.info().shape;
      bool inside = tile.offsets.size() == shape.size();
      for (size_t axis = 0; inside && axis < shape.size(); ++axis)
        inside = tile.shape[axis] <= shape[axis] &&
                 tile.offsets[axis] <= shape[axis] - tile.shape[axis];
      int64_t elements = 1;
      for (int64_t extent : tile.shape)
        elements *= extent;
      std::vector<uint8_t> bytes;
      if (!inside) {
        why = "it lies outside the tensor";
      } else {
        bytes.resize(static_cast<size_t>(
            elements * byteWidth(file->second.info().element)));
        absl::Status read =
            file->second.readRegion(tile.offsets, tile.shape, bytes.data());
        if (!read.ok())
          why = std::string(read.message());
        else if (storage::checksum(bytes.data(), bytes.size()) != tile.checksum)
          why = "the partial output holds other bytes than the journal "
                "recorded";
      }
    }
    if (!why.empty()) {
      redone.push_back(absl::StrFormat("tile %u of %s (%s)", tile.id,
                                       tile.tensor, why));
      continue;
    }
    if (seen.insert(tile.id).second) {
      point.stored.push_back(tile.id);
      journalContents.stored.push_back(tile);
    }
  }
  keepPartials = true;
  for (auto &[name, tensor] : outputsByName)
    partials[name] = partialPath(tensor->path, settings.jobKey);
  say(absl::StrFormat("resuming from the journal %s: %zu output super-tile%s "
                      "stored by an earlier run, read back and verified%s%s",
                      journal.path(), point.stored.size(),
                      point.stored.size() == 1 ? "" : "s",
                      redone.empty() ? ""
                                     : absl::StrFormat(" (%zu more it lists "
                                                       "are computed again)",
                                                       redone.size()),
                      earlier->tornTail ? " (its last line was cut short)" : ""));
  for (const std::string &line : redone)
    say(absl::StrCat("computing again ", line));
  if (!point.stored.empty())
    resumePoint = std::move(point);
  else
    resumePoint = ResumePoint{earlier->bindings, {}};
  return true;
}

void Run::leaveJournal() {
  if (journalFresh)
    journal.remove();
  journal = storage::OutputJournal();
  partials.clear();
  armInterrupt(cluster.jobId, {});
}

bool Run::startJob() {
  std::vector<PodInfo> pods;
  {
    absl::MutexLock lock(&cluster.mutex);
    for (const Node &node : cluster.nodes) {
      PodInfo info;
      info.address = node.join.address();
      info.backend = node.join.backend();
      info.device = node.join.device();
      info.chip = node.join.chip();
      info.hostId = node.join.host_id();
      info.deviceOrdinal = node.join.device_ordinal();
      info.memoryBytes = node.join.memory_bytes();
      pods.push_back(info);
    }
  }
  planStart = absl::Now();
  absl::StatusOr<PlannedJob> plan =
      planner.plan(pods, resumePoint ? &*resumePoint : nullptr);
  if (!plan.ok()) {
    report("phobos-sched: %s\n",
                 std::string(plan.status().message()).c_str());
    return false;
  }
  planned = std::move(*plan);
  if (!planned.ranking.empty())
    std::printf("%s", planned.ranking.c_str());
  const json::Object &root = *planned.plan.getAsObject();
  // A resumed tile must be where this plan puts the tile of that id: the
  // bytes were checked at the journal's place, the unit is skipped by id.
  for (const storage::JournalTile &tile : journalContents.stored) {
    storage::JournalTile expected;
    if (!planGeometry(root, tile.id, expected) || expected.tensor != tile.tensor ||
        expected.offsets != tile.offsets || expected.shape != tile.shape) {
      report(
                   "phobos-sched: the journal %s lists tile %u as %s at %s "
                   "(shape %s), which is not where this job's plan puts it; "
                   "remove the journal, or run with --no-resume to start the "
                   "job afresh\n",
                   journal.path().c_str(), tile.id, tile.tensor.c_str(),
                   absl::StrJoin(tile.offsets, ",").c_str(),
                   absl::StrJoin(tile.shape, ",").c_str());
      return false;
    }
  }
  PlanTables tables(root);
  std::vector<const json::Object *> programs = nodePrograms(root);
  if (programs.size() != cluster.nodes.size()) {
    report("phobos-sched: internal error: %zu node programs for "
                         "%zu pods\n",
                 programs.size(), cluster.nodes.size());
    return false;
  }

  // The outputs go to partial files first (a resumed job's are there).
  for (const StorageTensor &tensor : tensors) {
    if (tensor.mode == StorageTensor::Mode::Read)
      continue;
    ++outputTensors;
    std::string partial = partialPath(tensor.path, settings.jobKey);
    if (!keepPartials) {
      ::unlink(partial.c_str());
      absl::StatusOr<storage::TensorFile> file = storage::TensorFile::create(
          partial, tensor.layout, /*exclusive=*/true);
      if (!file.ok()) {
        report("phobos-sched: tensor '%s': %s\n",
                     tensor.name.c_str(),
                     std::string(file.status().message()).c_str());
        removePartials();
        return false;
      }
    }
    partials[tensor.name] = partial;
  }
  {
    std::vector<std::string> paths;
    for (auto &[name, path] : partials)
      paths.push_back(path);
    paths.push_back(journal.path());
    resetInterruptJournal(static_cast<int64_t>(journalContents.stored.size()));
    armInterrupt(cluster.jobId, paths, /*wroteOutputs=*/true,
                 /*resumable=*/true, /*totalTiles=*/0, journal.path());
  }
  // The journal as this run starts: the plan's sizes, the partial files and
  // what an earlier run stored (verified).
  journalContents.key = settings.jobKey;
  journalContents.bindings.clear();
  if (const json::Object *b = root.getObject("bindings"))
    for (const auto &entry : *b)
      journalContents.bindings[entry.first.str()] = integer(&entry.second);
  journalContents.partials = partials;
  if (absl::Status status = journal.rewrite(journalContents); !status.ok()) {
    report("phobos-sched: %s\n",
                 std::string(status.message()).c_str());
    removePartials();
    return false;
  }

  // What every node gets.
  wire::StartJob common;
  common.set_job_id(cluster.jobId);
  common.set_token(token);
  common.set_kernel(text(root, "program"));
  common.set_heartbeat_ms(settings.heartbeatMs);
  addTensorsAndScalars(common, root, tensors, partials);
  {
    absl::MutexLock lock(&cluster.mutex);
    for (size_t i = 0; i < cluster.nodes.size(); ++i) {
      wire::PeerSpec *peer = common.add_peers();
      peer->set_node(static_cast<uint32_t>(i));
      peer->set_address(cluster.nodes[i].join.address());
      peer->set_host_id(cluster.nodes[i].join.host_id());
      peer->set_backend(cluster.nodes[i].join.backend());
    }
  }
  // Who fetches what from whom: a holder frees a tile after its fetchers.
  std::vector<std::map<uint32_t, std::vector<uint32_t>>> serves(programs.size());
  std::vector<wire::Segment> segments;
  for (size_t node = 0; node < programs.size(); ++node) {
    segments.push_back(toSegment(*programs[node], tables, 0));
    for (const wire::Instruction &instruction : segments.back().instructions())
      if (instruction.kind() == wire::Instruction::FETCH &&
          instruction.from() < serves.size())
        serves[instruction.from()][instruction.tile()].push_back(
            static_cast<uint32_t>(node));
  }

  absl::MutexLock lock(&cluster.mutex);
  int64_t instructionCount = 0;
  for (size_t node = 0; node < programs.size(); ++node) {
    Node &entry = cluster.nodes[node];
    wire::SchedulerMessage message;
    wire::StartJob *start = message.mutable_start();
    *start = common;
    start->set_node(static_cast<uint32_t>(node));
    addLeaves(*start, root, planned.leaves, entry.join);
    *start->mutable_segment() = segments[node];
    for (auto &[tile, fetchers] : serves[node]) {
      wire::ServeSpec *serve = start->add_serves();
      serve->set_tile(tile);
      for (uint32_t fetcher : fetchers)
        serve->add_nodes(fetcher);
    }
    entry.nextSegment = 1;
    entry.instructions = segments[node].instructions_size();
    instructionCount += entry.instructions;
    for (const wire::Instruction &instruction : segments[node].instructions())
      if (instruction.kind() == wire::Instruction::STORE) {
        entry.stores[{0, instruction.id()}] = instruction.tile();
        entry.owned.insert(instruction.tile());
        outputs.insert(instruction.tile());
      }
    for (const wire::TileSpec &tile : segments[node].tiles())
      if (outputs.count(tile.id())) {
        storage::JournalTile &geometry = cluster.outputGeometry[tile.id()];
        geometry.id = tile.id();
        geometry.tensor = common.tensors(tile.tensor()).name();
        geometry.offsets.assign(tile.offsets().begin(), tile.offsets().end());
        geometry.shape.assign(tile.shape().begin(), tile.shape().end());
      }
    entry.state = NodeState::Running;
    entry.lastHeard = absl::Now();
    if (entry.link)
      entry.link->outbox.send(std::move(message));
  }
  cluster.started = true;
  cluster.journal = &journal;
  cluster.kernel = text(root, "program");
  cluster.phase = "running";
  cluster.outputTiles = static_cast<int64_t>(outputs.size());
  cluster.resumedTiles =
      resumePoint ? static_cast<int64_t>(resumePoint->stored.size()) : 0;
  cluster.outputTensors = std::max(1, outputTensors);
  {
    std::vector<std::string> paths;
    for (auto &[name, path] : partials)
      paths.push_back(path);
    paths.push_back(journal.path());
    armInterrupt(cluster.jobId, paths, /*wroteOutputs=*/true,
                 /*resumable=*/true, cluster.outputTiles + cluster.resumedTiles,
                 journal.path());
  }
  planSeconds = absl::ToDoubleSeconds(absl::Now() - planStart);
  std::string bindings;
  if (const json::Object *b = root.getObject("bindings"))
    for (const auto &entry : *b)
      absl::StrAppend(&bindings, bindings.empty() ? "" : " ", entry.first.str(),
                      "=", integer(&entry.second));
  say(absl::StrFormat("job %016x: planned '%s' on %zu nodes (%s) in %.2f s: "
                      "%d instructions, %zu output super-tiles%s",
                      cluster.jobId, text(root, "program"), cluster.nodes.size(),
                      bindings, planSeconds, instructionCount, outputs.size(),
                      resumePoint && !resumePoint->stored.empty()
                          ? absl::StrFormat(
                                        " (%zu more stored by an earlier run)",
                                resumePoint->stored.size())
                          : ""));
  startedAt = absl::Now();
  cluster.startedAt = startedAt;
  return true;
}

bool Run::lose(int node, const std::string &why) {
  std::vector<int64_t> lost;
  std::vector<int> live;
  {
    absl::MutexLock lock(&cluster.mutex);
    Node &entry = cluster.nodes[node];
    if (entry.state == NodeState::Lost)
      return true;
    entry.state = NodeState::Lost;
    entry.lostAt = absl::ToDoubleSeconds(absl::Now() - startedAt);
    entry.lostWhy = why;
    for (uint32_t tile : entry.owned)
      if (!cluster.stored.count(tile))
        lost.push_back(tile);
    for (size_t i = 0; i < cluster.nodes.size(); ++i)
      if (cluster.nodes[i].state == NodeState::Running)
        live.push_back(static_cast<int>(i));
    ++cluster.events;
  }
  say(absl::StrFormat("node %d (%s) lost: %s; %zu of its output super-tiles "
                      "were not stored",
                      node, cluster.nodes[node].address, why, lost.size()));
  // A lost node that still listens (a pause, not a crash) stops its work.
  wire::SchedulerMessage end;
  end.mutable_end()->set_job_id(cluster.jobId);
  end.mutable_end()->set_aborted(true);
  end.mutable_end()->set_reason(absl::StrCat("this node was declared lost: ", why));
  send(node, std::move(end));
  if (live.empty())
    return false;
  for (int survivor : live) {
    wire::SchedulerMessage message;
    message.mutable_lost()->set_job_id(cluster.jobId);
    message.mutable_lost()->set_node(static_cast<uint32_t>(node));
    send(survivor, std::move(message));
  }
  if (lost.empty())
    return true;
  absl::StatusOr<json::Value> replanned =
      planner.replan(lost, static_cast<int64_t>(live.size()));
  if (!replanned.ok()) {
    absl::MutexLock lock(&cluster.mutex);
    cluster.failures.push_back(absl::StrCat("re-planning the work of node ", node,
                                            ": ", replanned.status().message()));
    ++cluster.events;
    return true;
  }
  const json::Object &root = *replanned->getAsObject();
  PlanTables tables(*planned.plan.getAsObject());
  std::vector<const json::Object *> programs = nodePrograms(root);
  std::vector<std::string> labels, targets;
  int64_t instructionCount = 0;
  absl::MutexLock lock(&cluster.mutex);
  for (size_t k = 0; k < programs.size() && k < live.size(); ++k) {
    Node &entry = cluster.nodes[live[k]];
    wire::Segment segment = toSegment(*programs[k], tables, entry.nextSegment);
    if (segment.instructions_size() == 0)
      continue;
    ++entry.nextSegment;
    entry.instructions += segment.instructions_size();
    instructionCount += segment.instructions_size();
    for (const wire::Instruction &instruction : segment.instructions())
      if (instruction.kind() == wire::Instruction::STORE) {
        entry.stores[{segment.id(), instruction.id()}] = instruction.tile();
        entry.owned.insert(instruction.tile());
        for (const wire::TileSpec &tile : segment.tiles())
          if (tile.id() == instruction.tile())
            labels.push_back(tile.label());
      }
    targets.push_back(absl::StrCat(live[k]));
    wire::SchedulerMessage message;
    message.mutable_add()->set_job_id(cluster.jobId);
    *message.mutable_add()->mutable_segment() = std::move(segment);
    if (entry.link)
      entry.link->outbox.send(std::move(message));
  }
  say(absl::StrFormat("re-planned %zu super-tile%s of node %d (%s) onto node%s "
                      "%s from storage: %d instructions",
                      lost.size(), lost.size() == 1 ? "" : "s", node,
                      absl::StrJoin(labels, ", "), targets.size() == 1 ? "" : "s",
                      absl::StrJoin(targets, ", "), instructionCount));
  return true;
}

void Run::endJob(bool aborted, const std::string &reason) {
  absl::MutexLock lock(&cluster.mutex);
  cluster.finished = true;
  for (Node &node : cluster.nodes) {
    if (!node.link)
      continue;
    wire::SchedulerMessage message;
    message.mutable_end()->set_job_id(cluster.jobId);
    message.mutable_end()->set_aborted(aborted);
    message.mutable_end()->set_reason(reason);
    node.link->outbox.send(std::move(message));
  }
}

void Run::removePartials() {
  {
    absl::MutexLock lock(&cluster.mutex);
    cluster.journal = nullptr;
  }
  for (auto &[name, path] : partials)
    ::unlink(path.c_str());
  partials.clear();
  journal.remove();
  armInterrupt(cluster.jobId, {});
}

bool Run::finishOutputs() {
  for (const StorageTensor &tensor : tensors) {
    if (tensor.mode == StorageTensor::Mode::Read)
      continue;
    const std::string &partial = partials[tensor.name];
    absl::StatusOr<storage::TensorFile> file =
        storage::TensorFile::open(partial, tensor.layout, /*writable=*/true);
    absl::Status status = file.ok() ? file->sync() : file.status();
    if (status.ok() && std::rename(partial.c_str(), tensor.path.c_str()) != 0)
      status = absl::UnavailableError(absl::StrCat(
          "cannot move ", partial, " to ", tensor.path, ": ", std::strerror(errno)));
    if (!status.ok()) {
      report("phobos-sched: tensor '%s': %s\n", tensor.name.c_str(),
                   std::string(status.message()).c_str());
      removePartials();
      return false;
    }
    // Read back for the checksum: what a user compares runs by.
    absl::StatusOr<storage::TensorFile> done =
        storage::TensorFile::open(tensor.path, tensor.layout, false);
    std::string checksum = "?";
    if (done.ok()) {
      std::vector<uint8_t> bytes(static_cast<size_t>(tensor.layout.dataBytes()));
      if (done->readBytes(0, tensor.layout.dataBytes(), bytes.data()).ok())
        checksum = absl::StrFormat("xxh3:%016x",
                                   storage::checksum(bytes.data(), bytes.size()));
    }
    written.push_back(absl::StrCat("wrote ", tensor.name, " to ", tensor.uri, " (",
                                   tensor.layout.describe(), ", ", checksum, ")"));
  }
  partials.clear();
  {
    absl::MutexLock lock(&cluster.mutex);
    cluster.journal = nullptr;
  }
  journal.remove();
  return true;
}

void Run::printProgress(bool force) {
  absl::Time now = absl::Now();
  if (!force && now - lastProgress < absl::Milliseconds(settings.progressMs))
    return;
  lastProgress = now;
  std::vector<std::string> lines;
  {
    absl::MutexLock lock(&cluster.mutex);
    for (size_t i = 0; i < cluster.nodes.size(); ++i) {
      Node &node = cluster.nodes[i];
      if (node.state != NodeState::Running)
        continue;
      const wire::NodeStats &s = node.stats;
      std::string line = absl::StrFormat(
          "node %zu: %zu/%zu units, %d/%d instructions, %d compute%s, loaded "
          "%s, fetched %s, served %s, stored %s, busy %.2f s",
          i, node.storedHere.size() / std::max(1, outputTensors),
          node.owned.size() / std::max(1, outputTensors), node.retired,
          node.instructions, s.computes(), s.computes() == 1 ? "" : "s",
          formatBytes(s.loaded_bytes()),
          formatBytes(s.fetched_bytes() + s.peer_bytes()),
          formatBytes(s.served_bytes()), formatBytes(s.stored_bytes()),
          s.busy_ns() / 1e9);
      if (line != node.lastProgress) {
        node.lastProgress = line;
        lines.push_back(std::move(line));
      }
    }
    // The whole job in one line, when something moved.
    if (!lines.empty()) {
      int per = std::max(1, outputTensors);
      int64_t done = static_cast<int64_t>(cluster.stored.size()) / per;
      int64_t resumed = cluster.resumedTiles / per;
      int64_t total = static_cast<int64_t>(outputs.size()) / per + resumed;
      int64_t moved = 0;
      for (const Node &node : cluster.nodes)
        moved += node.stats.loaded_bytes() + node.stats.fetched_bytes() +
                 node.stats.peer_bytes() + node.stats.stored_bytes();
      double seconds = absl::ToDoubleSeconds(now - startedAt);
      int64_t left = total - resumed - done;
      std::string eta = left == 0 ? "0.0 s"
                        : done > 0    ? absl::StrFormat("%.1f s", seconds / done * left)
                                      : "unknown";
      lines.push_back(absl::StrFormat(
          "job: %d of %d units stored%s, %d left, moved %s in %.1f s, ETA %s",
          done + resumed, total,
          resumed ? absl::StrFormat(" (%d by an earlier run)", resumed) : "",
          left, formatBytes(moved), seconds, eta));
    }
  }
  for (const std::string &line : lines)
    logLine("progress", line, stdout);
}

void Run::watch() {
  absl::Time lastLook = absl::Now();
  while (true) {
    std::vector<std::pair<int, std::string>> losses;
    std::string failure;
    bool done = false;
    {
      absl::MutexLock lock(&cluster.mutex);
      waitForEvent(absl::Milliseconds(100));
      absl::Time now = absl::Now();
      // This thread looks every 100 ms at most. When it was not scheduled
      // for longer (a loaded or suspended machine), the heartbeats sent
      // meanwhile may still wait in the sockets, unread by the threads that
      // stalled with it: the scheduler's own silence is not held against
      // the pods, whose silences are counted without it.
      absl::Duration stalled = now - lastLook - absl::Milliseconds(200);
      lastLook = now;
      if (stalled > absl::ZeroDuration())
        for (Node &node : cluster.nodes)
          node.lastHeard = std::min(now, node.lastHeard + stalled);
      for (size_t i = 0; i < cluster.nodes.size(); ++i) {
        Node &node = cluster.nodes[i];
        if (node.state != NodeState::Running)
          continue;
        if (!node.link || !node.link->connected)
          losses.push_back({static_cast<int>(i), "its connection closed"});
        else if (now - node.lastHeard >
                 absl::Milliseconds(settings.heartbeatTimeoutMs))
          losses.push_back(
              {static_cast<int>(i),
               absl::StrFormat("no heartbeat for %.1f s",
                               absl::ToDoubleSeconds(now - node.lastHeard))});
      }
      if (!cluster.failures.empty())
        failure = cluster.failures.front();
      done = cluster.stored.size() >= outputs.size();
      if (done && cluster.cancelledBy.empty())
        cluster.phase = "finishing";
    }
    if (cancelled()) {
      failed = true;
      return;
    }
    if (!failure.empty()) {
      endJob(true, failure);
      removePartials();
      report("phobos-sched: job %016llx failed: %s; no output was "
                           "written\n",
                   static_cast<unsigned long long>(cluster.jobId), failure.c_str());
      failed = true;
      return;
    }
    if (done) {
      doneAt = absl::Now();
      return;
    }
    for (auto &[node, why] : losses)
      if (!lose(node, why)) {
        absl::MutexLock lock(&cluster.mutex);
        std::vector<std::string> story;
        for (size_t i = 0; i < cluster.nodes.size(); ++i)
          story.push_back(absl::StrFormat("node %zu at %.2f s (%s)", i,
                                          cluster.nodes[i].lostAt,
                                          cluster.nodes[i].lostWhy));
        cluster.failures.push_back(absl::StrFormat(
            "every node is lost (%s): the job cannot finish; %zu of %zu output "
            "super-tiles were stored",
            absl::StrJoin(story, ", "), cluster.stored.size(), outputs.size()));
        ++cluster.events;
      }
    printProgress(false);
  }
}

void Run::printSummary() {
  double seconds = absl::ToDoubleSeconds(doneAt - startedAt);
  cluster.mutex.Lock();
  int lostCount = 0;
  for (const Node &node : cluster.nodes)
    lostCount += node.state == NodeState::Lost;
  std::string summary = absl::StrFormat(
      "job %016x '%s' done in %.3f s (planning and compiling %.2f s before) "
      "on %zu nodes",
      cluster.jobId, text(*planned.plan.getAsObject(), "program"), seconds,
      planSeconds, cluster.nodes.size());
  if (lostCount)
    absl::StrAppend(&summary, absl::StrFormat(", %d lost", lostCount));
  int64_t resumedUnits = cluster.resumedTiles / std::max(1, outputTensors);
  if (resumedUnits)
    absl::StrAppend(&summary,
                    absl::StrFormat("; resumed: %d of %d units were stored by "
                                    "an earlier run",
                                    resumedUnits,
                                    resumedUnits + static_cast<int64_t>(outputs.size()) /
                                                       std::max(1, outputTensors)));
  std::printf("%s\n", summary.c_str());
  std::printf("%-5s %-22s %-6s %5s %8s %8s %10s %10s %10s %10s %10s\n", "node",
              "pod", "state", "units", "computes", "busy_s", "loaded", "fetched",
              "gpu-gpu", "served", "stored");
  wire::NodeStats total;
  for (size_t i = 0; i < cluster.nodes.size(); ++i) {
    const Node &node = cluster.nodes[i];
    const wire::NodeStats &s = node.stats;
    std::printf("%-5zu %-22s %-6s %5zu %8lld %8.3f %10s %10s %10s %10s %10s\n", i,
                node.address.c_str(), stateName(node).c_str(),
                node.storedHere.size() / std::max(1, outputTensors),
                static_cast<long long>(s.computes()), s.busy_ns() / 1e9,
                formatBytes(s.loaded_bytes()).c_str(),
                formatBytes(s.fetched_bytes()).c_str(),
                formatBytes(s.peer_bytes()).c_str(),
                formatBytes(s.served_bytes()).c_str(),
                formatBytes(s.stored_bytes()).c_str());
    if (node.state == NodeState::Lost)
      std::printf("      lost at %.2f s: %s\n", node.lostAt, node.lostWhy.c_str());
    total.set_loaded_bytes(total.loaded_bytes() + s.loaded_bytes());
    total.set_fetched_bytes(total.fetched_bytes() + s.fetched_bytes());
    total.set_peer_bytes(total.peer_bytes() + s.peer_bytes());
    total.set_stored_bytes(total.stored_bytes() + s.stored_bytes());
    total.set_computes(total.computes() + s.computes());
    total.set_busy_ns(total.busy_ns() + s.busy_ns());
  }
  int64_t moved = total.loaded_bytes() + total.fetched_bytes() +
                  total.peer_bytes() + total.stored_bytes();
  std::printf("total: %zu units, %lld computes, busy %.3f s; %.3g GFLOP, %.3g "
              "GFLOP/s; moved %s (loaded %s, fetched %s, GPU to GPU %s, stored "
              "%s)\n",
              outputs.size() / std::max(1, outputTensors),
              static_cast<long long>(total.computes()), total.busy_ns() / 1e9,
              planned.flops / 1e9, seconds > 0 ? planned.flops / 1e9 / seconds : 0.0,
              formatBytes(moved).c_str(), formatBytes(total.loaded_bytes()).c_str(),
              formatBytes(total.fetched_bytes()).c_str(),
              formatBytes(total.peer_bytes()).c_str(),
              formatBytes(total.stored_bytes()).c_str());
  for (const std::string &line : written)
    std::printf("%s\n", line.c_str());
  std::fflush(stdout);

  cluster.mutex.Unlock();
  writeSummaryJson("done");
}

void Run::writeSummaryJson(const std::string &outcome) {
  if (settings.summaryJson.empty())
    return;
  absl::MutexLock lock(&cluster.mutex);
  bool started = startedAt != absl::Time();
  double seconds = !started ? 0
                   : doneAt != absl::Time()
                       ? absl::ToDoubleSeconds(doneAt - startedAt)
                       : absl::ToDoubleSeconds(absl::Now() - startedAt);
  int per = std::max(1, outputTensors);
  int lostCount = 0;
  for (const Node &node : cluster.nodes)
    lostCount += node.state == NodeState::Lost;
  json::Array nodes;
  for (size_t i = 0; i < cluster.nodes.size(); ++i) {
    const Node &node = cluster.nodes[i];
    const wire::NodeStats &s = node.stats;
    json::Object object{{"node", static_cast<int64_t>(i)},
                        {"address", node.address},
                        {"device", node.join.device()},
                        // A job that did not finish says which nodes were
                        // still at work; a finished one, as its table.
                        {"state", outcome != "done" &&
                                          node.state == NodeState::Running &&
                                          node.retired < node.instructions
                                      ? std::string("running")
                                      : stateName(node)},
                        {"units", static_cast<int64_t>(node.storedHere.size() / per)},
                        {"computes", s.computes()},
                        {"busy_seconds", s.busy_ns() / 1e9},
                        {"loaded_bytes", s.loaded_bytes()},
                        {"fetched_bytes", s.fetched_bytes()},
                        {"peer_bytes", s.peer_bytes()},
                        {"served_bytes", s.served_bytes()},
                        {"stored_bytes", s.stored_bytes()},
                        {"peak_bytes", s.peak_bytes()}};
    if (node.state == NodeState::Lost) {
      object["lost_at_seconds"] = node.lostAt;
      object["lost_why"] = node.lostWhy;
    }
    object["timeline"] = timelineJSON(node);
    nodes.push_back(std::move(object));
  }
  for (const std::string &slot : cluster.leftOut)
    nodes.push_back(json::Object{{"address", slot}, {"state", "left out"}});
  json::Array outputsJSON;
  for (const std::string &line : written)
    outputsJSON.push_back(line);
  int64_t resumedUnits = cluster.resumedTiles / per;
  const json::Object *plan = planned.plan.getAsObject();
  json::Object root{
      {"job", absl::StrFormat("%016x", cluster.jobId)},
      {"job_file", settings.job},
      {"program", plan ? text(*plan, "program") : cluster.kernel},
      {"outcome", outcome},
      {"seconds", seconds},
      {"plan_seconds", planSeconds},
      {"flops", planned.flops},
      {"nodes", std::move(nodes)},
      {"lost", static_cast<int64_t>(lostCount)},
      {"units_total", static_cast<int64_t>(outputs.size()) / per + resumedUnits},
      {"units_stored", static_cast<int64_t>(cluster.stored.size()) / per},
      {"resumed_units", resumedUnits},
      {"outputs", std::move(outputsJSON)}};
  if (outcome != "done")
    root["error"] = error;
  std::ofstream out(settings.summaryJson);
  out << llvm::formatv("{0:2}", json::Value(std::move(root))).str() << "\n";
  if (!out)
    std::fprintf(stderr, "phobos-sched: --summary-json: cannot write '%s'\n",
                 settings.summaryJson.c_str());
}

int Run::run() {
  int status = runJob();
  setTlsFailureHook(nullptr);
  if (status != 0) {
    bool cancelledJob;
    {
      absl::MutexLock lock(&cluster.mutex);
      cancelledJob = !cluster.cancelledBy.empty();
    }
    writeSummaryJson(cancelledJob ? "cancelled" : "failed");
  }
  return status;
}

int Run::runJob() {
  cluster.jobId = randomWord();
  cluster.heartbeatMs = settings.heartbeatMs;
  cluster.jobFile = settings.job;
  token.resize(16);
  for (size_t i = 0; i < token.size(); i += 8) {
    uint64_t word = randomWord();
    std::memcpy(&token[i], &word, 8);
  }
  cluster.ranked = settings.ranks > 0;
  std::vector<std::string> slots = settings.pods;
  if (cluster.ranked) {
    slots.clear();
    for (int rank = 0; rank < settings.ranks; ++rank)
      slots.push_back(absl::StrCat("rank ", rank));
  }
  for (const std::string &slot : slots) {
    Node node;
    node.slot = slot;
    node.address = slot;
    cluster.nodes.push_back(std::move(node));
  }
  armInterrupt(cluster.jobId, {});
  if (!openJournal())
    return 1;
  // Interrupted while it waits: an empty journal it made goes; an earlier
  // run's stays for the next try.
  if (journalFresh)
    armInterrupt(cluster.jobId, {journal.path()}, /*wroteOutputs=*/false);

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(settings.listen,
                           serverCredentials(settings.credentials), &port);
  configureServer(builder);
  builder.RegisterService(service.get());
  server = builder.BuildAndStart();
  if (!server || port == 0) {
    leaveJournal();
    return fail(absl::StrCat("cannot listen on '", settings.listen,
                             "': the address is taken (another phobos-sched?) "
                             "or not this machine's"));
  }
  // The address the pods reach: --listen with the port it got (port 0:
  // any free one) and, for a wildcard host, this machine's name.
  std::string host = settings.listen.substr(0, settings.listen.rfind(':'));
  if (host == "0.0.0.0" || host == "[::]" || host.empty()) {
    char name[256] = {0};
    ::gethostname(name, sizeof name - 1);
    host = name;
  }
  std::string address = absl::StrCat(host, ":", port);
  say(absl::StrFormat("job %016x (%s): listening on %s (%s), waiting for %zu "
                      "pod%s: %s",
                      cluster.jobId, settings.job, address,
                      settings.credentials.description, slots.size(),
                      slots.size() == 1 ? "" : "s",
                      cluster.ranked && slots.size() > 1
                          ? absl::StrCat("ranks 0 to ", slots.size() - 1)
                          : absl::StrJoin(slots, ", ")));
  // gRPC's line of a failed handshake names no pod: while pods of known
  // addresses are awaited, probePods names the pod and the cause instead;
  // otherwise the line says which pods have not joined.
  setTlsFailureHook([this](const std::string &meaning) -> std::string {
    absl::MutexLock lock(&cluster.mutex);
    std::vector<std::string> awaited;
    for (const Node &node : cluster.nodes)
      if (node.state == NodeState::Waiting)
        awaited.push_back(node.slot);
    if (!awaited.empty() && !cluster.ranked)
      return "";
    return absl::StrCat("a TLS handshake with a pod or client failed: ",
                        meaning,
                        awaited.empty()
                            ? std::string(" (every pod of the job has joined)")
                            : absl::StrCat(" (not joined yet: ",
                                           absl::StrJoin(awaited, ", "), ")"));
  });
  auto shutdown = [&] {
    setTlsFailureHook(nullptr);
    // Let the pods read their EndJob, then close every call.
    server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
    server->Wait();
    if (settings.reapPods)
      settings.reapPods();
  };
  if (settings.launchPods)
    if (absl::Status status = settings.launchPods(address); !status.ok()) {
      leaveJournal();
      shutdown();
      return fail(std::string(status.message()));
    }
  if (!waitForPods()) {
    if (!cancelled())
      leaveJournal();
    shutdown();
    return 1;
  }
  if (!startJob()) {
    leaveJournal();
    shutdown();
    return 1;
  }
  watch();
  if (failed) {
    shutdown();
    return 1;
  }
  printProgress(true);
  endJob(false, "");
  bool ok = finishOutputs();
  disarmInterrupt();
  if (ok)
    printSummary();
  shutdown();
  return ok ? 0 : 1;
}

} // namespace

int phobos::cluster::runtime::runCluster(const RunSettings &settings,
                                         const std::vector<StorageTensor> &tensors,
                                         JobPlanner &planner) {
  Run run(settings, tensors, planner);
  return run.run();
}
