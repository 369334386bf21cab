//===- phobos-sched.cpp - The cluster scheduler ---------------------------===//
//
// phobos-sched --plan JOB [--nodes N] [--vram BYTES] [--cluster NAME=V,...]
//              [--autotune --node-tflops X --link-gbps Y]
//              [--ingest fetch|direct] [--json] [--ptx-dir DIR] [--chip sm_90]
//
// Reads a job file, imports its @cluster kernel for the cluster compiler,
// splits it into a cluster program and leaves, binds the job (dims,
// tensors, scalars), plans it on N nodes and prints the cluster program and
// every node's instructions (or all of it as JSON), and compiles each leaf
// to PTX. Nothing is run: running plans on pods is the runtime's part.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/IR/ClusterOps.h"
#include "Phobos/Dialect/Cluster/Transforms/Passes.h"
#include "Phobos/Dialect/Cluster/Transforms/Planning.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Job/JobFile.h"
#include "Phobos/Driver/Compiler.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace phobos;
namespace cl = llvm::cl;
namespace cluster = phobos::cluster;
namespace tile = phobos::tile;

static cl::OptionCategory category("phobos-sched options");
static cl::opt<std::string> planJob("plan",
                                    cl::desc("Plan this job and print the "
                                             "plan; run nothing"),
                                    cl::value_desc("JOB"), cl::cat(category));
static cl::opt<int64_t> nodes("nodes", cl::desc("Number of nodes"),
                              cl::init(1), cl::cat(category));
static cl::opt<int64_t> vram("vram",
                             cl::desc("Memory of one node in bytes (default: "
                                      "no limit)"),
                             cl::value_desc("BYTES"), cl::init(0),
                             cl::cat(category));
static cl::opt<std::string>
    clusterSizes("cluster",
                 cl::desc("@cluster sizes: NAME=V,... (the rest take their "
                          "first value, or are searched with --autotune)"),
                 cl::value_desc("NAME=V,..."), cl::cat(category));
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
static cl::opt<std::string>
    ingest("ingest",
           cl::desc("fetch: each input super-tile is loaded once and fetched "
                    "by the other nodes; direct: every node loads its own"),
           cl::init("fetch"), cl::cat(category));
static cl::opt<bool> json("json", cl::desc("Print the plan as JSON"),
                          cl::cat(category));
