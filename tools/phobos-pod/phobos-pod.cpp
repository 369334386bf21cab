//===- phobos-pod.cpp - One node of a Phobos cluster ----------------------===//
//
//   phobos-pod --listen ADDR [--scheduler ADDR] [--device N | --interpret]
//              [--credentials DIR | --insecure] [--rank N] [--slurm] [--one-job]
//
// Serves its tiles to the other pods on --listen and attaches to the
// scheduler: joins, sends heartbeats with its progress, runs the share of
// each job the scheduler gives it (PodEngine.h), and after a job waits for
// the next scheduler. One pod per GPU; with --interpret the leaves run on
// the CPU interpreter, so that the whole cluster path runs without a GPU.
// Under Slurm (--slurm) what is not given comes from the task's
// environment: its rank, the scheduler's host and its GPU.
//
//===----------------------------------------------------------------------===//

#include "Phobos/ClusterRuntime/Credentials.h"
#include "Phobos/ClusterRuntime/Log.h"
#include "Phobos/ClusterRuntime/PodBackend.h"
#include "Phobos/ClusterRuntime/PodEngine.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Support/Environment.h"
#include "phobos_cluster.grpc.pb.h"

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace phobos::cluster::runtime;
namespace wire = phobos::cluster::wire;

ABSL_FLAG(std::string, listen, "",
          "Address of this pod's tile service, HOST:PORT (port 0: any free "
          "port; see --address-file)");
ABSL_FLAG(std::string, advertise, "",
          "Address the other pods use to reach this one (default: --listen, "
          "with the port it got)");
ABSL_FLAG(std::string, scheduler, "",
          "Address of the scheduler (phobos-sched --listen; default "
          "127.0.0.1:7070, with --slurm the first host of the allocation, "
          "port 7070)");
ABSL_FLAG(int, device, -1,
          "The GPU this pod runs on (default 0; with --slurm, the task's own)");
ABSL_FLAG(int, rank, -1,
          "This pod's place among the job's pods, for a scheduler started "
          "with --ranks or --slurm (default with --slurm: SLURM_PROCID)");
ABSL_FLAG(bool, slurm, false,
          "Run as a Slurm task: --rank, --scheduler and --device default to "
          "what the task's environment says");
ABSL_FLAG(bool, one_job, false,
          "Exit when the first scheduler this pod attaches to lets it go "
          "(its job ended, or it went away), instead of waiting for the next");
ABSL_FLAG(bool, interpret, false,
          "Run leaves on the CPU interpreter instead of a GPU");
ABSL_FLAG(int, threads, 0,
          "--interpret: threads per leaf launch (0: every core)");
ABSL_FLAG(std::string, credentials, "",
          "Directory of ca.pem, node.pem, node.key and optionally secret "
          "(default: $PHOBOS_CLUSTER_CREDENTIALS)");
ABSL_FLAG(std::string, ca, "", "The cluster CA's certificate (PEM)");
ABSL_FLAG(std::string, cert, "", "This pod's certificate (PEM)");
ABSL_FLAG(std::string, key, "", "This pod's private key (PEM)");
ABSL_FLAG(std::string, secret_file, "", "The cluster's shared secret");
ABSL_FLAG(bool, insecure, false,
          "No TLS and no authentication (loopback addresses only)");
ABSL_FLAG(int, io_threads, 4, "Threads for loads, stores and allocations");
ABSL_FLAG(int64_t, memory_budget, 0,
          "The most bytes of tiles this pod holds at once (0: no limit but "
          "the device's)");
ABSL_FLAG(int64_t, chunk_bytes, 1 << 20,
          "Bytes per chunk of a served tile (4 KiB to 128 MiB)");
ABSL_FLAG(int, scheduler_timeout_ms, 30000,
          "Detach from a scheduler that answers no keepalive ping for this "
          "long (a stopped or cut-off machine that never closed the "
          "connection), and wait for the next one");
