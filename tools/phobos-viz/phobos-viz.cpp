//===- phobos-viz.cpp - One page that shows a kernel ----------------------===//
//
// phobos-viz FILE.ph [--kernel NAME] [--variant NAME=V,...] [--dim NAME=V]...
//            [--grid X,Y,Z] [--chip sm_90] [--span-map MAP.json]
//            [--cta X,Y,Z] [--scalar NAME=V]... [--tuning-report R.json]
//            [--cache-dir DIR] [--cluster-job JOB [--nodes N] [--vram B]
//            [--cluster NAME=V,...] [--ingest fetch|direct]
//            | --cluster-plan PLAN.json] [--cluster-summary S.json]
//            [--json] [-o PAGE.html]
//
// Writes one self-contained HTML page (scripts, styles and data inline; no
// server, no network) for a kernel variant and a problem: the source with
// the line of the selected op highlighted, the IR after every pass of the
// pipeline with what each changed, which thread holds which element of each
// laid-out tile, the shared buffers with their swizzle, bytes and bank
// conflicts, the elements of each tensor each op of one CTA touched (an
// interpreter run), which CTA of the whole grid wrote each element, with
// the race check's races marked, the autotuner's search (a report, or the
// tuning cache's record) and a cluster job's plan (planned here, or read),
// with what a run of it measured. --json writes the page's
// data instead (lib/Viz, docs/debugging.md "The visualizer").
//
//===----------------------------------------------------------------------===//

#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Tools/KernelOptions.h"
#include "Phobos/Viz/Visualization.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <tuple>

using namespace phobos;
namespace cl = llvm::cl;

static cl::OptionCategory category("phobos-viz options");

static tools::KernelOptions::Help kernelHelp() {
  tools::KernelOptions::Help help;
  help.dim = "A dim's extent: the grid, and the kernel specialised for it "
             "as phobos-run compiles it";
  help.scalar = "A scalar argument of that run (default: as phobos-run "
                "gives it)";
  help.grid = "The launch grid (default: the one the kernel's slices infer "
              "from --dim)";
  help.chip = "The GPU to compile for (default: sm_90)";
  help.spanMap = "Show the file this span map names (a generated program's "
                 "origin) and link ops to its lines";
  help.cacheDir = "The kernel cache whose tuning records the autotuning "
                  "panel reads (default: $PHOBOS_CACHE_DIR, else "
                  "~/.cache/phobos)";
  return help;
}
static tools::KernelOptions kernelOptions("phobos-viz", category,
                                          kernelHelp());
static tools::VariantOption variant(category);

