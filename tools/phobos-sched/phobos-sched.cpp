//===- phobos-sched.cpp - The cluster scheduler ---------------------------===//
//
// phobos-sched JOB --pods ADDR,ADDR,... [--listen ADDR] [--credentials DIR]
//              [--cluster NAME=V,...] [--variant NAME=V,...] [--autotune ...]
//              [--ingest fetch|direct]
// phobos-sched --plan JOB [--nodes N] [--vram BYTES] [--cluster NAME=V,...]
//              [--variant NAME=V,...]
//              [--autotune --node-tflops X --link-gbps Y]
//              [--ingest fetch|direct] [--json] [--ptx-dir DIR] [--chip sm_90]
// phobos-sched JOB --hostfile FILE [--min-pods N] [--no-resume] ...
// phobos-sched --status ADDR | --cancel ADDR
//
// Reads a job file, imports its @cluster kernel for the cluster compiler,
// splits it into a cluster program and leaves, binds the job (dims,
// tensors, scalars) and plans it. With --plan it prints the cluster program
// and every node's instructions (or all of it as JSON) and compiles each
// leaf to PTX; nothing runs. With --pods it runs the job on those pods
// (ClusterRun.h): they join, each gets its share, the scheduler follows
// their progress, re-plans a lost node's work and puts the outputs in
// place; restarted on the same job and storage, it resumes from the
// journal beside the output. --status asks a scheduler (or a pod) what its
// job is doing; --cancel stops a scheduler's job.
//
// Why this file is long: it is the scheduler's command line with its two
// modes over one loaded job (loadJob): --plan, which prints the plan and
// compiles the leaves, and the run on pods, which checks credentials, files
// and the hostfile and keys the job before ClusterRun.cpp runs it. The two
// modes are the candidates for files of their own.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/IR/ClusterOps.h"
#include "Phobos/Dialect/Cluster/Transforms/Passes.h"
#include "Phobos/Dialect/Cluster/Transforms/Planning.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Job/JobBinding.h"
#include "Phobos/Job/JobFile.h"
#include "Phobos/Driver/Session.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Support/Environment.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Target/PassPipeline.h"
#include "Phobos/Tools/KernelOptions.h"

#include "ClusterRun.h"
#include "JobClient.h"
#include "SlurmLaunch.h"
#include "Phobos/ClusterRuntime/Credentials.h"
#include "Phobos/ClusterRuntime/Log.h"
#include "Phobos/ClusterRuntime/TensorStorage.h"
#include "phobos_cluster.grpc.pb.h"
#include <grpcpp/grpcpp.h>

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <sys/stat.h>

using namespace mlir;
using namespace phobos;
namespace cl = llvm::cl;
namespace cluster = phobos::cluster;
namespace tile = phobos::tile;
namespace runtime = phobos::cluster::runtime;
namespace storage = phobos::storage;

static cl::OptionCategory category("phobos-sched options");
static cl::opt<std::string> planJob("plan",
                                    cl::desc("Plan this job and print the "
                                             "plan; run nothing"),
                                    cl::value_desc("JOB"), cl::cat(category));
static tools::ClusterPlanOptions::Help clusterPlanHelp() {
  tools::ClusterPlanOptions::Help help;
  help.nodes = "--plan: the nodes to plan for (a run has one per pod)";
  help.cluster = "@cluster sizes: NAME=V,... (the rest take their first "
                 "value, or are searched with --autotune)";
  return help;
}
static tools::ClusterPlanOptions clusterPlan("phobos-sched", category,
                                             clusterPlanHelp());
/// clusterPlan, checked before the job is read.
static tools::ClusterPlanOptions::Values planValues;
static tools::VariantOption variant(category,
                                   "@autotune values of the leaves: "
                                   "NAME=V,... (the rest take their first "
                                   "value)");
/// variant, checked before the job is read.
static llvm::StringMap<int64_t> variantValues;
static cl::opt<bool> autotune("autotune",
                              cl::desc("Choose the @cluster sizes with the "
                                       "cost model and print its ranking"),
                              cl::cat(category));
static cl::opt<double> nodeTflops("node-tflops",
                                  cl::desc("Cost model: TFLOP/s of a node"),
                                  cl::init(50.0), cl::cat(category));
static cl::opt<double> linkGbps("link-gbps",
                                cl::desc("Cost model: a node's link, GB/s"),
                                cl::init(25.0), cl::cat(category));
static cl::opt<bool> json("json", cl::desc("Print the plan as JSON"),
                          cl::cat(category));
static cl::opt<std::string> ptxDir("ptx-dir",
                                   cl::desc("Write each leaf's PTX and launch "
                                            "contract here"),
                                   cl::value_desc("DIR"), cl::cat(category));
static tools::ChipOption chip(category,
                              "--plan: the GPU to compile the leaves for "
                              "(default: sm_90; a run compiles them for the "
                              "chips of its pods)");

// Running a job.
static cl::opt<std::string> runJob(cl::Positional, cl::desc("[JOB]"),
                                   cl::cat(category));
static cl::opt<std::string>
    podList("pods",
            cl::desc("Run JOB on these pods (their --listen or --advertise "
                     "addresses), one node each, in this order"),
            cl::value_desc("ADDR,ADDR,..."), cl::cat(category));
static cl::opt<std::string>
    listenAddress("listen",
                  cl::desc("Where the pods reach the scheduler (their "
                           "--scheduler)"),
                  cl::value_desc("HOST:PORT"), cl::init("127.0.0.1:7070"),
                  cl::cat(category));