ABSL_FLAG(std::string, store_writes, "auto",
          "How stores write output files: map (a shared mapping, so the pods of "
          "a machine write one file at once), write (pwrite), or auto (map on "
          "tmpfs, ramfs, ext4, XFS and btrfs, write elsewhere)");
ABSL_FLAG(bool, verbose, false, "Log every instruction");
ABSL_FLAG(std::string, log_time, "utc",
          "How log lines give the time: utc (ISO 8601, the default) or "
          "elapsed (seconds since the start)");
ABSL_FLAG(std::string, address_file, "",
          "Write the advertised address to this file once serving");
ABSL_FLAG(int, test_compute_delay_ms, 0,
          "Testing: sleep this long before every compute");
ABSL_FLAG(bool, test_skip_compute, false,
          "Measuring: run no leaf (the outputs are not the kernel's), so that "
          "a job's time is its loads, fetches and stores");
ABSL_FLAG(
    int, test_start_delay_ms, 0,
    "Testing: sleep this long before taking up a job the scheduler starts "
    "(its peers' first fetches find no job here)");
ABSL_FLAG(bool, test_die_while_serving, false,
          "Testing: exit in the middle of serving the first tile");

namespace {

/// Who this pod's log lines say speaks: `pod ADDR`, with `(rank R)` under
/// --rank; `pod` until it listens. Set once, before the threads that log.
std::string logName = "pod";

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "phobos-pod: %s\n", message.c_str());
  std::exit(1);
}

std::string codeName(grpc::StatusCode code) {
  switch (code) {
  case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
  case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
  case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
  case grpc::StatusCode::CANCELLED: return "CANCELLED";
  case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
  case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
  default: return absl::StrCat("code ", static_cast<int>(code));
  }
}

/// The pod: its tile service, and the job the scheduler gave it.
class PodService final : public wire::Pod::Service {
public:
  PodService(Backend &backend, const Credentials &credentials)
      : backend(backend), credentials(credentials) {}

  std::shared_ptr<JobRun> current() {
    absl::MutexLock lock(&mutex);
    return job;
  }
  void setCurrent(std::shared_ptr<JobRun> run) {
    absl::MutexLock lock(&mutex);
    job = std::move(run);
  }
  void setAttached(bool value) {
    absl::MutexLock lock(&mutex);
    attached = value;
  }

  grpc::Status Fetch(grpc::ServerContext *context,
                     const wire::FetchRequest *request,
                     grpc::ServerWriter<wire::TileChunk> *writer) override {
    if (grpc::Status status = authorize(*context, credentials); !status.ok())
      return status;
    std::shared_ptr<JobRun> run = current();
    if (!run || run->jobId() != request->job_id())
      return notRunning(request->job_id());
    return run->serveFetch(*context, *request, writer);
  }

  grpc::Status FetchPeer(grpc::ServerContext *context,
                         grpc::ServerReaderWriter<wire::PeerFetchReply,
                                                  wire::PeerFetchMessage> *stream)
      override {
    if (grpc::Status status = authorize(*context, credentials); !status.ok())
      return status;
    wire::PeerFetchMessage first;
    if (!stream->Read(&first) || !first.has_request())
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "a peer fetch starts with its request");
    std::shared_ptr<JobRun> run = current();
    if (!run || run->jobId() != first.request().job_id())
      return notRunning(first.request().job_id());
    return run->servePeerFetch(*context, first.request(), stream);
  }

  /// A fetch for a job this pod does not run: most often one whose StartJob
  /// it has not read yet (the scheduler starts the pods one after another,
  /// and a fast peer may ask first). FAILED_PRECONDITION tells the fetcher
  /// to ask again shortly (PodEngine's runFetch) rather than fall back to
  /// storage at once.
  static grpc::Status notRunning(uint64_t jobId) {
    return grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        absl::StrFormat("this pod runs no job %016x (yet)", jobId));
  }

  grpc::Status Status(grpc::ServerContext *context, const wire::StatusRequest *,
                      wire::PodStatus *status) override {
    if (grpc::Status denied = authorize(*context, credentials); !denied.ok())
      return denied;
    status->set_address(address);
    status->set_backend(backend.kind());
    status->set_device(backend.describe());
    status->set_scheduler(scheduler);
    status->set_version(phobos::compilerVersion().str());
    {
      absl::MutexLock lock(&mutex);
      status->set_attached(attached);
    }
    if (std::shared_ptr<JobRun> run = current())
      run->describe(*status);
    return grpc::Status::OK;
  }

  std::string address, scheduler;