static cl::opt<std::string> outputFile("o",
                                       cl::desc("The page (default: standard "
                                                "output)"),
                                       cl::value_desc("FILE"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<std::string>
    ctaSpec("cta",
            cl::desc("The CTA whose memory traffic the page shows (an "
                     "interpreter run of that CTA; default 0,0,0)"),
            cl::value_desc("X[,Y[,Z]]"), cl::cat(category));
static cl::opt<bool> jsonOutput("json",
                                cl::desc("Write the page's data (JSON) "
                                         "instead of the page"),
                                cl::cat(category));
static cl::opt<std::string> tuningReportFile(
    "tuning-report",
    cl::desc("The autotuning panel's search: a report phobos-tune --json "
             "wrote (default: the tuning cache's record for these dims)"),
    cl::value_desc("FILE.json"), cl::cat(category));
static cl::opt<std::string> clusterPlanFile(
    "cluster-plan",
    cl::desc("The cluster panel: the plan phobos-sched --plan JOB --json "
             "wrote"),
    cl::value_desc("PLAN.json"), cl::cat(category));
static cl::opt<std::string> clusterSummaryFile(
    "cluster-summary",
    cl::desc("With --cluster-job or --cluster-plan: what phobos-sched "
             "--summary-json wrote after running it"),
    cl::value_desc("SUMMARY.json"), cl::cat(category));
static cl::opt<std::string> clusterJobFile(
    "cluster-job",
    cl::desc("The cluster panel: plan this job (its source is this kernel's "
             "file) as phobos-sched --plan JOB does"),
    cl::value_desc("JOB"), cl::cat(category));
static tools::ClusterPlanOptions::Help clusterPlanHelp() {
  tools::ClusterPlanOptions::Help help;
  help.nodes = "--cluster-job: the nodes to plan for";
  help.vram = "--cluster-job: a node's memory in bytes (default: no limit)";
  help.cluster = "--cluster-job: @cluster sizes, NAME=V,... (the rest take "
                 "their first value)";
  help.ingest = "--cluster-job: fetch (each input super-tile loaded once, "
                "fetched by the other nodes) or direct (every node loads its "
                "own)";
  return help;
}
static tools::ClusterPlanOptions clusterPlan("phobos-viz", category,
                                             clusterPlanHelp());
static cl::opt<uint64_t> maxGridSteps(
    "max-grid-steps",
    cl::desc("Interpreter steps (about 100 ns each) the run of the whole "
             "grid for the grid view may take"),
    cl::init(viz::kDefaultMaxGridSteps), cl::cat(category));
static cl::opt<int64_t> maxWriteRuns(
    "max-write-runs",
    cl::desc("Runs of elements written by one CTA past which the grid view "
             "leaves a tensor's map out"),
    cl::init(viz::kDefaultMaxWriteRuns), cl::cat(category));
static cl::opt<int64_t> maxIrLines(
    "max-ir-lines",
    cl::desc("Lines of IR past which a pass is listed by its counts alone "
             "(0: no limit; the per-thread IR is most of a page's bytes)"),
    cl::init(0), cl::cat(category));
static cl::opt<int64_t> maxGridElements(
    "max-grid-elements",
    cl::desc("Elements of a tile or buffer past which its grid is left out"),
    cl::init(viz::kDefaultMaxGridElements), cl::cat(category));

[[noreturn]] static void usage(const llvm::Twine &message) {
  kernelOptions.usage(message);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "phobos-viz: one HTML page that shows a Phobos kernel\n");

  viz::VisualizationOptions options;
  options.kernel = kernelOptions.kernelName;
  kernelOptions.checkChip();
  options.chip = kernelOptions.chipOr("sm_90");
  if (maxGridElements < 1)
    usage("--max-grid-elements must be at least 1");
  if (maxGridSteps < 1)
    usage("--max-grid-steps must be at least 1");
  if (maxWriteRuns < 1)
    usage("--max-write-runs must be at least 1");
  if (maxIrLines < 0)
    usage("--max-ir-lines must be at least 0");
  options.maxIrLines = static_cast<size_t>(maxIrLines);
  options.maxGridElements = maxGridElements;
  options.maxGridSteps = maxGridSteps;
  options.maxWriteRuns = maxWriteRuns;
  options.variant = variant.parse("phobos-viz");
  options.dims = kernelOptions.dims();

  if (!ctaSpec.empty()) {
    llvm::SmallVector<llvm::StringRef, 3> parts;
    llvm::StringRef(ctaSpec).split(parts, ',');
    if (parts.size() > 3)
      usage("--cta expects X[,Y[,Z]], got '" + ctaSpec + "'");
    for (auto [axis, part] : llvm::enumerate(parts))
      if (part.trim().getAsInteger(10, options.cta[axis]) ||
          options.cta[axis] < 0)
        usage("--cta expects X[,Y[,Z]] of block indices, got '" + ctaSpec +
              "'");
  }
  options.grid = kernelOptions.grid();
  options.scalars = kernelOptions.scalars().values;

  options.cacheDir = kernelOptions.cacheDirectory();
  if (!tuningReportFile.empty()) {
    auto report = readInputFile(tuningReportFile);
    if (!report)
      usage("--tuning-report: " + llvm::toString(report.takeError()));
    options.tuningReportText = (*report)->getBuffer().str();
    options.tuningReportFile = tuningReportFile;
  }

  if (!clusterJobFile.empty() && !clusterPlanFile.empty())
    usage("--cluster-job plans the job, --cluster-plan reads a plan: give "
          "one");
  if (const cl::Option *option = clusterPlan.firstGiven();
      option && clusterJobFile.empty())
    usage("--" + option->ArgStr + " is an option of --cluster-job");
  tools::ClusterPlanOptions::Values plan = clusterPlan.parse();
  options.clusterJob.nodes = plan.nodes;
  options.clusterJob.vramBytes = plan.vramBytes;
  options.clusterJob.directIngest = plan.directIngest;
  options.clusterJob.sizes = std::move(plan.sizes);
  for (auto [file, text, name, option] :
       {std::tuple{&clusterPlanFile, &options.clusterPlanText,
                   &options.clusterPlanFile, "--cluster-plan"},
        std::tuple{&clusterSummaryFile, &options.clusterSummaryText,
                   &options.clusterSummaryFile, "--cluster-summary"},
        std::tuple{&clusterJobFile, &options.clusterJob.text,
                   &options.clusterJob.file, "--cluster-job"}}) {
    if (file->empty())
      continue;
    auto read = readInputFile(*file);
    if (!read)
      usage(llvm::Twine(option) + ": " + llvm::toString(read.takeError()));
    *text = (*read)->getBuffer().str();
    *name = *file;
  }

  auto buffer = readInputFile(kernelOptions.inputFile);
  if (!buffer)
    usage(llvm::toString(buffer.takeError()));
  std::optional<frontend::SpanMap> spanMap = kernelOptions.readSpanMap();
  if (spanMap)
    options.spanMap = &*spanMap;

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  // One thread: the recorder prints the module between passes.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  std::string name = (*buffer)->getBufferIdentifier().str();
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::optional<frontend::SpanMapDiagnosticHandler> spanMapDiagnostics;
  if (spanMap)
    spanMapDiagnostics.emplace(*spanMap, name, sourceMgr, diagnostics,
                               &context);

  mlir::FailureOr<llvm::json::Value> data =
      viz::buildVisualization(sourceMgr, &context, options);
  if (mlir::failed(data))
    return 1;

  std::error_code error;
  llvm::ToolOutputFile output(outputFile, error, llvm::sys::fs::OF_None);
  if (error)
    usage("cannot write '" + outputFile + "': " + error.message());
  if (jsonOutput)
    output.os() << *data << "\n";
  else
    viz::writeVisualizationPage(*data, output.os());
  output.keep();
  return 0;
}
