//===- phobos-run.cpp - Run, check and time a Phobos kernel ---------------===//
//
// Compiles one kernel variant, binds dims and scalars, fills the inputs with
// seeded random data, poisons the outputs, runs the kernel (on the CPU with
// --interpret), checks the outputs against a float64 reference, times it
// and saves every tensor as .npy. --input/--output read and write tensors
// as .npy files (the Python package's CPU path), --span-map reports
// diagnostics where a generated program was written, and GPU runs of .ph
// sources go through the kernel cache. This file holds the options, the
// program and its variant, the interpreter's run and the outputs; binding
// the command line to the kernel's parameters is RunArguments.cpp's, the GPU
// run RunGpu.cpp's (Run.h).
//
//===----------------------------------------------------------------------===//

#include "Run.h"

#include "ExampleReferences.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Interpreter/Interpreter.h"
#include "Phobos/Reference/Reference.h"
#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Runtime/HostTensor.h"
#include "Phobos/Runtime/TuningCache.h"
#include "Phobos/Driver/Session.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Target/BuildLaunchContract.h"
#include "Phobos/Target/PassPipeline.h"
#include "Phobos/Tools/KernelOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>

using namespace phobos;
namespace cl = llvm::cl;

namespace phobos::run {

static cl::OptionCategory category("phobos-run options");

static tools::KernelOptions::Help kernelHelp() {
  tools::KernelOptions::Help help;
  help.input = "<kernel.ph or kernels.mlir>";
  help.kernel = "The kernel to run";
  help.chip = "The GPU to compile for (default: the device's; sm_90a on an "
              "sm_90 card)";
  help.cacheDir = "The kernel cache for GPU runs (default: "
                  "$PHOBOS_CACHE_DIR, else ~/.cache/phobos)";
  return help;
}
tools::KernelOptions kernelOptions("phobos-run", category,
                                          kernelHelp());
static tools::VariantOption variant(category);

static tools::MeasureOptions::Help measureHelp() {
  tools::MeasureOptions::Help help;
  help.reference = "The reference to check against (default: the example "
                   "kernel's)";
  help.warmup = "Untimed GPU runs before --bench";
  help.repeat = "Timed runs for --bench (median)";
  help.noSpecialize = "GPU runs compile the general kernel, not one "
                      "specialised for the extents' divisibility by 2, 4, 8 "
                      "or 16 (the default)";
  return help;
}
tools::MeasureOptions measure("phobos-run", category, measureHelp());

cl::opt<bool> interpret("interpret",
                               cl::desc("Run on the CPU with the interpreter "
                                        "(default: the GPU)"),
                               cl::cat(category));
static cl::opt<bool> raceCheck(
    "race-check",
    cl::desc("Run on the interpreter and report every pair of accesses to "
             "one element by two CTAs that nothing orders (a write and any "
             "other access, an atomic add and a plain access), at both "
             "source lines; exit 1 if there is one"),
    cl::cat(category));
static cl::opt<bool>
    noTuned("no-tuned",
            cl::desc("Without --variant, take the first value of each "
                     "@autotune name even when phobos-tune has tuned this "
                     "problem"),
            cl::cat(category));
static cl::opt<bool> check("check",
                           cl::desc("Compare the outputs with a float64 "
                                    "reference"),
                           cl::cat(category));
cl::opt<bool> bench("bench", cl::desc("Time the kernel"),
                           cl::cat(category));
static cl::opt<std::string> saveDir("save",
                                    cl::desc("Write every tensor before and "
                                             "after as .npy"),
                                    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> jsonOutput("json",
                                cl::desc("End with a PHOBOS_RESULT line of "
                                         "JSON (for scripts)"),
                                cl::cat(category));
static cl::opt<int64_t> samples("samples",
                                cl::desc("Elements --check samples in outputs "
                                         "larger than 2^18"),
                                cl::init(4096), cl::cat(category));
static cl::opt<bool> printTensors("print",
                                  cl::desc("Print every tensor the kernel "
                                           "writes"),
                                  cl::cat(category));
static cl::opt<unsigned> threads("cpu-threads",
                                 cl::desc("CPU threads for --interpret (0: "
                                          "all cores)"),
                                 cl::init(0), cl::cat(category));
cl::list<std::string>
    inputSpecs("input",
               cl::desc("Read a tensor from a .npy file (its shape binds the "
                        "tensor's dims)"),
               cl::value_desc("NAME=FILE.npy"), cl::cat(category));
cl::list<std::string>
    outputSpecs("output", cl::desc("Write a tensor to a .npy file after the run"),
                cl::value_desc("NAME=FILE.npy"), cl::cat(category));
cl::opt<bool> specialize(
    "specialize",
    cl::desc("Compile a kernel specialised for the extents' divisibility (the "
             "default; --no-specialize turns it off)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> lineInfo(
    "lineinfo",
    cl::desc("GPU runs compile with line info (.file/.loc at the source "
             "lines), so that compute-sanitizer names them (the default; "
             "--lineinfo=false leaves it out)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> noCache("no-cache",
                             cl::desc("Compile without the kernel cache"),
                             cl::cat(category));
static cl::opt<uint64_t> stepLimit("step-limit",
                                   cl::desc("Steps one CTA may run under "
                                            "--interpret (an op, or 16 "
                                            "elements of a tile op)"),
                                   cl::init(uint64_t(1) << 27),
                                   cl::cat(category));
static cl::opt<uint64_t>
    launchStepLimit("launch-step-limit",
                    cl::desc("Steps all CTAs of the launch may run "
                             "together under --interpret"),
                    cl::init(uint64_t(1) << 28), cl::cat(category));
cl::opt<uint64_t>
    maxHostBytes("max-host-bytes",
                 cl::desc("Host memory the run's tensors may take (default: "
                          "the memory available on this machine)"),
                 cl::init(0), cl::cat(category));

void usage(const llvm::Twine &message) { kernelOptions.usage(message); }

namespace {

std::string describeVariant(const LaunchContract &contract) {
  std::string text;
  for (auto &[name, value] : contract.variant)
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text.empty() ? "-" : text;
}

void printTensor(llvm::raw_ostream &os, llvm::StringRef name,
                 const HostTensor &tensor) {
  os << name << " = [";
  for (int64_t i = 0, n = tensor.numElements(); i < n; ++i) {
    if (i)
      os << (tensor.getShape().size() > 1 && i % tensor.getShape().back() == 0
                 ? "; "
                 : ", ");
    if (isFloat(tensor.getElementType()))
      os << llvm::format("%g", tensor.get(i));
    else
      os << loadInt(tensor.getElementType(), tensor.data(), i);
  }
  os << "]\n";
}

/// The largest values of the options that count things: beyond them a run
/// only burns time (or threads, or memory) before failing.
constexpr unsigned kMaxRepeat = 100000;
constexpr unsigned kMaxCpuThreads = 1024;
constexpr int64_t kMaxSamples = int64_t(1) << 24;

/// Values that parse but make no sense are errors, not silent defaults.
void validateOptions() {
  const cl::opt<double> &tolerance = measure.tolerance;
  if (tolerance.getNumOccurrences() &&
      !(tolerance >= 0 && std::isfinite(tolerance)))
    usage("--tolerance must be a non-negative number, got " +
          llvm::formatv("{0}", tolerance.getValue()).str());
  if (samples < 1 || samples > kMaxSamples)
    usage("--samples must be between 1 and " + llvm::Twine(kMaxSamples) +
          ", got " + llvm::Twine(samples.getValue()));
  if (measure.repeat < 1 || measure.repeat > kMaxRepeat)
    usage("--repeat must be between 1 and " + llvm::Twine(kMaxRepeat) +
          ", got " + llvm::Twine(measure.repeat.getValue()));
  if (measure.warmup > kMaxRepeat)
    usage("--warmup must be at most " + llvm::Twine(kMaxRepeat) + ", got " +
          llvm::Twine(measure.warmup.getValue()));
  if (threads > kMaxCpuThreads)
    usage("--cpu-threads must be at most " + llvm::Twine(kMaxCpuThreads) +
          " (0 uses every core), got " + llvm::Twine(threads.getValue()));
  if (stepLimit == 0 || launchStepLimit == 0)
    usage("--step-limit and --launch-step-limit must be at least 1");
  // The race check is the interpreter's.
  if (raceCheck)
    interpret = true;
  // Checked before the CUDA driver is opened, so that a machine without the
  // chip (or without a GPU) says what is wrong with the option.
  kernelOptions.checkChip();
}

/// The kernel to run: the input read once and imported through the front
/// end only (the interpreter runs tile IR; GPU runs compile in
/// compileForGpu), its diagnostics reported at the user's source.
struct Program {
  explicit Program(mlir::DialectRegistry &registry) : context(registry) {
    // Errors point at the user's source; the IR of the failing op is noise.
    context.printOpOnDiagnostic(false);
  }

  /// Reads the input (and --span-map), imports it and picks the kernel;
  /// false when the front end has reported why not.
  bool load();

  /// Without --variant, switches to the variant phobos-tune (or the Python
  /// package) chose for this kernel, problem shape and chip, when it
  /// searched before; false when that variant does not import.
  bool useTunedVariant(const LaunchContract::DimValues &dims);

  llvm::StringRef text() const {
    return sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  }

  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::optional<mlir::SourceMgrDiagnosticHandler> diagnostics;
  std::optional<frontend::SpanMap> spanMap;
  std::optional<frontend::SpanMapDiagnosticHandler> spanMapHandler;
  frontend::ImportOptions importOptions;
  /// A .mlir input is a module of phobos kernels (possibly after passes),
  /// run as it is; anything else is Phobos source.
  bool mlirInput = false;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  tile::KernelOp kernel;
  LaunchContract contract;
};

bool Program::load() {
  // A FIFO or a device would block or never end: regular files, or "-".
  auto buffer = readInputFile(kernelOptions.inputFile);
  if (!buffer)
    usage(llvm::toString(buffer.takeError()));
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  diagnostics.emplace(sourceMgr, &context);
  spanMap = kernelOptions.readSpanMap();
  if (spanMap) {
    spanMapHandler.emplace(*spanMap,
                           sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                               ->getBufferIdentifier()
                               .str(),
                           sourceMgr, *diagnostics, &context);
  }

  importOptions.kernelName = kernelOptions.kernelName;
  if (spanMap)
    importOptions.spanMap = &*spanMap;
  mlirInput = llvm::StringRef(kernelOptions.inputFile).ends_with(".mlir");
  if (mlirInput && !variant.spec.empty())
    usage("--variant applies to Phobos source; the kernels of a .mlir module "
          "are already bound to their variants (drop --variant, or run the "
          ".ph source)");
  importOptions.variant = variant.parse("phobos-run");
  module = mlirInput
               ? mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context)
               : frontend::importPhobos(sourceMgr, &context, importOptions);
  if (!module)
    return false;
  if (mlirInput && !kernelOptions.kernelName.empty())
    for (tile::KernelOp k : llvm::to_vector(module->getOps<tile::KernelOp>()))
      if (k.getSymName() != kernelOptions.kernelName)
        k.erase();
  auto kernels = llvm::to_vector(module->getOps<tile::KernelOp>());
  if (kernels.size() != 1) {
    std::string names;
    for (tile::KernelOp k : kernels)
      names += (names.empty() ? "" : ", ") + k.getSymName().str();
    usage("the file defines several kernels (" + names +
          "); choose one with --kernel");
  }
  kernel = kernels.front();
  contract = buildLaunchContract(kernel);
  return true;
}

bool Program::useTunedVariant(const LaunchContract::DimValues &dims) {
  if (!variant.spec.empty() || mlirInput || noTuned ||
      contract.variant.empty())
    return true;
  // The tuning cache answers without searching.
  std::string tuningChip =
      interpret ? std::string("interpreter") : kernelOptions.chip.getValue();
  if (!interpret && kernelOptions.chip.empty()) {
    if (llvm::Expected<cuda::CudaDriver &> driver = cuda::CudaDriver::get()) {
      tuningChip = driver->targetChip();
    } else {
      llvm::consumeError(driver.takeError()); // reported when it runs
      tuningChip.clear();
    }
  }
  TuningKey key;
  key.source = text().str();
  key.kernel = contract.kernel;
  key.chip = tuningChip;
  for (auto &entry : dims)
    key.dims.emplace_back(entry.getKey().str(), entry.getValue());
  key.general = !interpret && (!specialize || measure.noSpecialize);
  TuningCache tuning(kernelOptions.cacheDirectory());
  std::optional<llvm::json::Object> record;
  if (!tuningChip.empty())
    record = tuning.lookup(key);
  auto tuned = record ? TuningCache::variantOf(*record) : std::nullopt;
  if (!tuned)
    return true;
  frontend::ImportOptions tunedOptions = importOptions;
  for (auto &[name, value] : *tuned)
    tunedOptions.variant[name] = value;
  mlir::OwningOpRef<mlir::ModuleOp> tunedModule =
      frontend::importPhobos(sourceMgr, &context, tunedOptions);
  if (!tunedModule)
    return false;
  module = std::move(tunedModule);
  kernel = *module->getOps<tile::KernelOp>().begin();
  contract = buildLaunchContract(kernel);
  std::string tunedText;
  for (auto &[name, value] : *tuned)
    tunedText += (tunedText.empty() ? "" : ",") + name + "=" +
                 std::to_string(value);
  llvm::errs() << "phobos-run: the tuned variant " << tunedText << " (tuned on "
               << tuningChip << " for " << key.dimsText() << ")\n";
  return true;
}

/// --save: every tensor as DIR/NAME.SUFFIX.npy.
void saveTensors(const LaunchContract &contract,
                 const std::vector<HostTensor> &tensors,
                 llvm::StringRef suffix) {
  for (auto [index, slot] : llvm::enumerate(contract.params))
    if (slot.kind == ParamSlot::Kind::Tensor)
      if (llvm::Error error = tensors[index].writeNpy(saveDir + "/" +
                                                      slot.name + suffix.str()))
        usage(llvm::toString(std::move(error)));
}

/// The float64 reference --check compares with.
struct ReferenceCheck {
  std::string name;
  std::unique_ptr<reference::Reference> reference;
};

/// The reference, checked against the tensors before anything runs.
ReferenceCheck loadReference(const LaunchContract &contract,
                             const reference::Problem &inputs) {
  const reference::Catalog &references = examples::exampleReferences();
  ReferenceCheck loaded;
  loaded.name = measure.referenceName.empty()
                    ? references.defaultFor(contract.kernel).str()
                    : measure.referenceName.getValue();
  loaded.reference = references.make(loaded.name);
  if (!loaded.reference) {
    std::string known;
    for (const std::string &n : references.names())
      known += (known.empty() ? "" : ", ") + n;
    usage(loaded.name.empty()
              ? "--check: no reference is known for kernel '" +
                    contract.kernel + "'; pass --reference (" + known + ")"
              : "--reference: unknown reference '" + loaded.name +
                    "' (known: " + known + ")");
  }
  std::string problem = loaded.reference->validate(inputs);
  if (!problem.empty())
    usage("--check: reference '" + loaded.name + "' " + problem +
          " (kernel '" + contract.kernel + "'; --reference chooses another)");
  return loaded;
}

/// Where the kernel ran, and the time of each timed run.
struct Timing {
  std::string backend = "interpreter";
  std::vector<double> timesMs;
};

/// Prints the race check's findings (each at the later access, with a note
/// at the earlier one); true when there are none.
bool reportRaces(const LaunchContract &contract,
                 llvm::ArrayRef<interp::Race> races) {
  if (races.empty()) {
    llvm::outs() << "race check: no unordered accesses between CTAs\n";
    return true;
  }
  for (const interp::Race &race : races)
    reportRace(contract, race);
  llvm::errs() << "race check: " << races.size() << " unordered pair"
               << (races.size() == 1 ? "" : "s") << " of accesses\n";
  return false;
}

/// Runs on the CPU, then (--bench) times repeats on a scratch copy of the
/// tensors, so that the outputs checked are those of the first run.
bool runOnInterpreter(tile::KernelOp kernel, const LaunchContract &contract,
                      Arguments &arguments, std::vector<double> &timesMs) {
  std::array<int64_t, 3> grid = arguments.grid;
  interp::Options runOptions;
  // Tile IR that tile-persistent rewrote: three CTAs walk the tiles.
  runOptions.grid = interpreterGrid(kernel, grid);
  runOptions.threads = threads;
  runOptions.stepLimit = stepLimit;
  runOptions.launchStepLimit = launchStepLimit;
  std::vector<interp::Race> races;
  if (raceCheck)
    runOptions.races = &races;
  if (std::optional<interp::RunError> error =
          interp::runKernel(kernel, arguments.interpreted, runOptions)) {
    mlir::emitError(error->loc) << error->message;
    return false;
  }
  if (raceCheck && !reportRaces(contract, races))
    return false;
  if (!bench)
    return true;
  std::vector<HostTensor> scratch = arguments.tensors;
  std::vector<interp::Argument> scratchArguments = arguments.interpreted;
  for (auto [index, arg] : llvm::enumerate(scratchArguments))
    if (auto *tensorArg = std::get_if<interp::TensorArg>(&arg))
      tensorArg->data = scratch[index].data();
  for (unsigned r = 0; r < std::max(1u, measure.repeat.getValue()); ++r) {
    auto begin = std::chrono::steady_clock::now();
    if (std::optional<interp::RunError> again =
            interp::runKernel(kernel, scratchArguments, runOptions)) {
      mlir::emitError(again->loc) << again->message;
      return false;
    }
    timesMs.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - begin)
                          .count());
  }
  return true;
}

/// The run line, then the tensors --save, --output and --print ask for.
void writeOutputs(const LaunchContract &contract, const Bindings &bindings,
                  const Arguments &arguments, llvm::StringRef backend) {
  const std::array<int64_t, 3> &grid = arguments.grid;
  llvm::outs() << contract.kernel << " [" << describeVariant(contract) << "] "
               << backend << " grid (" << grid[0] << "," << grid[1] << ","
               << grid[2] << ")";
  for (const std::string &name : bindings.dynamic)
    llvm::outs() << " " << name << "=" << bindings.dims.lookup(name);
  llvm::outs() << "\n";

  if (!saveDir.empty())
    saveTensors(contract, arguments.tensors, ".out.npy");
  for (auto [index, slot] : llvm::enumerate(contract.params))
    if (auto output = bindings.outputs.find(slot.name);
        output != bindings.outputs.end())
      if (llvm::Error error = arguments.tensors[index].writeNpy(output->second))
        usage("--output " + slot.name + ": " +
              llvm::toString(std::move(error)));
  if (printTensors)
    for (auto [index, slot] : llvm::enumerate(contract.params))
      if (slot.kind == ParamSlot::Kind::Tensor && slot.written)
        printTensor(llvm::outs(), slot.name, arguments.tensors[index]);
}

struct CheckResult {
  /// The exit status: 1 when an output is off by more than the tolerance.
  int status = 0;
  double worstError = 0;
};

/// Compares each output the reference gives with the float64 reference.
CheckResult checkOutputs(tile::KernelOp kernel, const LaunchContract &contract,
                         const ReferenceCheck &referenceCheck,
                         const Arguments &arguments) {
  CheckResult checked;
  const cl::opt<double> &tolerance = measure.tolerance;
  double limit = tolerance >= 0                   ? tolerance.getValue()
                 : usesReducedPrecision(kernel) ? 1e-2
                                                : 1e-5;
  for (const std::string &output : referenceCheck.reference->outputNames()) {
    auto index =
        std::find_if(contract.params.begin(), contract.params.end(),
                     [&](const ParamSlot &s) { return s.name == output; }) -
        contract.params.begin();
    reference::Comparison result = reference::compare(
        *referenceCheck.reference, arguments.referenceInputs, output,
        arguments.tensors[index],
        /*fullCheckLimit=*/1 << 18, /*sampleCount=*/samples, measure.seed + 1);
    bool ok = result.maxRelativeError <= limit;
    checked.worstError = std::max(checked.worstError, result.maxRelativeError);
    llvm::outs() << "  check " << output << " vs " << referenceCheck.name
                 << ": " << result.elementsChecked << " elements, max rel err "
                 << llvm::format("%.3g", result.maxRelativeError)
                 << " (tolerance " << llvm::format("%g", limit) << ") "
                 << (ok ? "ok" : "FAILED") << "\n";
    if (result.unwritten > 0) {
      llvm::outs() << "    " << result.unwritten
                   << " elements never written, the first at [";
      llvm::interleaveComma(result.firstUnwritten, llvm::outs());
      llvm::outs() << "]\n";
    }
    if (!ok) {
      llvm::outs() << "    worst at [";
      llvm::interleaveComma(result.worstIndex, llvm::outs());
      llvm::outs() << "]: got " << llvm::format("%.9g", result.worstGot)
                   << ", expected "
                   << llvm::format("%.9g", result.worstExpected) << "\n";
      checked.status = 1;
    }
  }
  return checked;
}

/// The median time (--bench) and the PHOBOS_RESULT line (--json).
void reportResult(const LaunchContract &contract, const Bindings &bindings,
                  std::array<int64_t, 3> grid, Timing &timing,
                  const CheckResult &checked) {
  std::vector<double> &times = timing.timesMs;
  double medianMs = 0;
  if (bench && !times.empty()) {
    std::sort(times.begin(), times.end());
    medianMs = times[times.size() / 2];
    llvm::outs() << "  time (" << timing.backend << "): median "
                 << llvm::format("%.4f", medianMs) << " ms over "
                 << times.size() << " runs\n";
  }
  if (!jsonOutput)
    return;
  llvm::json::Object dimsObject, variantObject;
  for (const std::string &name : bindings.dynamic)
    dimsObject[name] = bindings.dims.lookup(name);
  for (auto &[name, value] : contract.variant)
    variantObject[name] = value;
  double worstError = checked.worstError;
  llvm::json::Object result{
      {"kernel", contract.kernel},
      {"variant", std::move(variantObject)},
      {"dims", std::move(dimsObject)},
      {"grid", llvm::json::Array{grid[0], grid[1], grid[2]}},
      {"backend", timing.backend},
      {"check", !check ? "skipped" : checked.status == 0 ? "ok" : "failed"},
      {"max_rel_err", std::isfinite(worstError) ? llvm::json::Value(worstError)
                                                : llvm::json::Value(nullptr)},
      {"time_ms", medianMs},
      {"runs", static_cast<int64_t>(times.size())}};
  llvm::outs() << "PHOBOS_RESULT " << llvm::json::Value(std::move(result))
               << "\n";
}

} // namespace
} // namespace phobos::run

