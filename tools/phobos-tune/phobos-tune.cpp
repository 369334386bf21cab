//===- phobos-tune.cpp - Search a kernel's @autotune space ----------------===//
//
// phobos-tune FILE.ph --dim NAME=V ... [--chip sm_90] [--json OUT]
//
// Compiles every variant of a kernel's @autotune space in parallel (through
// the kernel cache), checks each against a reference on fresh random inputs,
// times the ones that pass and remembers the fastest for this chip and
// problem shape, so that phobos-run and the Python package use it without
// searching. Progress goes to stderr, the table to stdout. The work is done
// by lib/Tune (Phobos/Tune/Tuner.h); this is its command line.
//
//===----------------------------------------------------------------------===//

#include "ExampleReferences.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Runtime/NpyFile.h"
#include "Phobos/Tools/KernelOptions.h"
#include "Phobos/Tune/Tuner.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Support/Json.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace phobos;
namespace cl = llvm::cl;

static cl::OptionCategory category("phobos-tune options");

static tools::KernelOptions::Help kernelHelp() {
  tools::KernelOptions::Help help;
  help.kernel = "The kernel to tune";
  help.dim = "A dim's extent in the problem";
  help.grid = "The grid of every variant";
  help.chip = "The GPU to compile for (default: the device's, sm_90a on an "
              "sm_90 card; sm_90 without one)";
  return help;
}
static tools::KernelOptions kernelOptions("phobos-tune", category,
                                          kernelHelp());

static tools::MeasureOptions::Help measureHelp() {
  tools::MeasureOptions::Help help;
  help.init = "How to fill a tensor: random (default), uniform:LO:HI, iota, "
              "or a number";
  help.seed = "Seed of the random inputs (default: from the clock: fresh "
              "inputs)";
  help.tolerance = "Largest accepted relative error (default 1e-5, 1e-2 in "
                   "reduced precision)";
  help.noSpecialize = "Compile the general variants, not ones specialised "
                      "for the problem's extents (phobos-run's default "
                      "launches)";
  return help;
}
static tools::MeasureOptions measure("phobos-tune", category, measureHelp());

static cl::opt<std::string>
    backend("backend",
            cl::desc("Where variants run: gpu, or interpreter (the CPU "
                     "stands in for a GPU; times are its wall clock)"),
            cl::init("gpu"), cl::cat(category));
static cl::opt<bool> compileOnly("compile-only",
                                 cl::desc("Only compile the space (and report "
                                          "where the compile time goes)"),
                                 cl::cat(category));
static cl::opt<unsigned> jobs("jobs",
                              cl::desc("Compile threads (default: one per "
                                       "core)"),
                              cl::init(0), cl::cat(category));
static cl::opt<bool> noCubin("no-cubin", cl::desc("Do not run ptxas"),
                             cl::cat(category));
static cl::opt<std::string>
    checkMode("check",
              cl::desc("How variants are checked: reference (the float64 "
                       "reference of an example; the interpreter when there "
                       "is none), interpreter (on a small problem), expected "
                       "(--expect), none"),
              cl::init(""), cl::cat(category));
static cl::list<std::string>
    checkDimSpecs("check-dim",
                  cl::desc("A dim of the check problem (interpreter, expected)"),
                  cl::value_desc("NAME=V"), cl::cat(category));
static cl::list<std::string>
    checkInputSpecs("check-input",
                    cl::desc("A tensor of the check problem, from a .npy file"),
                    cl::value_desc("NAME=FILE.npy"), cl::cat(category));
static cl::list<std::string>
    expectSpecs("expect",
                cl::desc("An expected output of the check problem (.npy)"),
                cl::value_desc("NAME=FILE.npy"), cl::cat(category));
static cl::opt<std::string>
    gridFile("grid-file",
             cl::desc("Grids per variant: {\"grids\": {\"B=64\": [x, y, z]}, "
                      "\"check_grids\": {...}}"),
             cl::value_desc("FILE.json"), cl::cat(category));
static cl::opt<std::string> fixSpec("fix",
                                    cl::desc("Search only variants with these "
                                             "values"),
                                    cl::value_desc("NAME=V,..."),
                                    cl::cat(category));