static cl::opt<std::string> ptxDir("ptx-dir",
                                   cl::desc("Write each leaf's PTX and launch "
                                            "contract here"),
                                   cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> chip("chip", cl::desc("Target GPU of the leaves"),
                                 cl::init("sm_90"), cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "phobos-sched: " << message << "\n";
  return 1;
}

namespace {
/// Binds the job's tensors and scalars to the program, reporting mistakes
/// at the job's lines.
class JobBinder {
public:
  JobBinder(const job::Job &job, llvm::SourceMgr &jobSources,
            cluster::ProgramOp program)
      : job(job), jobSources(jobSources), program(program) {}

  bool bind(llvm::StringMap<int64_t> &dims);

private:
  bool error(llvm::SMLoc loc, const llvm::Twine &message) {
    job::reportError(jobSources, loc, message, llvm::errs());
    return false;
  }

  const job::Job &job;
  llvm::SourceMgr &jobSources;
  cluster::ProgramOp program;
};
} // namespace

/// `A: tensor<f32>[M, K]`, as the kernel declares it.
static std::string describeParam(cluster::TensorOp tensor) {
  std::string text = (tensor.getSymName() + ": tensor<").str();
  llvm::raw_string_ostream os(text);
  os << tensor.getTensorType().getElementType() << ">[";
  llvm::interleaveComma(tensor.getDims(), os, [&](Attribute dim) {
    os << cast<StringAttr>(dim).getValue();
  });
  os << "]";
  return text;
}

bool JobBinder::bind(llvm::StringMap<int64_t> &dims) {
  MLIRContext *ctx = program.getContext();
  Builder builder(ctx);
  StringRef kernel = program.getSymName();
  llvm::StringSet<> kernelDims;
  for (const job::Dim &dim : job.dims)
    dims[dim.name] = dim.value;

  for (cluster::TensorOp tensor :
       program.getBody().front().getOps<cluster::TensorOp>()) {
    const job::Tensor *given = job.findTensor(tensor.getSymName());
    if (!given)
      return error(job.sourceLoc, "the job gives no tensor '" +
                                      tensor.getSymName() + "' (kernel '" +
                                      kernel + "' has " +
                                      describeParam(tensor) + ")");
    Type element = tensor.getTensorType().getElementType();
    std::string spelled;
    llvm::raw_string_ostream os(spelled);
    os << element;
    if (spelled != name(given->element))
      return error(given->elementLoc, "tensor '" + given->name + "' is " +
                                          spelled + " in kernel '" + kernel +
                                          "', not " + name(given->element));
    if (static_cast<int64_t>(given->shape.size()) != tensor.getRank())
      return error(given->shapeLoc,
                   "tensor '" + given->name + "' has rank " +
                       llvm::Twine(tensor.getRank()) + " in kernel '" + kernel +
                       "' (" + describeParam(tensor) + "), but the job gives " +
                       llvm::Twine(given->shape.size()) + " extents");
    for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
      StringRef dim = cast<StringAttr>(tensor.getDims()[axis]).getValue();
      kernelDims.insert(dim);
      int64_t extent = given->shape[axis];
      int64_t fixed = tensor.getTensorType().getDimSize(axis);
      if (!ShapedType::isDynamic(fixed) && fixed != extent)
        return error(given->shapeLoc,
                     "axis " + llvm::Twine(axis) + " of '" + given->name +
                         "' is " + llvm::Twine(fixed) + " in kernel '" +
                         kernel + "', but the job gives " +
                         llvm::Twine(extent));
      auto [it, inserted] = dims.try_emplace(dim, extent);
      if (!inserted && it->second != extent)
        return error(given->shapeLoc,
                     "axis " + llvm::Twine(axis) + " of '" + given->name +
                         "' is dim " + dim + ", which is " +
                         llvm::Twine(it->second) + ", but the shape says " +
                         llvm::Twine(extent));
    }
    // The job's mode against what the kernel does.
    cluster::AccessMode kernelMode = tensor.getMode();
    job::Mode mode = given->mode;
    if (kernelMode == cluster::AccessMode::read && mode != job::Mode::Read)
      return error(given->modeLoc, "kernel '" + kernel + "' only reads '" +
                                       given->name + "', so its mode is read");
    if (kernelMode == cluster::AccessMode::write && mode != job::Mode::Write)
      return error(given->modeLoc, "kernel '" + kernel + "' only writes '" +
                                       given->name + "', so its mode is write");
    if (kernelMode == cluster::AccessMode::rmw && mode == job::Mode::Read)
      return error(given->modeLoc,
                   "kernel '" + kernel + "' writes '" + given->name +
                       "', so its mode is rmw (or write, to start from zeros)");
    tensor.setMode(mode == job::Mode::Read    ? cluster::AccessMode::read
                   : mode == job::Mode::Write ? cluster::AccessMode::write
                                              : cluster::AccessMode::rmw);
    tensor.setShapeAttr(builder.getDenseI64ArrayAttr(given->shape));
    tensor.setUriAttr(builder.getStringAttr(given->uri));
  }
  for (const job::Tensor &given : job.tensors)
    if (!program.lookupTensor(given.name))
      return error(given.loc, "'" + given.name +
                                  "' is not a tensor parameter of kernel '" +
                                  kernel + "'");
  for (const job::Dim &dim : job.dims)
    if (!kernelDims.contains(dim.name))
      return error(dim.loc, "'" + dim.name + "' is not a dim of kernel '" +
                                kernel + "'");

  for (cluster::ScalarOp scalar :
       program.getBody().front().getOps<cluster::ScalarOp>()) {
    const job::Scalar *given = job.findScalar(scalar.getSymName());
    std::string spelled;
    llvm::raw_string_ostream os(spelled);
    os << scalar.getType();
    if (!given)
      return error(job.sourceLoc, "the job gives no scalar '" +
                                      scalar.getSymName() + "' (kernel '" +
                                      kernel + "' has " + scalar.getSymName() +
                                      ": " + spelled + ")");
    if (spelled != name(given->type))
      return error(given->typeLoc, "scalar '" + given->name + "' is " +
                                       spelled + " in kernel '" + kernel +
                                       "', not " + name(given->type));
    Type type = scalar.getType();
    TypedAttr value;
    if (auto floatType = dyn_cast<FloatType>(type))
      value = builder.getFloatAttr(floatType, given->value);
    else
      value = builder.getIntegerAttr(type, static_cast<int64_t>(given->value));
    scalar.setValueAttr(value);
  }
  for (const job::Scalar &given : job.scalars)
    if (!program.lookupScalar(given.name))
      return error(given.loc, "'" + given.name +
                                  "' is not a scalar parameter of kernel '" +
                                  kernel + "'");
  return true;
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

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "phobos-sched: plans a cluster job (the runtime is not built yet)\n");
  if (planJob.empty())
    return fail("give a job to plan: phobos-sched --plan JOB");
  if (ingest != "fetch" && ingest != "direct")
    return fail("--ingest: expected fetch or direct, got '" + ingest + "'");

  // The job.
  llvm::SourceMgr jobSources;
  auto jobBuffer = llvm::MemoryBuffer::getFile(planJob, /*IsText=*/true);
  if (!jobBuffer)
    return fail("cannot read '" + planJob + "': " +
                jobBuffer.getError().message());
  jobSources.AddNewSourceBuffer(std::move(*jobBuffer), llvm::SMLoc());
  std::optional<job::Job> job = job::parseJob(jobSources, llvm::errs());
  if (!job || !job::checkStorage(*job, jobSources, llvm::errs()))
    return 1;
  std::string sourcePath = job::resolveSource(*job, planJob);
  if (sourcePath.empty()) {
    job::reportError(jobSources, job->sourceLoc,
                     "cannot find '" + job->source +
                         "' (looked in the current directory and next to "
                         "the job file)",
                     llvm::errs());
    return 1;
  }

  // The kernel, imported for the cluster compiler, and its split.
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  auto source = llvm::MemoryBuffer::getFile(sourcePath, /*IsText=*/true);
  if (!source)
    return fail("cannot read '" + sourcePath + "': " +
                source.getError().message());
  sourceMgr.AddNewSourceBuffer(std::move(*source), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  frontend::ImportOptions importOptions;
  importOptions.kernelName = job->kernel;
  importOptions.markCluster = true;
  OwningOpRef<ModuleOp> module =
      frontend::importPhobos(sourceMgr, &context, importOptions);
  if (!module)
    return 1;
  tile::KernelOp kernel = selectKernel(*module, *job, jobSources, sourcePath);
  if (!kernel)
    return 1;
  std::string kernelName = kernel.getName().str();
  PassManager split(&context);
  split.addPass(cluster::createClusterSplit());
  if (failed(split.run(*module)))
    return 1;
  auto program = *module->getOps<cluster::ProgramOp>().begin();

  // The job's tensors, scalars and dims, then the plan.
  cluster::PlanOptions options;
  if (!JobBinder(*job, jobSources, program).bind(options.dims))
    return 1;
  std::vector<std::string> sizes;
  llvm::SmallVector<StringRef> items;
  StringRef(clusterSizes).split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items)
    sizes.push_back(item.str());
  std::string problem = cluster::parseNameValues(sizes, options.cluster,
                                                 "--cluster");
  if (!problem.empty())
    return fail(problem);
  options.nodes = nodes;
  options.vramBytes = vram;
  options.autotune = autotune;
  options.nodeTflops = nodeTflops;
  options.linkGbps = linkGbps;
  options.ingest =
      ingest == "direct" ? cluster::Ingest::Direct : cluster::Ingest::Fetch;
  std::vector<cluster::Candidate> ranking;
  if (failed(cluster::planProgram(program, options, &ranking)))
    return 1;
  if (failed(mlir::verify(program)))
    return fail("internal error: the plan does not verify");

  // The leaves, compiled one module each.
  OwningOpRef<ModuleOp> leaves = ModuleOp::create(program.getLoc());
  OpBuilder builder = OpBuilder::atBlockEnd(leaves->getBody());
  for (tile::KernelOp leaf : program.getBody().front().getOps<tile::KernelOp>())
    builder.clone(*leaf);
  FailureOr<std::vector<CompiledKernel>> compiled =
      compileModule(*leaves, chip);
  if (failed(compiled))
    return 1;
  llvm::StringMap<std::string> ptxFiles;
  if (!ptxDir.empty()) {
    if (std::error_code error = llvm::sys::fs::create_directories(ptxDir))
      return fail("cannot create '" + ptxDir + "': " + error.message());
    for (CompiledKernel &leaf : *compiled) {
      std::string stem = ptxDir + "/" + leaf.contract.kernel;
      llvm::json::Value contract = leaf.contract.toJSON();
      contract.getAsObject()->insert({"chip", leaf.chip});
      if (!writeFile(stem + ".ptx", leaf.ptx) ||
          !writeFile(stem + ".json",
                     llvm::formatv("{0:2}", contract).str() + "\n"))
        return 1;
      ptxFiles[leaf.contract.kernel] = stem + ".ptx";
    }
  }

  if (json) {
    llvm::json::Value plan = cluster::planToJSON(program);
    llvm::json::Object *root = plan.getAsObject();
    root->insert({"job", planJob});
    root->insert({"source", sourcePath});
    root->insert({"chip", chip.getValue()});
    if (llvm::json::Array *leavesJSON = root->getArray("leaves"))
      for (llvm::json::Value &leaf : *leavesJSON) {
        llvm::json::Object *object = leaf.getAsObject();
        StringRef name = *object->getString("name");
        for (CompiledKernel &compiledLeaf : *compiled)
          if (compiledLeaf.contract.kernel == name)
            object->insert({"ptx_bytes",
                            static_cast<int64_t>(compiledLeaf.ptx.size())});
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
  os << "cluster program of '" << kernelName << "' (" << sourcePath << "):\n";
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
    for (CompiledKernel &compiledLeaf : *compiled)
      if (compiledLeaf.contract.kernel == leaf.getName())
        os << ", " << chip << " PTX " << compiledLeaf.ptx.size() << " bytes";
    if (ptxFiles.count(leaf.getName()))
      os << " (" << ptxFiles[leaf.getName()] << ")";
    os << "\n";
  }
  if (autotune) {
    os << "cost model (" << llvm::format("%g", nodeTflops.getValue())
       << " TFLOP/s per node, " << llvm::format("%g", linkGbps.getValue())
       << " GB/s links):\n";
    cluster::printRanking(ranking, os);
  }
  cluster::printPlan(program, os);
  return 0;
}