private:
  Backend &backend;
  const Credentials &credentials;
  absl::Mutex mutex;
  std::shared_ptr<JobRun> job;
  bool attached = false;
};

/// One attachment to a scheduler: heartbeats out, commands in, until the
/// stream ends.
void runSession(grpc::ClientReaderWriter<wire::PodMessage, wire::SchedulerMessage>
                    &stream,
                const wire::Welcome &welcome, PodService &service,
                Backend &backend, const Credentials &credentials,
                const EngineOptions &engineOptions) {
  absl::Mutex writeMutex;
  bool open = true;
  auto send = [&](const wire::PodMessage &message) {
    absl::MutexLock lock(&writeMutex);
    if (open && !stream.Write(message))
      open = false;
  };
  // A heartbeat every period, and one at once when the job's share on this
  // pod has retired (its end would otherwise wait up to a period: 0.25 s of
  // every job).
  absl::Mutex beatMutex;
  bool beatNow = false, ended = false;
  auto wakeBeat = [&](bool end) {
    absl::MutexLock lock(&beatMutex);
    beatNow = true;
    ended = ended || end;
  };
  int heartbeatMs = std::max(20, welcome.heartbeat_ms());
  std::thread heartbeats([&] {
    while (true) {
      {
        absl::MutexLock lock(&beatMutex);
        beatMutex.AwaitWithTimeout(absl::Condition(&beatNow),
                                   absl::Milliseconds(heartbeatMs));
        beatNow = false;
        if (ended)
          return;
      }
      wire::PodMessage message;
      wire::Heartbeat *heartbeat = message.mutable_heartbeat();
      if (std::shared_ptr<JobRun> run = service.current()) {
        run->tick();
        run->takeReport(*heartbeat);
      }
      send(message);
    }
  });

  std::shared_ptr<JobRun> job;
  auto endJob = [&](const std::string &how) {
    if (!job)
      return;
    logLine(logName, absl::StrFormat("job %016x %s", job->jobId(), how));
    service.setCurrent(nullptr);
    job->shutdown();
    job.reset();
  };
  wire::SchedulerMessage message;
  while (stream.Read(&message)) {
    if (message.has_start()) {
      if (int delay = absl::GetFlag(FLAGS_test_start_delay_ms); delay > 0)
        absl::SleepFor(absl::Milliseconds(delay));
      const wire::StartJob &start = message.start();
      endJob("replaced by a new job");
      logLine(logName, absl::StrFormat(
                         "job %016x: node %d of %d, %d instructions, kernel '%s'",
                         start.job_id(), start.node(), start.peers_size(),
                         start.segment().instructions_size(), start.kernel()));
      uint64_t jobId = start.job_id();
      job = std::make_shared<JobRun>(
          backend, credentials, start, engineOptions,
          [&send](const wire::JobFailure &failure) {
            wire::PodMessage report;
            *report.mutable_failure() = failure;
            send(report);
          },
          [&wakeBeat] { wakeBeat(false); });
      service.setCurrent(job);
      if (absl::Status status = job->start(); !status.ok()) {
        logLine(logName, absl::StrCat("cannot start the job: ", status.message()));
        wire::PodMessage report;
        report.mutable_failure()->set_job_id(jobId);
        report.mutable_failure()->set_message(
            absl::StrCat("node ", start.node(), " cannot start: ", status.message()));
        send(report);
      }
    } else if (message.has_add()) {
      if (job && job->jobId() == message.add().job_id())
        job->addSegment(message.add().segment());
    } else if (message.has_lost()) {
      if (job && job->jobId() == message.lost().job_id()) {
        logLine(logName, absl::StrCat("node ", message.lost().node(),
                                    " is lost; its tiles come from storage"));
        job->nodeLost(message.lost().node());
      }
    } else if (message.has_end()) {
      if (job && job->jobId() == message.end().job_id()) {
        endJob(message.end().aborted()
                   ? absl::StrCat("aborted: ", message.end().reason())
                   : "done");
        // A scheduler runs one job: detach, so that it can finish.
        break;
      }
    }
  }
  endJob("abandoned: the scheduler went away");
  wakeBeat(true);
  heartbeats.join();
}