static cl::opt<std::string>
    variantsSpec("variants",
                 cl::desc("Search exactly these variants, ';'-separated"),
                 cl::value_desc("NAME=V,...;NAME=V,..."), cl::cat(category));
static cl::opt<unsigned> refine("refine",
                                cl::desc("Time the fastest N again, in rounds "
                                         "(0 or 1: no)"),
                                cl::init(3), cl::cat(category));
static cl::opt<bool> noFlush("no-flush",
                             cl::desc("Do not flush the L2 cache before each "
                                      "timed launch"),
                             cl::cat(category));
static cl::opt<bool> force("force",
                           cl::desc("Search even when the tuning cache knows "
                                    "the answer"),
                           cl::cat(category));
static cl::opt<bool> noStore("no-store",
                             cl::desc("Do not remember the winner"),
                             cl::cat(category));
static cl::opt<std::string>
    jsonOutput("json",
               cl::desc("Write the report as JSON (python -m "
                        "phobos.plot_tuning FILE draws it)"),
               cl::value_desc("FILE"), cl::cat(category));
static cl::opt<bool> printCheckDims(
    "print-check-dims",
    cl::desc("Print the small problem the interpreter would check on, as a "
             "JSON object of dims, and stop (nothing is compiled)"),
    cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("No progress on stderr"),
                           cl::cat(category));

[[noreturn]] static void usage(const llvm::Twine &message) {
  kernelOptions.usage(message);
}

static void readArrays(const cl::list<std::string> &specs, llvm::StringRef option,
                       std::map<std::string, HostTensor> &into) {
  for (const std::string &spec : specs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (name.trim().empty() || path.trim().empty())
      usage("--" + option + " expects NAME=FILE.npy, got '" + spec + "'");
    llvm::Expected<HostTensor> tensor = readNpy(path.trim());
    if (!tensor)
      usage("--" + option + " " + name + ": " + llvm::toString(tensor.takeError()));
    into[name.trim().str()] = std::move(*tensor);
  }
}