static cl::opt<std::string>
    credentialsDir("credentials",
                   cl::desc("Directory of ca.pem, node.pem, node.key and "
                            "optionally secret (default: "
                            "$PHOBOS_CLUSTER_CREDENTIALS)"),
                   cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> caFile("ca", cl::desc("The cluster CA (PEM)"),
                                   cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string> certFile("cert",
                                     cl::desc("This machine's certificate (PEM)"),
                                     cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string> keyFile("key", cl::desc("Its private key (PEM)"),
                                    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string> secretFile("secret-file",
                                       cl::desc("The cluster's shared secret"),
                                       cl::value_desc("FILE"), cl::cat(category));
static cl::opt<bool> insecure("insecure",
                              cl::desc("No TLS and no authentication "
                                       "(loopback addresses only)"),
                              cl::cat(category));
static cl::opt<int> heartbeatMs("heartbeat-ms",
                                cl::desc("How often pods report"),
                                cl::init(250), cl::cat(category));
static cl::opt<int>
    heartbeatTimeoutMs("heartbeat-timeout-ms",
                       cl::desc("A pod silent this long is lost"),
                       cl::init(5000), cl::cat(category));
static cl::opt<int> joinTimeout("join-timeout",
                                cl::desc("Seconds to wait for the pods to join"),
                                cl::init(60), cl::cat(category));
static cl::opt<int> progressMs("progress-ms",
                               cl::desc("How often progress is printed"),
                               cl::init(1000), cl::cat(category));
static cl::opt<std::string>
    summaryJson("summary-json",
                cl::desc("Write the job's summary as JSON (for failed and "
                         "cancelled jobs too)"),
                cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string>
    logTime("log-time",
            cl::desc("How log lines give the time: utc (ISO 8601, the "
                     "default) or elapsed (seconds since the start)"),
            cl::value_desc("utc|elapsed"), cl::init("utc"), cl::cat(category));
static tools::CacheDirOption
    cacheDir(category, "The kernel cache for compiled leaves (default: "
                       "$PHOBOS_CACHE_DIR, else ~/.cache/phobos)");
static cl::opt<bool> noCache("no-cache",
                             cl::desc("Compile leaves without the kernel cache"),
                             cl::cat(category));
static cl::list<std::string> storageRoots(
    "storage-root",
    cl::desc("A directory outputs may be written under (default: the job "
             "file's directory and the current directory)"),
    cl::value_desc("DIR"), cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string>
    statusOf("status",
             cl::desc("Ask the scheduler (or the pod) at ADDR what its job is "
                      "doing"),
             cl::value_desc("ADDR"), cl::cat(category));
static cl::opt<std::string> cancelAt("cancel",
                                     cl::desc("Cancel the job of the "
                                              "scheduler at ADDR"),
                                     cl::value_desc("ADDR"), cl::cat(category));
static cl::opt<std::string>
    hostfile("hostfile",
             cl::desc("Run JOB on the pods this file lists, one HOST:PORT a "
                      "line (# comments), instead of --pods"),
             cl::value_desc("FILE"), cl::cat(category));
static cl::opt<int> minPods("min-pods",
                            cl::desc("After --join-timeout, start with the "
                                     "pods that joined if there are at least "
                                     "N (default: every pod must join)"),
                            cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<int>
    ranks("ranks",
          cl::desc("Run JOB on N pods taken by rank (their --rank, 0 to N-1) "
                   "from wherever they listen, instead of --pods"),
          cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<bool>
    slurm("slurm",
          cl::desc("Inside a Slurm allocation: start one pod per task "
                   "(SLURM_NTASKS, or --ranks) as a job step of its own, "
                   "with srun"),
          cl::cat(category));
static cl::opt<std::string>
    podArgs("pod-args",
            cl::desc("--slurm: more arguments for every pod (split on white "
                     "space), e.g. '--interpret --threads 1'"),
            cl::value_desc("ARGS"), cl::cat(category));
static cl::opt<std::string>
    srunArgs("srun-args",
             cl::desc("--slurm: more arguments for every pod's srun, e.g. "
                      "'--gpus-per-task=1'"),
             cl::value_desc("ARGS"), cl::cat(category));
static cl::opt<bool>
    noResume("no-resume",
             cl::desc("Start afresh even where a journal says an earlier "
                      "run of this job stored output super-tiles"),
             cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "phobos-sched: " << message << "\n";
  return 1;
}

/// Picks the job's @cluster kernel from the imported module and drops the
/// others.
static tile::KernelOp selectKernel(ModuleOp module, const job::Job &job,
                                   llvm::SourceMgr &jobSources,
                                   StringRef sourcePath) {
  SmallVector<tile::KernelOp> candidates;
  for (auto kernel : llvm::make_early_inc_range(module.getOps<tile::KernelOp>()))
    if (kernel.getClusterAttr())
      candidates.push_back(kernel);
    else
      kernel.erase();
  if (candidates.empty()) {
    job::reportError(jobSources, job.kernel.empty() ? job.sourceLoc : job.kernelLoc,
                     job.kernel.empty()
                         ? "'" + sourcePath + "' has no @cluster kernel"
                         : "kernel '" + job.kernel + "' has no @cluster attribute",
                     llvm::errs());
    return nullptr;
  }
  if (candidates.size() > 1) {
    std::string names;
    for (tile::KernelOp kernel : candidates)
      names += (names.empty() ? "" : ", ") + kernel.getName().str();
    job::reportError(jobSources, job.sourceLoc,
                     "'" + sourcePath + "' has several @cluster kernels (" +
                         names + "); choose one with 'kernel = NAME'",
                     llvm::errs());
    return nullptr;
  }
  return candidates.front();
}

static bool writeFile(const std::string &path, StringRef contents) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error) {
    fail("cannot write '" + path + "': " + error.message());
    return false;
  }
  os << contents;
  return true;
}


namespace {
/// A job read, its kernel imported, split and bound: where both modes
/// start.
struct LoadedJob {
  std::string path;
  llvm::SourceMgr jobSources;
  std::optional<job::Job> job;
  std::string sourcePath;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<SourceMgrDiagnosticHandler> diagnostics;
  OwningOpRef<ModuleOp> module;
  cluster::ProgramOp program;
  std::string kernelName;
  /// The dims the job binds.
  llvm::StringMap<int64_t> dims;

  StringRef sourceText() const {
    return sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  }
};
} // namespace

/// The largest job file or kernel source phobos-sched reads.
static constexpr uint64_t kMaxInputBytes = uint64_t(64) << 20;

static bool loadJob(const std::string &path, MLIRContext &context,
                    LoadedJob &loaded) {
  loaded.path = path;
  // Inputs are regular files of bounded size: a FIFO blocked and /dev/zero
  // took all memory. Sources beyond the front end's 1 MiB are read so that
  // it can refuse them at a location.
  auto jobBuffer = readRegularFile(path, kMaxInputBytes);
  if (!jobBuffer) {
    fail(llvm::toString(jobBuffer.takeError()));
    return false;
  }
  loaded.jobSources.AddNewSourceBuffer(std::move(*jobBuffer), llvm::SMLoc());
  loaded.job = job::parseJob(loaded.jobSources, llvm::errs());
  if (!loaded.job ||
      !job::checkStorage(*loaded.job, loaded.jobSources, llvm::errs()))
    return false;
  const job::Job &job = *loaded.job;
  loaded.sourcePath = job::resolveSource(job, path);
  if (loaded.sourcePath.empty()) {
    job::reportError(loaded.jobSources, job.sourceLoc,
                     "cannot find '" + job.source +
                         "' (looked in the current directory and next to "
                         "the job file)",
                     llvm::errs());
    return false;
  }

  // The kernel, imported for the cluster compiler, and its split.
  auto source = readRegularFile(loaded.sourcePath, kMaxInputBytes);
  if (!source) {
    job::reportError(loaded.jobSources, job.sourceLoc,
                     llvm::toString(source.takeError()), llvm::errs());
    return false;
  }
  loaded.sourceMgr.AddNewSourceBuffer(std::move(*source), llvm::SMLoc());
  loaded.diagnostics =
      std::make_unique<SourceMgrDiagnosticHandler>(loaded.sourceMgr, &context);
  frontend::ImportOptions importOptions;
  importOptions.kernelName = job.kernel;
  importOptions.markCluster = true;
  importOptions.variant = variantValues;
  loaded.module =
      frontend::importPhobos(loaded.sourceMgr, &context, importOptions);
  if (!loaded.module)
    return false;
  tile::KernelOp kernel =
      selectKernel(*loaded.module, job, loaded.jobSources, loaded.sourcePath);
  if (!kernel)
    return false;
  loaded.kernelName = kernel.getName().str();
  PassManager split(&context);
  split.addPass(cluster::createClusterSplit());
  if (failed(split.run(*loaded.module)))
    return false;
  loaded.program = *loaded.module->getOps<cluster::ProgramOp>().begin();

  // The job's tensors, scalars and dims.
  return job::bindJob(job, loaded.program, loaded.dims,
                      [&](llvm::SMLoc loc, const llvm::Twine &message) {
                        job::reportError(loaded.jobSources, loc, message,
                                         llvm::errs());
                      });
}

/// The options every plan of this invocation shares.
static void basePlanOptions(const LoadedJob &loaded,
                            cluster::PlanOptions &options) {
  options.dims = loaded.dims;
  options.cluster = planValues.sizes;
  options.nodes = planValues.nodes;
  options.vramBytes = planValues.vramBytes;
  options.autotune = autotune;
  options.nodeTflops = nodeTflops;
  options.linkGbps = linkGbps;
  options.ingest = planValues.directIngest ? cluster::Ingest::Direct
                                           : cluster::Ingest::Fetch;
}

namespace {
/// A leaf compiled for one chip.
struct CompiledLeaf {
  std::string ptx;
  /// Empty where there is no ptxas.
  std::string cubin;
  llvm::json::Value contract = nullptr;
  /// Read back from the kernel cache rather than compiled.
  bool fromCache = false;
};
} // namespace

/// Compiles `leaf` for `target` through the kernel cache (the same cache
/// phobos-run and the Python package use): a leaf compiled before, by
/// --plan or a run, is read back; otherwise it is compiled (and assembled
/// where ptxas is) and published.
static FailureOr<CompiledLeaf> compileLeaf(const LoadedJob &loaded,
                                           tile::KernelOp leaf,
                                           const std::string &target) {
  std::string root = cacheDir.directory();
  CompileOptions options;
  options.chip = target;
  options.cacheDir = noCache ? "" : root;
  BuildKey key;
  key.source = loaded.sourceText().str();
  // The leaf of an @cluster kernel, not a kernel of the source itself.
  key.kernel = leaf.getName().str() + "@cluster:" + loaded.kernelName;
  FailureOr<KernelBuild> build = getOrCompile(leaf, key, options);
  if (failed(build))
    return failure();
  for (const std::string &note : build->notes)
    llvm::errs() << "phobos-sched: note: " << note << "\n";
  if (!build->storeError.empty())
    llvm::errs() << "phobos-sched: note: not cached: " << build->storeError
                 << "\n";
  // Without a cubin the PTX still runs: the CUDA driver JIT-compiles it.
  CompiledLeaf result;
  result.ptx = std::move(build->kernel.ptx);
  result.cubin = build->cubin.value_or("");
  result.contract = build->kernel.contract.toJSON();
  result.fromCache = build->fromCache;
  return result;
}

/// The --autotune ranking under the cost model's parameters.
static void printCostModel(llvm::ArrayRef<cluster::Candidate> ranking,
                           llvm::raw_ostream &os) {
  os << "cost model (" << llvm::format("%g", nodeTflops.getValue())
     << " TFLOP/s per node, " << llvm::format("%g", linkGbps.getValue())
     << " GB/s links):\n";
  cluster::printRanking(ranking, os);
}

/// --plan: print the plan (or its JSON) and compile the leaves.
static int printPlanOf(LoadedJob &loaded) {
  cluster::PlanOptions options;
  basePlanOptions(loaded, options);
  cluster::ProgramOp program = loaded.program;
  std::vector<cluster::Candidate> ranking;
  if (failed(cluster::planProgram(program, options, &ranking)))
    return 1;
  if (failed(mlir::verify(program)))
    return fail("internal error: the plan does not verify");

  // The leaves, each through the kernel cache.
  std::string target = chip.valueOr("sm_90");
  std::map<std::string, CompiledLeaf> compiled;
  for (tile::KernelOp leaf :
       program.getBody().front().getOps<tile::KernelOp>()) {
    FailureOr<CompiledLeaf> result = compileLeaf(loaded, leaf, target);
    if (failed(result))
      return 1;
    compiled[leaf.getName().str()] = std::move(*result);
  }
  llvm::StringMap<std::string> ptxFiles;
  if (!ptxDir.empty()) {
    if (std::error_code error = llvm::sys::fs::create_directories(ptxDir))
      return fail("cannot create '" + ptxDir + "': " + error.message());
    for (auto &[name, leaf] : compiled) {
      std::string stem = ptxDir + "/" + name;
      llvm::json::Value contract = leaf.contract;
      if (llvm::json::Object *object = contract.getAsObject())
        (*object)["chip"] = target;
      if (!writeFile(stem + ".ptx", leaf.ptx) ||
          !writeFile(stem + ".json",
                     llvm::formatv("{0:2}", contract).str() + "\n"))
        return 1;
      ptxFiles[name] = stem + ".ptx";
    }
  }

  std::string sourcePath = loaded.sourcePath;
  if (json) {
    llvm::json::Value plan = cluster::planToJSON(program);
    llvm::json::Object *root = plan.getAsObject();
    root->insert({"job", loaded.path});
    root->insert({"source", sourcePath});
    root->insert({"chip", target});
    if (llvm::json::Array *leavesJSON = root->getArray("leaves"))
      for (llvm::json::Value &leaf : *leavesJSON) {
        llvm::json::Object *object = leaf.getAsObject();
        StringRef name = *object->getString("name");
        auto found = compiled.find(name.str());
        if (found != compiled.end())
          object->insert(
              {"ptx_bytes", static_cast<int64_t>(found->second.ptx.size())});
        object->insert({"ptx", ptxFiles.count(name)
                                   ? llvm::json::Value(ptxFiles[name])
                                   : llvm::json::Value(nullptr)});
      }
    if (autotune) {
      llvm::json::Array table;
      for (const cluster::Candidate &candidate : ranking) {
        llvm::json::Object sizesJSON;
        for (auto &[name, value] : candidate.sizes)
          sizesJSON[name] = value;
        llvm::json::Object entry{{"sizes", std::move(sizesJSON)},
                                 {"units", candidate.units}};
        if (candidate.dropped.empty()) {
          entry["busiest_node"] = static_cast<int64_t>(candidate.busiest);
          entry["seconds"] = candidate.seconds;
        } else {
          entry["dropped"] = candidate.dropped;
        }
        table.push_back(std::move(entry));
      }
      root->insert({"ranking", std::move(table)});
    }
    llvm::outs() << llvm::formatv("{0:2}", plan) << "\n";
    return 0;
  }

  llvm::raw_ostream &os = llvm::outs();
  os << "cluster program of '" << loaded.kernelName << "' (" << sourcePath
     << "):\n";
  for (Operation &op : program.getBody().front())
    if (isa<cluster::TensorOp, cluster::ScalarOp, cluster::UnitsOp>(op)) {
      op.print(os);
      os << "\n";
    }
  os << "leaves:\n";
  for (tile::KernelOp leaf : program.getBody().front().getOps<tile::KernelOp>()) {
    SmallVector<int64_t, 3> grid = cluster::leafGrid(program, leaf);
    os << "  " << leaf.getName() << ": grid " << grid[0] << "x" << grid[1]
       << "x" << grid[2] << " of " << leaf.getCtaSize() << " threads per "
       << "super-tile";
    auto found = compiled.find(leaf.getName().str());
    if (found != compiled.end())
      os << ", " << target << " PTX " << found->second.ptx.size() << " bytes";
    if (ptxFiles.count(leaf.getName()))
      os << " (" << ptxFiles[leaf.getName()] << ")";
    if (found != compiled.end())
      os << (found->second.fromCache ? ", from the kernel cache" : ", compiled");
    os << "\n";
  }
  if (autotune) {
    printCostModel(ranking, os);
  }
  cluster::printPlan(program, os);
  return 0;
}

//===----------------------------------------------------------------------===//
// Running on pods
//===----------------------------------------------------------------------===//

static std::optional<runtime::Credentials> credentialsFromFlags() {
  runtime::CredentialOptions options;
  options.directory = credentialsDir;
  if (options.directory.empty() && !insecure)
    if (std::optional<std::string> env = getEnvironment("PHOBOS_CLUSTER_CREDENTIALS"))
      options.directory = *env;
  options.caFile = caFile;
  options.certFile = certFile;
  options.keyFile = keyFile;
  options.secretFile = secretFile;
  options.insecure = insecure;
  absl::StatusOr<runtime::Credentials> credentials =
      runtime::loadCredentials(options);
  if (!credentials.ok()) {
    fail(std::string(credentials.status().message()));
    return std::nullopt;
  }
  return *credentials;
}

namespace {
/// The cluster compiler behind the runtime: plans for the pods that
/// joined, compiles the leaves they need (through the kernel cache), and
/// re-plans a lost node's outputs.
class Planner : public runtime::JobPlanner {
public:
  Planner(LoadedJob &loaded) : loaded(loaded) {
    // The program as bound, before planning: every re-plan starts here.
    pristine = OwningOpRef<ModuleOp>(loaded.module->clone());
  }

  absl::StatusOr<runtime::PlannedJob>
  plan(const std::vector<runtime::PodInfo> &pods,
       const runtime::ResumePoint *resume) override {
    cluster::PlanOptions options;
    basePlanOptions(loaded, options);
    options.nodes = static_cast<int64_t>(pods.size());
    if (resume) {
      // The sizes the earlier run chose (the job key covers --cluster), so
      // that its tile ids name the same super-tiles.
      for (auto &[name, value] : resume->bindings)
        options.cluster[name] = value;
      options.autotune = false;
      options.storedOutputs = resume->stored;
    }
    // GPU pods: a node's memory is its device's share.
    bool allGpu = !pods.empty();
    std::map<std::pair<std::string, int>, int> sharers;
    for (const runtime::PodInfo &pod : pods) {
      allGpu &= pod.backend == "gpu" && pod.memoryBytes > 0;
      sharers[{pod.hostId, pod.deviceOrdinal}]++;
    }
    if (options.vramBytes == 0 && allGpu) {
      int64_t share = INT64_MAX;
      for (const runtime::PodInfo &pod : pods)
        share = std::min(share, pod.memoryBytes /
                                    sharers[{pod.hostId, pod.deviceOrdinal}]);
      options.vramBytes = share / 10 * 9;
    }
    std::vector<cluster::Candidate> ranking;
    if (failed(cluster::planProgram(loaded.program, options, &ranking)))
      return absl::FailedPreconditionError(
          absl::StrCat("cannot plan '", loaded.kernelName,
                       "' on these pods (the error is above)"));
    if (failed(mlir::verify(loaded.program)))
      return absl::InternalError("the plan does not verify");
    for (NamedAttribute entry : loaded.program.getBindingsAttr())
      bindings[entry.getName().getValue()] =
          cast<IntegerAttr>(entry.getValue()).getInt();

    runtime::PlannedJob planned;
    planned.plan = cluster::planToJSON(loaded.program);
    if (!ranking.empty() && ranking.front().dropped.empty())
      for (const cluster::NodeCost &node : ranking.front().nodes)
        planned.flops += node.flops;
    if (autotune) {
      llvm::raw_string_ostream os(planned.ranking);
      printCostModel(ranking, os);
    }
    std::set<std::string> chips;
    bool interpreters = false;
    for (const runtime::PodInfo &pod : pods) {
      if (pod.backend == "gpu")
        chips.insert(pod.chip);
      else
        interpreters = true;
    }
    for (tile::KernelOp leaf :
         loaded.program.getBody().front().getOps<tile::KernelOp>()) {
      runtime::LeafBuild build;
      build.name = leaf.getName().str();
      OwningOpRef<ModuleOp> module = ModuleOp::create(leaf.getLoc());
      OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
      builder.clone(*leaf);
      if (interpreters) {
        llvm::raw_string_ostream os(build.mlir);
        // With locations: a leaf that fails names the user's line.
        module->print(os, OpPrintingFlags().enableDebugInfo());
      }
      for (const std::string &target : chips) {
        FailureOr<CompiledLeaf> compiled = compileLeaf(loaded, leaf, target);
        if (failed(compiled))
          return absl::InternalError(absl::StrCat(
              "cannot compile leaf '", build.name, "' for ", target,
              " (the error is above)"));
        runtime::LeafBuild::Compiled &out = build.byChip[target];
        out.ptx = std::move(compiled->ptx);
        out.cubin = std::move(compiled->cubin);
        out.contract = llvm::formatv("{0}", compiled->contract).str();
      }
      planned.leaves.push_back(std::move(build));
    }
    return planned;
  }

  absl::StatusOr<llvm::json::Value>
  replan(const std::vector<int64_t> &outputs, int64_t count) override {
    OwningOpRef<ModuleOp> module(pristine->clone());
    auto program = *module->getOps<cluster::ProgramOp>().begin();
    cluster::PlanOptions options;
    options.dims = loaded.dims;
    options.nodes = count;
    for (auto &entry : bindings)
      options.cluster[entry.getKey()] = entry.getValue();
    options.ingest = cluster::Ingest::Direct;
    options.outputs = outputs;
    if (failed(cluster::planProgram(program, options)))
      return absl::InternalError("re-planning failed (the error is above)");
    return cluster::planToJSON(program);
  }

private:
  LoadedJob &loaded;
  OwningOpRef<ModuleOp> pristine;
  llvm::StringMap<int64_t> bindings;
};
} // namespace

/// The directories outputs may be written under, as real paths:
/// --storage-root, else the job file's directory and the current one.
static std::optional<std::vector<std::string>>
outputRoots(const LoadedJob &loaded) {
  std::vector<std::string> given(storageRoots.begin(), storageRoots.end());
  if (given.empty()) {
    SmallString<256> jobDirectory(loaded.path);
    llvm::sys::path::remove_filename(jobDirectory);
    given = {jobDirectory.empty() ? "." : jobDirectory.str().str(), "."};
  }
  std::vector<std::string> roots;
  for (const std::string &root : given) {
    SmallString<256> real;
    if (llvm::sys::fs::real_path(root, real) || !llvm::sys::fs::is_directory(real)) {
      fail("--storage-root: '" + root + "' is not a directory");
      return std::nullopt;
    }
    roots.push_back(real.str().str());
  }
  return roots;
}

/// Whether the real path `path` is `root` or inside it.
static bool isUnder(StringRef path, StringRef root) {
  if (root == "/")
    return true;
  return path == root || (path.starts_with(root) && path[root.size()] == '/');
}

/// The job's tensor files: inputs exist and hold what the job says; outputs
/// can be written, and only where they belong: a regular file or a new one,
/// under a storage root, not one of the job's inputs (the pods would read
/// what they replace) nor another output. Mistakes are reported at the
/// job's lines.
static bool checkFiles(LoadedJob &loaded,
                       std::vector<runtime::StorageTensor> &tensors) {
  std::optional<std::vector<std::string>> roots = outputRoots(loaded);
  if (!roots)
    return false;
  // Every file the job names, by identity (device and inode) where it
  // exists, else by real path: an output must not meet another tensor.
  std::map<std::pair<dev_t, ino_t>, const job::Tensor *> existingFiles;
  std::map<std::string, const job::Tensor *> newFiles;
  for (const job::Tensor &given : loaded.job->tensors) {
    runtime::StorageTensor tensor;
    tensor.name = given.name;
    tensor.uri = given.uri;
    tensor.mode = given.mode == job::Mode::Read    ? runtime::StorageTensor::Mode::Read
                  : given.mode == job::Mode::Write ? runtime::StorageTensor::Mode::Write
                                                   : runtime::StorageTensor::Mode::Rmw;
    auto error = [&](const std::string &message) {
      job::reportError(loaded.jobSources, given.uriLoc,
                       "tensor '" + given.name + "': " + message, llvm::errs());
      return false;
    };
    absl::StatusOr<std::string> path = storage::pathFromUri(given.uri);
    if (!path.ok())
      return error(std::string(path.status().message()));
    tensor.path = *path;
    auto expected = std::make_pair(given.element, given.shape);
    if (given.mode != job::Mode::Write) {
      absl::StatusOr<storage::TensorInfo> info =
          storage::inspectFile(tensor.path, expected);
      if (!info.ok())
        return error(std::string(info.status().message()));
      tensor.layout = *info;
    } else {
      std::string directory = llvm::sys::path::parent_path(tensor.path).str();
      if (directory.empty())
        directory = ".";
      struct stat status;
      if (::stat(directory.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
        return error("the directory '" + directory + "' does not exist");
      if (::access(directory.c_str(), W_OK) != 0)
        return error("the directory '" + directory + "' is not writable");
      if (llvm::sys::fs::is_directory(tensor.path))
        return error("'" + tensor.path + "' is a directory");
      struct stat existingStatus;
      if (::stat(tensor.path.c_str(), &existingStatus) == 0 &&
          !S_ISREG(existingStatus.st_mode))
        return error("'" + tensor.path + "' is not a regular file (a FIFO, a "
                     "device or a socket); an output is a regular file or a "
                     "new one");
      tensor.layout.element = given.element;
      tensor.layout.shape = given.shape;
      // An existing file with a header of this tensor keeps its format;
      // otherwise the original format (raw f32).
      absl::StatusOr<storage::TensorInfo> existing =
          storage::inspectFile(tensor.path, expected);
      tensor.layout.format = existing.ok() ? existing->format
                                           : storage::Format::Raw;
      tensor.layout.dataOffset = existing.ok() ? existing->dataOffset : 0;
    }
    if (given.mode != job::Mode::Read) {
      // Where the finished output (write or rmw) is renamed to: its
      // directory's real path and its name (a symbolic link there is
      // replaced, not followed). It must be under a storage root.
      SmallString<256> directory(tensor.path), realDirectory;
      llvm::sys::path::remove_filename(directory);
      if (directory.empty())
        directory = ".";
      if (llvm::sys::fs::real_path(directory, realDirectory))
        return error("the directory '" + directory.str().str() +
                     "' does not exist");
      std::string target = (realDirectory + "/" +
                            llvm::sys::path::filename(tensor.path))
                               .str();
      if (!llvm::any_of(*roots, [&](const std::string &root) {
            return isUnder(target, root);
          }))
        return error("'" + target + "' is outside the storage roots (" +
                     llvm::join(*roots, ", ") +
                     "); outputs are written under the job file's directory "
                     "or the current one, or under --storage-root DIR");
    }
    // The same file twice with a write: an output that is also an input, or
    // two outputs (two inputs may share a file).
    const job::Tensor *first = nullptr;
    struct stat status;
    if (::stat(tensor.path.c_str(), &status) == 0) {
      auto [it, fresh] = existingFiles.try_emplace(
          std::make_pair(status.st_dev, status.st_ino), &given);
      if (!fresh)
        first = it->second;
      if (given.mode != job::Mode::Read)
        it->second = &given;
    } else {
      SmallString<256> directory(tensor.path), real;
      llvm::sys::path::remove_filename(directory);
      if (llvm::sys::fs::real_path(directory.empty() ? StringRef(".") : StringRef(directory), real))
        real = directory;
      llvm::sys::path::append(real, llvm::sys::path::filename(tensor.path));
      auto [it, fresh] = newFiles.try_emplace(real.str().str(), &given);
      if (!fresh)
        first = it->second;
    }
    if (first && (first->mode != job::Mode::Read || given.mode != job::Mode::Read)) {
      // Reported at the output (the later line when both are outputs).
      bool thisWrites = given.mode != job::Mode::Read;
      const job::Tensor &at = thisWrites ? given : *first;
      const job::Tensor &with = thisWrites ? *first : given;
      job::reportError(loaded.jobSources, at.uriLoc,
                       "tensor '" + at.name + "': '" + tensor.path +
                           "' is also the file of tensor '" + with.name +
                           "'; an output is written to a file of its own",
                       llvm::errs());
      return false;
    }
    tensors.push_back(std::move(tensor));
  }
  return true;
}

/// The pods of --hostfile: one HOST:PORT a line; `#` starts a comment;
/// blank lines are skipped. Mistakes name the file and the line.
static std::optional<std::vector<std::string>> readHostfile(const std::string &path) {
  auto buffer = readRegularFile(path, uint64_t(1) << 20);
  if (!buffer) {
    fail("--hostfile: " + llvm::toString(buffer.takeError()));
    return std::nullopt;
  }
  std::vector<std::string> pods;
  std::map<std::string, unsigned> firstLine;
  llvm::SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (auto [index, raw] : llvm::enumerate(lines)) {
    unsigned line = static_cast<unsigned>(index) + 1;
    StringRef text = raw.split('#').first.trim();
    if (text.empty())
      continue;
    auto at = [&](const llvm::Twine &message) {
      fail(path + ":" + llvm::Twine(line) + ": " + message);
      return std::nullopt;
    };
    if (text.find_first_of(" \t,") != StringRef::npos)
      return at("expected one HOST:PORT a line, got '" + text + "'");
    std::string address = text.str();
    if (absl::Status status = runtime::checkConnectAddress(address); !status.ok())
      return at(std::string(status.message()));
    auto [it, fresh] = firstLine.try_emplace(address, line);
    if (!fresh)
      return at("'" + address + "' is listed twice (first at line " +
                llvm::Twine(it->second) + ")");
    pods.push_back(address);
  }
  if (pods.empty()) {
    fail("--hostfile: '" + path + "' lists no pod (one HOST:PORT a line)");
    return std::nullopt;
  }
  return pods;
}

/// Names the job and what it reads, for its partial outputs and journal:
/// the job file, the kernel's source, the options that change the result
/// (--cluster, --variant), and the identity (device, inode, size, change
/// time) of every file the job reads. A resumed scheduler finds the run
/// before it by this key; changed inputs give another key, so a journal is
/// never applied to other data.
static std::string jobKey(const LoadedJob &loaded,
                          const std::vector<runtime::StorageTensor> &tensors) {
  std::string material = "phobos-job-key v1\n";
  auto add = [&](StringRef what, StringRef value) {
    material += (what + " " + llvm::Twine(value.size()) + "\n" + value + "\n").str();
  };
  add("job", loaded.jobSources.getMemoryBuffer(loaded.jobSources.getMainFileID())
                 ->getBuffer());
  add("source", loaded.sourceText());
  add("cluster", clusterPlan.clusterSizes);
  add("variant", variant.spec);
  for (const runtime::StorageTensor &tensor : tensors) {
    std::string identity = tensor.name + " " + tensor.path;
    if (tensor.mode != runtime::StorageTensor::Mode::Write) {
      struct stat status;
      if (::stat(tensor.path.c_str(), &status) == 0)
        identity += llvm::formatv(" {0} {1} {2} {3}.{4} {5}.{6}",
                                  status.st_dev, status.st_ino, status.st_size,
                                  status.st_mtim.tv_sec, status.st_mtim.tv_nsec,
                                  status.st_ctim.tv_sec, status.st_ctim.tv_nsec)
                        .str();
    }
    identity += " " + tensor.layout.describe();
    add("tensor", identity);
  }
  return llvm::formatv("{0:x-16}",
                       storage::checksum(material.data(), material.size()))
      .str();
}

static int runOnPods(LoadedJob &loaded) {
  std::optional<runtime::Credentials> credentials = credentialsFromFlags();
  if (!credentials)
    return 1;
  if (absl::Status status =
          runtime::checkListenAddress(*credentials, listenAddress);
      !status.ok())
    return fail(std::string(status.message()));
  runtime::RunSettings settings;
  settings.job = loaded.path;
  settings.listen = listenAddress;
  settings.credentials = *credentials;
  std::optional<runtime::SlurmLauncher> launcher;
  if (slurm) {
    std::optional<std::string> jobId = getEnvironment("SLURM_JOB_ID");
    if (!jobId)
      return fail("--slurm: SLURM_JOB_ID is not set: run phobos-sched inside a "
                  "Slurm allocation (an sbatch script, or salloc)");
    int tasks = ranks;
    if (!ranks.getNumOccurrences()) {
      std::optional<std::string> count = getEnvironment("SLURM_NTASKS");
      if (!count || !llvm::to_integer(*count, tasks, 10) || tasks < 1)
        return fail("--slurm: SLURM_NTASKS is " +
                    (count ? "'" + *count + "'" : std::string("not set")) +
                    ": give the allocation's tasks (sbatch --ntasks N), or "
                    "--ranks N");
    }
    runtime::SlurmLaunchOptions options;
    options.pods = tasks;
    std::string self = llvm::sys::fs::getMainExecutable(
        "phobos-sched", reinterpret_cast<void *>(&fail));
    SmallString<256> pod(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(pod, "phobos-pod");
    options.podPath = pod.str().str();
    std::string host = StringRef(listenAddress).rsplit(':').first.str();
    options.podListenHost =
        StringRef(host).starts_with("127.") || host == "[::1]" ? host : "0.0.0.0";
    // The pods use the scheduler's credentials (a directory the job reads).
    if (!credentialsDir.empty())
      options.podArgs.push_back("--credentials=" + credentialsDir);
    for (auto [flag, value] :
         {std::pair<const char *, std::string>{"--ca=", caFile},
          {"--cert=", certFile}, {"--key=", keyFile},
          {"--secret-file=", secretFile}})
      if (!value.empty())
        options.podArgs.push_back(flag + value);
    if (insecure)
      options.podArgs.push_back("--insecure");
    for (const std::string &argument : runtime::splitArguments(podArgs))
      options.podArgs.push_back(argument);
    options.srunArgs = runtime::splitArguments(srunArgs);
    settings.ranks = tasks;
    launcher.emplace(std::move(options));
  } else if (ranks.getNumOccurrences()) {
    settings.ranks = ranks;
  }
  if (settings.ranks > 0 || ranks.getNumOccurrences()) {
    if (ranks.getNumOccurrences() && (ranks < 1 || ranks > 4096))
      return fail(llvm::formatv("--ranks: expected 1 to 4096 pods, got {0}",
                                ranks.getValue())
                      .str());
    if (!podList.empty() || !hostfile.empty())
      return fail("--ranks and --slurm take the pods by rank: give no --pods "
                  "or --hostfile");
  } else if (!podArgs.empty() || !srunArgs.empty()) {
    return fail("--pod-args and --srun-args go with --slurm");
  }
  if (!hostfile.empty()) {
    std::optional<std::vector<std::string>> pods = readHostfile(hostfile);
    if (!pods)
      return 1;
    settings.pods = std::move(*pods);
  }
  llvm::SmallVector<StringRef> items;
  StringRef(podList).split(items, ',', -1, /*KeepEmpty=*/false);
  std::set<std::string> seen;
  for (StringRef item : items) {
    std::string address = item.trim().str();
    if (absl::Status status = runtime::checkConnectAddress(address); !status.ok())
      return fail("--pods: " + std::string(status.message()));
    if (!seen.insert(address).second)
      return fail("--pods: '" + address + "' is listed twice");
    settings.pods.push_back(address);
  }
  if (settings.pods.empty() && settings.ranks == 0)
    return fail("--pods: give at least one pod address");
  size_t podCount = settings.ranks > 0 ? static_cast<size_t>(settings.ranks)
                                       : settings.pods.size();
  if (minPods.getNumOccurrences() &&
      (minPods < 1 || minPods > static_cast<int>(podCount)))
    return fail(llvm::formatv("--min-pods: expected 1 to {0} (the pods "
                              "listed), got {1}",
                              podCount, minPods.getValue())
                    .str());
  settings.minPods = minPods;
  settings.resume = !noResume;
  auto atLeast = [](const char *flag, int value, int least, const char *unit) {
    return fail(llvm::formatv("--{0}: expected at least {1} {2}, got {3}", flag,
                              least, unit, value)
                    .str());
  };
  if (heartbeatMs < 10)
    return atLeast("heartbeat-ms", heartbeatMs, 10, "ms");
  if (heartbeatTimeoutMs <= heartbeatMs)
    return fail("--heartbeat-timeout-ms must be larger than --heartbeat-ms");
  if (joinTimeout < 1)
    return atLeast("join-timeout", joinTimeout, 1, "s");
  if (progressMs < 10)
    return atLeast("progress-ms", progressMs, 10, "ms");
  settings.heartbeatMs = heartbeatMs;
  settings.heartbeatTimeoutMs = heartbeatTimeoutMs;
  settings.joinTimeoutMs = joinTimeout * 1000;
  settings.progressMs = progressMs;
  settings.summaryJson = summaryJson;
  // The summary is written at the end: its directory is checked now.
  if (!summaryJson.empty()) {
    SmallString<256> directory(summaryJson.getValue());
    llvm::sys::path::remove_filename(directory);
    if (directory.empty())
      directory = ".";
    if (!llvm::sys::fs::is_directory(directory))
      return fail("--summary-json: the directory '" + directory.str().str() +
                  "' does not exist");
  }
  std::vector<runtime::StorageTensor> tensors;
  if (!checkFiles(loaded, tensors))
    return 1;
  settings.jobKey = jobKey(loaded, tensors);
  // Mistakes in the planning options (a value outside the @cluster space,
  // sizes that do not divide the job) are found before any pod is waited
  // for: a trial plan on as many nodes as --pods lists. Its warnings would
  // repeat the real plan's, so only errors pass.
  {
    OwningOpRef<ModuleOp> trial(loaded.module->clone());
    cluster::ProgramOp program = *trial->getOps<cluster::ProgramOp>().begin();
    cluster::PlanOptions options;
    basePlanOptions(loaded, options);
    options.nodes = static_cast<int64_t>(podCount);
    ScopedDiagnosticHandler errorsOnly(program->getContext(), [](Diagnostic &d) {
      return success(d.getSeverity() != DiagnosticSeverity::Error);
    });
    if (failed(cluster::planProgram(program, options)))
      return 1;
  }
  if (launcher) {
    settings.launchPods = [&](const std::string &address) {
      return launcher->launch(address);
    };
    settings.reapPods = [&] { launcher->reap(); };
  }
  Planner planner(loaded);
  return runtime::runCluster(settings, tensors, planner);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "phobos-sched: plans cluster jobs and runs them on phobos-pod nodes\n");
  if (logTime == "elapsed")
    runtime::setLogClock(runtime::LogClock::Elapsed);
  else if (logTime != "utc")
    return fail("--log-time: expected utc or elapsed, got '" + logTime + "'");
  runtime::routeGrpcLogs("sched");
  if (!statusOf.empty() && !cancelAt.empty())
    return fail("--status and --cancel: ask one thing at a time");
  if (!statusOf.empty() || !cancelAt.empty()) {
    std::optional<runtime::Credentials> credentials = credentialsFromFlags();
    if (!credentials)
      return 1;
    return statusOf.empty() ? runtime::cancelJob(cancelAt, *credentials)
                            : runtime::queryStatus(statusOf, *credentials);
  }
  if (planJob.empty() && runJob.empty())
    return fail("give a job: phobos-sched JOB --pods ADDR,... to run it, or "
                "phobos-sched --plan JOB to print its plan");
  if (!planJob.empty() && !runJob.empty())
    return fail("--plan JOB plans without running; give the job once");
  if (!runJob.empty() && podList.empty() && hostfile.empty() && !slurm &&
      !ranks.getNumOccurrences())
    return fail("give the pods to run '" + runJob +
                "' on: --pods ADDR,ADDR,... or --hostfile FILE (or --plan to "
                "only plan it)");
  if (!podList.empty() && !hostfile.empty())
    return fail("give the pods once: --pods ADDR,... or --hostfile FILE");
  planValues = clusterPlan.parse();
  chip.check("phobos-sched");
  variantValues = variant.parse("phobos-sched");
  if (planJob.empty() && clusterPlan.nodes.getNumOccurrences())
    return fail("--nodes is an option of --plan: a run has one node per pod");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  LoadedJob loaded;
  if (!loadJob(planJob.empty() ? runJob : planJob, context, loaded))
    return 1;
  if (!planJob.empty())
    return printPlanOf(loaded);
  return runOnPods(loaded);
}