/// Attaches to the scheduler, again and again: a scheduler runs one job.
[[noreturn]] void attachForever(PodService &service, Backend &backend,
                                const Credentials &credentials,
                                const EngineOptions &engineOptions,
                                const std::string &advertise,
                                const std::string &schedulerAddress, int rank) {
  std::string scheduler = schedulerAddress;
  // Keepalive pings while attached: a scheduler that stops answering
  // without closing the connection (SIGSTOP, a cable pulled) is left after
  // --scheduler-timeout-ms, instead of never.
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(
      scheduler, channelCredentials(credentials),
      channelArguments(absl::GetFlag(FLAGS_scheduler_timeout_ms)));
  std::unique_ptr<wire::Scheduler::Stub> stub = wire::Scheduler::NewStub(channel);
  std::string lastWait;
  while (true) {
    grpc::ClientContext context;
    prepareCall(context, credentials);
    auto stream = stub->Attach(&context);
    wire::PodMessage join;
    wire::Join *info = join.mutable_join();
    info->set_address(advertise);
    info->set_backend(backend.kind());
    info->set_device(backend.describe());
    info->set_device_ordinal(backend.deviceOrdinal());
    info->set_chip(backend.chip());
    info->set_host_id(engineOptions.hostId);
    info->set_version(phobos::compilerVersion().str());
    info->set_pid(::getpid());
    info->set_memory_bytes(backend.memoryBytes());
    if (rank >= 0)
      info->set_rank(rank);
    stream->Write(join);
    wire::SchedulerMessage first;
    if (!stream->Read(&first)) {
      grpc::Status status = stream->Finish();
      if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
          status.error_code() == grpc::StatusCode::PERMISSION_DENIED)
        die(absl::StrCat("the scheduler at ", scheduler, " refused this pod: ",
                         codeName(status.error_code()), ": ",
                         status.error_message()));
      std::string why = absl::StrCat(codeName(status.error_code()), ": ",
                                     status.error_message());
      if (why != lastWait) {
        // A TLS failure will not pass by itself: say which and why.
        std::string tls = explainTlsFailure(status.error_message());
        logLine(logName, tls.empty()
                           ? absl::StrCat("waiting for the scheduler at ",
                                          scheduler, " (", why, ")")
                           : absl::StrCat("the scheduler at ", scheduler,
                                          " failed the TLS handshake: ", tls,
                                          "; check both machines' "
                                          "--credentials; trying again (", why,
                                          ")"));
        lastWait = why;
      }
      absl::SleepFor(absl::Milliseconds(250));
      continue;
    }
    if (first.has_refusal()) {
      std::string why = absl::StrCat("refused: ", first.refusal().reason());
      if (why != lastWait) {
        logLine(logName, absl::StrCat("the scheduler at ", scheduler, " ", why,
                                    "; trying again"));
        lastWait = why;
      }
      context.TryCancel();
      stream->Finish();
      absl::SleepFor(absl::Seconds(1));
      continue;
    }
    if (!first.has_welcome()) {
      context.TryCancel();
      stream->Finish();
      die("the scheduler's first message was not a welcome");
    }
    lastWait.clear();
    logLine(logName, absl::StrFormat(
                       "attached to the scheduler at %s as node %d of job %016x",
                       scheduler, first.welcome().node(),
                       first.welcome().job_id()));
    service.setAttached(true);
    runSession(*stream, first.welcome(), service, backend, credentials,
               engineOptions);
    service.setAttached(false);
    context.TryCancel();
    stream->Finish();
    if (absl::GetFlag(FLAGS_one_job)) {
      logLine(logName, "detached; leaving (--one-job)");
      std::exit(0);
    }
    logLine(logName, "detached; waiting for the next scheduler");
    absl::SleepFor(absl::Milliseconds(500));
  }
}