static std::array<int64_t, 3> parseGrid(const llvm::json::Value &value,
                                        llvm::StringRef where) {
  std::array<int64_t, 3> grid = {1, 1, 1};
  const llvm::json::Array *array = value.getAsArray();
  if (!array || array->empty() || array->size() > 3)
    usage("--grid-file: " + where + " must be a list of 1 to 3 extents");
  for (auto [axis, extent] : llvm::enumerate(*array)) {
    std::optional<int64_t> number = extent.getAsInteger();
    if (!number || *number < 1)
      usage("--grid-file: " + where + " must hold positive integers");
    grid[axis] = *number;
  }
  return grid;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "phobos-tune: search a kernel's @autotune space\n");
  measure.applyExperiments();

  tune::Options options;
  auto buffer = readRegularFile(kernelOptions.inputFile, kMaxInputFileBytes);
  if (!buffer)
    usage(llvm::toString(buffer.takeError()));
  options.sourceFile = kernelOptions.inputFile;
  options.source = (*buffer)->getBuffer().str();
  options.kernel = kernelOptions.kernelName;
  options.spanMapFile = kernelOptions.spanMapFile;
  options.backend = backend;
  options.chip = kernelOptions.chip;
  options.jobs = jobs;
  options.compileOnly = compileOnly;
  options.useCubin = !noCubin;
  options.cacheDir = kernelOptions.cacheDir;
  options.references = &examples::exampleReferences();
  options.reference = measure.referenceName;
  options.tolerance = measure.tolerance;
  options.seed = measure.seed.getNumOccurrences()
                     ? measure.seed.getValue()
                     : static_cast<uint64_t>(
                           std::chrono::system_clock::now().time_since_epoch().count());
  options.warmup = measure.warmup;
  options.repeat = std::max(1u, measure.repeat.getValue());
  options.refineTop = refine;
  options.flushL2 = !noFlush;
  options.force = force;
  options.noStore = noStore;
  options.specialize = !measure.noSpecialize;
  if (!quiet) {
    options.progress = &llvm::errs();
    options.progressInPlace = llvm::sys::Process::StandardErrIsDisplayed();
  }

  options.problem.dims = kernelOptions.dims();
  options.checkProblem.dims =
      tools::parseDims("phobos-tune", "check-dim", checkDimSpecs);
  tools::ScalarValues scalars = kernelOptions.scalars();
  options.problem.scalars = std::move(scalars.values);
  options.problem.integerScalars = std::move(scalars.integers);
  options.problem.inits = measure.inits();
  options.checkProblem.inits = options.problem.inits;
  readArrays(checkInputSpecs, "check-input", options.checkProblem.inputs);
  readArrays(expectSpecs, "expect", options.expected);

  if (!fixSpec.empty()) {
    std::string problem = frontend::parseVariantSpec(fixSpec, options.fixed);
    if (!problem.empty())
      usage("--fix: " + problem);
  }
  if (!variantsSpec.empty()) {
    llvm::SmallVector<llvm::StringRef> items;
    llvm::StringRef(variantsSpec).split(items, ';', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef item : items) {
      llvm::StringMap<int64_t> variant;
      std::string problem = frontend::parseVariantSpec(item, variant);
      if (!problem.empty())
        usage("--variants: " + problem);
      options.variants.push_back(std::move(variant));
    }
  }
  if (std::optional<std::array<int64_t, 3>> grid = kernelOptions.grid())
    options.problem.grid = *grid;
  if (!gridFile.empty()) {
    auto text = readRegularFile(gridFile, kMaxInputFileBytes);
    if (!text)
      usage("--grid-file: " + llvm::toString(text.takeError()));
    llvm::Expected<llvm::json::Value> json = phobos::parseJson((*text)->getBuffer());
    if (!json)
      usage("--grid-file: " + llvm::toString(json.takeError()));
    const llvm::json::Object *object = json->getAsObject();
    if (!object)
      usage("--grid-file: expected a JSON object");
    auto readGrids = [&](llvm::StringRef key,
                         std::map<std::string, std::array<int64_t, 3>> &into) {
      if (const llvm::json::Object *grids = object->getObject(key))
        for (const auto &[variant, grid] : *grids)
          into[variant.str()] =
              parseGrid(grid, (key + " " + llvm::StringRef(variant)).str());
    };
    readGrids("grids", options.problem.grids);
    readGrids("check_grids", options.checkProblem.grids);
  }

  std::string mode = checkMode;
  if (mode.empty())
    mode = !options.expected.empty() ? "expected" : "reference";
  if (mode == "reference")
    options.check = tune::CheckMode::Reference;
  else if (mode == "interpreter")
    options.check = tune::CheckMode::Interpreter;
  else if (mode == "expected")
    options.check = tune::CheckMode::Expected;
  else if (mode == "none")
    options.check = tune::CheckMode::None;
  else
    usage("--check: expected reference, interpreter, expected or none, got '" +
          mode + "'");
  if (options.check == tune::CheckMode::Expected &&
      (options.expected.empty() || options.checkProblem.dims.empty()))
    usage("--check expected needs --expect and the check problem's --check-dim "
          "(and --check-input for the tensors the kernel reads)");

  options.checkDimsOnly = printCheckDims;
  llvm::Expected<tune::Report> report = tune::tune(options);
  if (!report) {
    llvm::errs() << "phobos-tune: " << llvm::toString(report.takeError())
                 << "\n";
    return 1;
  }
  if (printCheckDims) {
    llvm::json::Object dims;
    for (auto &entry : report->checkDims)
      dims[entry.getKey()] = entry.getValue();
    llvm::outs() << llvm::json::Value(std::move(dims)) << "\n";
    return 0;
  }
  report->printTable(llvm::outs());
  if (!jsonOutput.empty()) {
    std::error_code error;
    llvm::raw_fd_ostream os(jsonOutput, error);
    if (error)
      usage("--json: cannot write '" + jsonOutput + "': " + error.message());
    os << llvm::formatv("{0:2}", report->toJSON()) << "\n";
  }
  bool ok = compileOnly
                ? llvm::any_of(report->results,
                               [](const tune::VariantResult &result) {
                                 return result.status ==
                                        tune::VariantResult::Status::Ok;
                               })
                : report->best >= 0;
  return ok ? 0 : 1;
}