using namespace phobos::run;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "phobos-run: run, check and time one Phobos kernel variant\n");
  validateOptions();
  measure.applyExperiments();

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  Program program(registry);
  if (!program.load())
    return 1;
  // The tuning cache is keyed by the dims: they are bound first.
  Bindings bindings = readBindings(program.contract);
  if (!program.useTunedVariant(bindings.dims))
    return 1;
  const LaunchContract &contract = program.contract;

  Arguments arguments;
  prepareArguments(program.kernel, contract, bindings, arguments);
  if (!saveDir.empty()) {
    if (std::error_code error = llvm::sys::fs::create_directories(saveDir))
      usage("--save: cannot create '" + saveDir + "': " + error.message());
    saveTensors(contract, arguments.initial, ".in.npy");
  }
  if (!bindings.inputs.empty())
    checkInputsAgree(contract, arguments);
  ReferenceCheck referenceCheck;
  if (check)
    referenceCheck = loadReference(contract, arguments.referenceInputs);

  Timing timing;
  bool ran =
      interpret
          ? runOnInterpreter(program.kernel, contract, arguments,
                             timing.timesMs)
          : runOnGpu(*program.module,
                     program.mlirInput ? llvm::StringRef() : program.text(),
                     bindings.dims, arguments.tensors,
                     arguments.referenceInputs.scalars,
                     arguments.integerScalars, arguments.grid, bench,
                     measure.repeat, timing.timesMs, timing.backend);
  if (!ran)
    return 1;

  writeOutputs(contract, bindings, arguments, timing.backend);
  CheckResult checked;
  if (check)
    checked = checkOutputs(program.kernel, contract, referenceCheck, arguments);
  reportResult(contract, bindings, arguments.grid, timing, checked);
  return checked.status;
}