/// The first host of a Slurm host list: `gpu-a` of `gpu-a,gpu-b`, `node07`
/// of `node[07-09,12]` (each bracket's first value, its digits kept).
std::string firstSlurmHost(const std::string &list) {
  std::string host;
  size_t i = 0;
  while (i < list.size() && list[i] != ',') {
    if (list[i] != '[') {
      host += list[i++];
      continue;
    }
    size_t close = list.find(']', i);
    if (close == std::string::npos)
      return "";
    std::string inside = list.substr(i + 1, close - i - 1);
    host += inside.substr(0, inside.find_first_of(",-"));
    i = close + 1;
  }
  return host;
}

/// A non-negative integer from the Slurm variable `name`, or why not.
absl::StatusOr<int> slurmNumber(const char *name) {
  std::optional<std::string> value = phobos::getEnvironment(name);
  if (!value)
    return absl::NotFoundError(absl::StrCat(name, " is not set"));
  int number = 0;
  if (!absl::SimpleAtoi(*value, &number) || number < 0)
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is '", *value, "', not a task number"));
  return number;
}

} // namespace

int main(int argc, char **argv) {
  absl::SetProgramUsageMessage(
      "one node of a Phobos cluster.\n"
      "  phobos-pod --listen HOST:PORT [--scheduler HOST:PORT] "
      "[--device N | --interpret]\n"
      "             [--credentials DIR | --insecure]");
  // Flags are spelled with dashes, as in the other Phobos tools
  // (--address-file); Abseil names them with underscores.
  std::vector<std::string> spelled(argv, argv + argc);
  std::vector<char *> arguments;
  for (std::string &argument : spelled) {
    if (absl::StartsWith(argument, "--"))
      for (size_t i = 2; i < argument.size() && argument[i] != '='; ++i)
        if (argument[i] == '-')
          argument[i] = '_';
    arguments.push_back(argument.data());
  }
  std::vector<char *> positional =
      absl::ParseCommandLine(static_cast<int>(arguments.size()), arguments.data());
  if (positional.size() > 1)
    die(absl::StrCat("unexpected argument '", positional[1], "'"));
  if (std::string clock = absl::GetFlag(FLAGS_log_time); clock == "elapsed")
    setLogClock(LogClock::Elapsed);
  else if (clock != "utc")
    die(absl::StrCat("--log-time: expected utc or elapsed, got '", clock, "'"));
  routeGrpcLogs("pod");
  std::string listen = absl::GetFlag(FLAGS_listen);
  if (listen.empty())
    die("give the address to serve tiles on: --listen HOST:PORT");
  auto storeWrites = phobos::storage::TensorFile::WriteMethod::Auto;
  if (std::string writes = absl::GetFlag(FLAGS_store_writes); writes == "map")
    storeWrites = phobos::storage::TensorFile::WriteMethod::Mapping;
  else if (writes == "write")
    storeWrites = phobos::storage::TensorFile::WriteMethod::Syscall;
  else if (writes != "auto")
    die(absl::StrCat("--store-writes: expected map, write or auto, got '", writes, "'"));
  // Numbers out of range are errors, not clamped: --chunk-bytes 0 served a
  // tile one byte a message.
  auto inRange = [](const char *flag, int64_t value, int64_t least, int64_t most,
                    const char *unit) {
    if (value < least || value > most)
      die(absl::StrCat("--", flag, ": expected ", least, " to ", most, " ", unit,
                       ", got ", value));
  };
  if (absl::GetFlag(FLAGS_device) != -1)
    inRange("device", absl::GetFlag(FLAGS_device), 0, 1023, "(a CUDA device ordinal)");
  if (absl::GetFlag(FLAGS_rank) != -1)
    inRange("rank", absl::GetFlag(FLAGS_rank), 0, 1 << 20, "(the pod's place)");
  // Under Slurm, what is not given comes from the task's environment.
  int rank = absl::GetFlag(FLAGS_rank);
  int device = absl::GetFlag(FLAGS_device);
  std::string scheduler = absl::GetFlag(FLAGS_scheduler);
  if (absl::GetFlag(FLAGS_slurm)) {
    auto need = [](const absl::StatusOr<int> &value, const char *what) {
      if (!value.ok())
        die(absl::StrCat("--slurm: ", value.status().message(),
                         "; run phobos-pod as a task of srun, or give ", what));
      return *value;
    };
    if (rank < 0)
      rank = need(slurmNumber("SLURM_PROCID"), "--rank");
    if (scheduler.empty()) {
      std::optional<std::string> nodes = phobos::getEnvironment("SLURM_JOB_NODELIST");
      std::string host = nodes ? firstSlurmHost(*nodes) : "";
      if (host.empty())
        die(absl::StrCat("--slurm: SLURM_JOB_NODELIST is ",
                         nodes ? absl::StrCat("'", *nodes, "', not a host list")
                               : std::string("not set"),
                         "; run phobos-pod as a task of srun, or give "
                         "--scheduler"));
      scheduler = absl::StrCat(host, ":7070");
    }
    // Slurm's GPU binding leaves a task one visible GPU; a task that sees
    // several takes the one of its local task number.
    if (device < 0 && !absl::GetFlag(FLAGS_interpret)) {
      std::optional<std::string> visible = phobos::getEnvironment("CUDA_VISIBLE_DEVICES");
      device = visible && visible->find(',') == std::string::npos
                   ? 0
                   : need(slurmNumber("SLURM_LOCALID"), "--device");
    }
  }
  if (scheduler.empty())
    scheduler = "127.0.0.1:7070";
  device = std::max(device, 0);
  inRange("threads", absl::GetFlag(FLAGS_threads), 0, 1024, "threads (0: every core)");
  inRange("io-threads", absl::GetFlag(FLAGS_io_threads), 1, 256, "threads");
  inRange("memory-budget", absl::GetFlag(FLAGS_memory_budget), 0,
          int64_t(1) << 50, "bytes (0: no limit)");
  inRange("chunk-bytes", absl::GetFlag(FLAGS_chunk_bytes), 4096,
          kMaxMessageBytes / 2, "bytes");
  inRange("scheduler-timeout-ms", absl::GetFlag(FLAGS_scheduler_timeout_ms), 1000,
          int64_t(24) * 3600 * 1000, "ms");
  inRange("test-compute-delay-ms", absl::GetFlag(FLAGS_test_compute_delay_ms), 0,
          3600 * 1000, "ms");
  inRange("test-start-delay-ms", absl::GetFlag(FLAGS_test_start_delay_ms), 0,
          3600 * 1000, "ms");

  CredentialOptions credentialOptions;
  credentialOptions.directory = absl::GetFlag(FLAGS_credentials);
  if (credentialOptions.directory.empty() && !absl::GetFlag(FLAGS_insecure))
    if (std::optional<std::string> env = phobos::getEnvironment("PHOBOS_CLUSTER_CREDENTIALS"))
      credentialOptions.directory = *env;
  credentialOptions.caFile = absl::GetFlag(FLAGS_ca);
  credentialOptions.certFile = absl::GetFlag(FLAGS_cert);
  credentialOptions.keyFile = absl::GetFlag(FLAGS_key);
  credentialOptions.secretFile = absl::GetFlag(FLAGS_secret_file);
  credentialOptions.insecure = absl::GetFlag(FLAGS_insecure);
  absl::StatusOr<Credentials> credentials = loadCredentials(credentialOptions);
  if (!credentials.ok())
    die(std::string(credentials.status().message()));
  if (absl::Status status = checkListenAddress(*credentials, listen); !status.ok())
    die(std::string(status.message()));
  if (absl::Status status = checkConnectAddress(scheduler); !status.ok())
    die(absl::StrCat("--scheduler: ", status.message()));
  if (std::string advertised = absl::GetFlag(FLAGS_advertise); !advertised.empty())
    if (absl::Status status = checkConnectAddress(advertised); !status.ok())
      die(absl::StrCat("--advertise: ", status.message()));

  std::unique_ptr<Backend> backend;
  if (absl::GetFlag(FLAGS_interpret)) {
    backend = createInterpreterBackend(
        static_cast<unsigned>(std::max(0, absl::GetFlag(FLAGS_threads))));
  } else {
    absl::StatusOr<std::unique_ptr<Backend>> gpu =
        createGpuBackend(device);
    if (!gpu.ok())
      die(absl::StrCat("GPU ", device, ": ",
                       gpu.status().message(),
                       " (use --interpret to run leaves on the CPU)"));
    backend = std::move(*gpu);
  }

  PodService service(*backend, *credentials);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, serverCredentials(*credentials), &port);
  configureServer(builder);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0)
    die(absl::StrCat("cannot listen on '", listen,
                     "' (taken, or not an address of this machine)"));
  std::string advertise = absl::GetFlag(FLAGS_advertise);
  if (advertise.empty()) {
    std::string host = listen.substr(0, listen.rfind(':'));
    if (host == "0.0.0.0" || host == "[::]" || host.empty()) {
      char name[256] = {0};
      ::gethostname(name, sizeof name - 1);
      host = name;
    }
    advertise = absl::StrCat(host, ":", port);
  }
  service.address = advertise;
  service.scheduler = scheduler;
  if (std::string file = absl::GetFlag(FLAGS_address_file); !file.empty()) {
    std::string temporary = file + ".tmp";
    std::ofstream(temporary) << advertise << "\n";
    std::rename(temporary.c_str(), file.c_str());
  }

  EngineOptions engineOptions;
  engineOptions.hostId = hostIdentifier();
  engineOptions.ioThreads =
      static_cast<unsigned>(std::max(1, absl::GetFlag(FLAGS_io_threads)));
  engineOptions.memoryBudget = std::max<int64_t>(0, absl::GetFlag(FLAGS_memory_budget));
  engineOptions.chunkBytes = std::max<int64_t>(1, absl::GetFlag(FLAGS_chunk_bytes));
  engineOptions.verbose = absl::GetFlag(FLAGS_verbose);
  engineOptions.storeWrites = storeWrites;
  engineOptions.computeDelayMs = std::max(0, absl::GetFlag(FLAGS_test_compute_delay_ms));
  engineOptions.skipCompute = absl::GetFlag(FLAGS_test_skip_compute);
  engineOptions.dieWhileServing = absl::GetFlag(FLAGS_test_die_while_serving);
  logName = rank >= 0 ? absl::StrCat("pod ", advertise, " (rank ", rank, ")")
                      : absl::StrCat("pod ", advertise);
  routeGrpcLogs(logName);
  engineOptions.logName = absl::StrCat("pod ", advertise);
  engineOptions.rank = rank;
  logLine(logName, absl::StrCat("serving tiles on ", advertise, " (", backend->describe(),
                              "; ", credentials->description, ")"));
  attachForever(service, *backend, *credentials, engineOptions, advertise,
                scheduler, rank);
}
