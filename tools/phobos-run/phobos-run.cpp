//===- phobos-run.cpp - Run, check and time a Phobos kernel ---------------===//
//
// Compiles one kernel variant, binds dims and scalars, fills the inputs with
// seeded random data, poisons the outputs, runs the kernel (on the CPU with
// --interpret), checks the outputs against a float64 reference, times it
// and saves every tensor as .npy. --input/--output read and write tensors
// as .npy files (the Python package's CPU path), --span-map reports
// diagnostics where a generated program was written, and GPU runs of .ph
// sources go through the kernel cache.
//
//===----------------------------------------------------------------------===//

#include "ExampleReferences.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Interpreter/Interpreter.h"
#include "Phobos/Reference/Reference.h"
#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Runtime/HostTensor.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Runtime/NpyFile.h"
#include "Phobos/Runtime/Launcher.h"
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
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>
#include <unistd.h>

using namespace phobos;
namespace cl = llvm::cl;

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
static tools::KernelOptions kernelOptions("phobos-run", category,
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
static tools::MeasureOptions measure("phobos-run", category, measureHelp());

static cl::opt<bool> interpret("interpret",
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
static cl::opt<bool> bench("bench", cl::desc("Time the kernel"),
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
static cl::list<std::string>
    inputSpecs("input",
               cl::desc("Read a tensor from a .npy file (its shape binds the "
                        "tensor's dims)"),
               cl::value_desc("NAME=FILE.npy"), cl::cat(category));
static cl::list<std::string>
    outputSpecs("output", cl::desc("Write a tensor to a .npy file after the run"),
                cl::value_desc("NAME=FILE.npy"), cl::cat(category));
static cl::opt<bool> specialize(
    "specialize",
    cl::desc("Compile a kernel specialised for the extents' divisibility (the "
             "default; --no-specialize turns it off)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> lineInfo(
    "lineinfo",
    cl::desc("GPU runs compile with line info (.file/.loc at the source "
             "lines), so that compute-sanitizer names them (the default; "
             "--lineinfo=false leaves it out)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> noCache("no-cache",
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
static cl::opt<uint64_t>
    maxHostBytes("max-host-bytes",
                 cl::desc("Host memory the run's tensors may take (default: "
                          "the memory available on this machine)"),
                 cl::init(0), cl::cat(category));

namespace {

/// Reports a usage error and exits with 2.
[[noreturn]] void usage(const llvm::Twine &message) {
  kernelOptions.usage(message);
}

using tools::parseBinding;

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

/// Memory this machine can give the run: MemAvailable, else the physical
/// memory; 0 when unknown.
uint64_t availableHostBytes() {
  if (auto file = llvm::MemoryBuffer::getFileAsStream("/proc/meminfo")) {
    llvm::SmallVector<llvm::StringRef> lines;
    (*file)->getBuffer().split(lines, '\n');
    for (llvm::StringRef line : lines)
      if (line.consume_front("MemAvailable:")) {
        // "MemAvailable:   12345678 kB"
        uint64_t kib = 0;
        if (line.trim().take_while(llvm::isDigit).getAsInteger(10, kib))
          break;
        return kib * 1024;
      }
  }
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? uint64_t(pages) * uint64_t(size) : 0;
}

/// Elements and bytes of a tensor of `shape`, or nullopt when a product
/// overflows int64.
std::optional<std::pair<int64_t, int64_t>>
tensorSize(ElementType element, llvm::ArrayRef<int64_t> shape) {
  int64_t elements = 1, bytes = 0;
  for (int64_t extent : shape)
    if (llvm::MulOverflow(elements, extent, elements))
      return std::nullopt;
  if (llvm::MulOverflow(elements, int64_t(byteWidth(element)), bytes))
    return std::nullopt;
  return std::make_pair(elements, bytes);
}

std::string formatBytes(uint64_t bytes) {
  std::string text = std::to_string(bytes) + " bytes";
  if (bytes >= (uint64_t(1) << 30))
    text += llvm::formatv(" ({0:F1} GiB)", double(bytes) / (1 << 30)).str();
  else if (bytes >= (uint64_t(1) << 20))
    text += llvm::formatv(" ({0:F1} MiB)", double(bytes) / (1 << 20)).str();
  return text;
}

/// Prints a runtime error and returns false.
bool reportError(llvm::Error error) {
  llvm::errs() << "phobos-run: " << llvm::toString(std::move(error)) << "\n";
  return false;
}

/// Reports what a launch of `kernel` left when the GPU ran it (an illegal
/// address, say) at the kernel's source line, and returns false: nothing
/// else ran on the stream since the launch, so it is this kernel's. The
/// line of the access itself is compute-sanitizer's to tell (the driver's
/// message says how).
bool reportKernelFault(tile::KernelOp kernel, llvm::Error error) {
  mlir::emitError(kernel.getLoc())
      << "kernel '" << kernel.getSymName()
      << "' failed on the GPU: " << llvm::toString(std::move(error));
  return false;
}

/// The compiled kernel for `target`: from the kernel cache when the source
/// is Phobos text (`source` non-empty) and the cache is on, else compiled
/// (and published in the cache).
std::optional<CompiledKernel> compileForGpu(mlir::ModuleOp sourceModule,
                                            llvm::StringRef source,
                                            const std::string &target,
                                            const llvm::StringMap<int64_t> &dims,
                                            std::optional<std::string> &cubin) {
  tile::KernelOp kernelOp = *sourceModule.getOps<tile::KernelOp>().begin();
  // Specialised for the extents of this launch (a copy: the interpreter
  // and the checks use the source kernel).
  mlir::OwningOpRef<mlir::ModuleOp> specializedModule;
  std::vector<std::pair<std::string, int64_t>> specialized;
  if (specialize && !measure.noSpecialize) {
    specializedModule = mlir::OwningOpRef<mlir::ModuleOp>(
        llvm::cast<mlir::ModuleOp>(sourceModule->clone()));
    kernelOp = *specializedModule->getOps<tile::KernelOp>().begin();
    specialized = specializeAlignment(kernelOp, dims);
    if (!specialized.empty())
      sourceModule = *specializedModule;
    else
      kernelOp = *sourceModule.getOps<tile::KernelOp>().begin();
  }
  std::string root = kernelOptions.cacheDirectory();
  CompileOptions options;
  options.chip = target;
  options.cacheDir = noCache ? "" : root;
  options.lineInfo = lineInfo;
  BuildKey key;
  key.source = source.str();
  key.specialized = std::move(specialized);
  mlir::FailureOr<KernelBuild> build = getOrCompile(kernelOp, key, options);
  if (failed(build))
    return std::nullopt;
  for (const std::string &note : build->notes)
    llvm::errs() << "phobos-run: note: " << note << "\n";
  if (!build->assemblyError.empty()) // the PTX still runs (the driver JIT-compiles it)
    llvm::errs() << "phobos-run: note: " << build->assemblyError << "\n";
  if (!build->storeError.empty())
    llvm::errs() << "phobos-run: note: not cached: " << build->storeError << "\n";
  cubin = std::move(build->cubin);
  return std::move(build->kernel);
}

/// Compiles for the GPU, copies the tensors there, launches (and times),
/// and copies them back.
bool runOnGpu(mlir::ModuleOp sourceModule, llvm::StringRef source,
              const llvm::StringMap<int64_t> &dims,
              std::vector<HostTensor> &tensors,
              const llvm::StringMap<double> &scalars,
              const llvm::StringMap<int64_t> &integerScalars,
              std::array<int64_t, 3> grid, bool timing, unsigned runs,
              std::vector<double> &times, std::string &backend) {
  tile::KernelOp kernelOp = *sourceModule.getOps<tile::KernelOp>().begin();
  llvm::Expected<cuda::CudaDriver &> driver = cuda::CudaDriver::get();
  if (!driver)
    return reportError(driver.takeError());
  // The chip: --chip, or the device's own compute capability.
  std::string target = kernelOptions.chipOr(driver->targetChip());
  std::optional<std::string> cubin;
  std::optional<CompiledKernel> compiled =
      compileForGpu(sourceModule, source, target, dims, cubin);
  if (!compiled)
    return false;
  const CompiledKernel &kernel = *compiled;
  const LaunchContract &contract = kernel.contract;
  backend = "gpu " + driver->describeDevice();
  llvm::Expected<cuda::Module> module =
      cuda::Module::load(cubin ? llvm::StringRef(*cubin) : llvm::StringRef(kernel.ptx));
  if (!module)
    return reportError(module.takeError());
  llvm::Expected<cuda::Function> function =
      module->getFunction(contract.kernel);
  if (!function)
    return reportError(function.takeError());
  if (contract.sharedMemoryBytes > 48 * 1024)
    if (llvm::Error error =
            function->setMaxDynamicSharedMemory(contract.sharedMemoryBytes))
      return reportError(std::move(error));

  // The device must hold every tensor at once: check before allocating.
  int64_t deviceBytes = 0;
  for (const HostTensor &tensor : tensors)
    deviceBytes += static_cast<int64_t>(tensor.byteSize());
  if (deviceBytes > driver->totalMemoryBytes()) {
    llvm::errs() << "phobos-run: the tensors need " << formatBytes(deviceBytes)
                 << " of GPU memory, more than the device's "
                 << formatBytes(driver->totalMemoryBytes())
                 << "; choose smaller --dim values\n";
    return false;
  }
  std::vector<cuda::DeviceBuffer> buffers(tensors.size());
  std::vector<LaunchArgument> arguments;
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      // An integer --scalar exactly: an i64 beyond 2^53 is no double.
      auto exact = integerScalars.find(slot.name);
      arguments.push_back(ScalarArgument{
          scalars.lookup(slot.name),
          exact != integerScalars.end() ? std::optional<int64_t>(exact->second)
                                        : std::nullopt});
      continue;
    }
    HostTensor &tensor = tensors[index];
    llvm::Expected<cuda::DeviceBuffer> buffer =
        cuda::DeviceBuffer::allocate(tensor.byteSize());
    if (!buffer)
      return reportError(buffer.takeError());
    buffers[index] = std::move(*buffer);
    if (llvm::Error error =
            buffers[index].copyFromHost(tensor.data(), tensor.byteSize()))
      return reportError(std::move(error));
    TensorArgument argument;
    argument.address = buffers[index].devicePointer();
    argument.element = slot.element;
    argument.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    arguments.push_back(std::move(argument));
  }
  llvm::Expected<BoundLaunch> bound =
      bindArguments(contract, arguments, grid, cuda::encodeTensorMap);
  if (!bound)
    return reportError(bound.takeError());
  cuda::Function::LaunchConfig config;
  // A persistent kernel: as many CTAs as the GPU holds at once.
  int64_t resident = 0;
  if (contract.persistent) {
    llvm::Expected<int64_t> ctas =
        function->residentCtas(contract.ctaThreads, contract.sharedMemoryBytes);
    if (!ctas)
      return reportError(ctas.takeError());
    resident = *ctas;
  }
  for (int axis = 0; axis < 3; ++axis)
    config.grid[axis] = static_cast<uint32_t>(bound->getGrid(resident)[axis]);
  config.block = {static_cast<uint32_t>(contract.ctaThreads), 1, 1};
  config.sharedMemoryBytes = static_cast<uint32_t>(contract.sharedMemoryBytes);
  llvm::Expected<cuda::Stream> stream = cuda::Stream::create();
  if (!stream)
    return reportError(stream.takeError());
  std::vector<void *> params = bound->params();
  if (llvm::Error error = function->launch(config, params, *stream))
    return reportError(std::move(error));
  if (llvm::Error error = stream->synchronize())
    return reportKernelFault(kernelOp, std::move(error));
  for (auto [index, slot] : llvm::enumerate(contract.params))
    if (slot.kind == ParamSlot::Kind::Tensor)
      if (llvm::Error error = buffers[index].copyToHost(
              tensors[index].data(), tensors[index].byteSize()))
        return reportError(std::move(error));
  if (!timing)
    return true;
  // Median of event-timed launches after warm-up.
  llvm::Expected<cuda::Event> start = cuda::Event::create();
  llvm::Expected<cuda::Event> stop = cuda::Event::create();
  if (!start || !stop)
    return reportError(!start ? start.takeError() : stop.takeError());
  for (unsigned w = 0; w < measure.warmup; ++w)
    if (llvm::Error error = function->launch(config, params, *stream))
      return reportError(std::move(error));
  for (unsigned r = 0; r < std::max(1u, runs); ++r) {
    if (llvm::Error error = start->record(*stream))
      return reportError(std::move(error));
    if (llvm::Error error = function->launch(config, params, *stream))
      return reportError(std::move(error));
    if (llvm::Error error = stop->record(*stream))
      return reportError(std::move(error));
    llvm::Expected<float> ms = cuda::Event::elapsedMs(*start, *stop);
    if (!ms)
      return reportError(ms.takeError());
    times.push_back(*ms);
  }
  return true;
}

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
  // Checked before the driver is opened, so that a machine without the
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

/// What the command line binds besides the kernel's variant: tensors read
/// from files, files to write, the dims.
struct Bindings {
  std::map<std::string, HostTensor> inputs;
  llvm::StringMap<std::string> outputs;
  LaunchContract::DimValues dims;
  /// The dims bound at launch, in the order the run line prints them.
  std::vector<std::string> dynamic;
};

/// --input: tensors read from .npy files; their shapes bind dims.
std::map<std::string, HostTensor> readInputs(const LaunchContract &contract) {
  std::map<std::string, HostTensor> inputs;
  for (const std::string &spec : inputSpecs) {
    llvm::StringRef name, path;
    if (!parseBinding(spec, name, path))
      usage("--input expects NAME=FILE.npy, got '" + spec + "'");
    const ParamSlot *slot = contract.findParam(name);
    if (!slot || slot->kind != ParamSlot::Kind::Tensor)
      usage("--input: '" + name + "' is not a tensor parameter");
    if (inputs.count(name.str()))
      usage("--input " + name + " is given twice");
    uint64_t fileBytes = 0;
    uint64_t limit =
        maxHostBytes ? maxHostBytes.getValue() : availableHostBytes();
    if (!llvm::sys::fs::file_size(path, fileBytes) && limit &&
        fileBytes > limit)
      usage("--input " + name + ": '" + path + "' holds " +
            formatBytes(fileBytes) + ", more than the " + formatBytes(limit) +
            " of host memory the run may use (--max-host-bytes)");
    llvm::Expected<HostTensor> tensor = readNpy(path);
    if (!tensor)
      usage("--input " + name + ": " + llvm::toString(tensor.takeError()));
    if (tensor->getElementType() != slot->element)
      usage("--input " + name + ": the file holds " +
            phobos::name(tensor->getElementType()) + " elements but '" + name +
            "' is a tensor of " + phobos::name(slot->element));
    if (tensor->getShape().size() != slot->dims.size())
      usage("--input " + name + ": the file holds a rank-" +
            llvm::Twine(tensor->getShape().size()) + " array but '" + name +
            "' has rank " + llvm::Twine(slot->dims.size()));
    inputs[name.str()] = std::move(*tensor);
  }
  return inputs;
}

/// --output: the .npy file each tensor is written to after the run.
llvm::StringMap<std::string> readOutputs(const LaunchContract &contract) {
  llvm::StringMap<std::string> outputs;
  for (const std::string &spec : outputSpecs) {
    llvm::StringRef name, path;
    if (!parseBinding(spec, name, path))
      usage("--output expects NAME=FILE.npy, got '" + spec + "'");
    const ParamSlot *slot = contract.findParam(name);
    if (!slot || slot->kind != ParamSlot::Kind::Tensor)
      usage("--output: '" + name + "' is not a tensor parameter");
    if (!outputs.try_emplace(name, path.str()).second)
      usage("--output " + name + " is given twice");
  }
  return outputs;
}

/// Dims: every launch-bound dim must be given (with --dim or by an
/// --input's shape); compile-time ones may be given if they agree.
void bindDims(const LaunchContract &contract, Bindings &bindings) {
  LaunchContract::DimValues &dims = bindings.dims;
  bindings.dynamic = contract.dynamicDims();
  llvm::StringMap<int64_t> given = kernelOptions.dims();
  // In the order given, so that the first wrong --dim is the one reported.
  for (const std::string &spec : kernelOptions.dimSpecs) {
    llvm::StringRef name, text;
    parseBinding(spec, name, text);
    int64_t value = given.lookup(name);
    bool known = llvm::is_contained(bindings.dynamic, name.str());
    for (const ParamSlot &slot : contract.params)
      for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
        if (dim == name && extent >= 0) {
          if (extent != value)
            usage("--dim " + name + "=" + text + ": in this variant '" + name +
                  "' is " + llvm::Twine(extent));
          known = true;
        }
    if (!known)
      usage("--dim: '" + name + "' is not a dim of kernel '" +
            contract.kernel + "'");
    dims.try_emplace(name, value);
  }
  // Dims an --input binds (the launcher's checks in checkLaunch catch a
  // tensor that disagrees with another).
  for (const ParamSlot &slot : contract.params) {
    auto input = bindings.inputs.find(slot.name);
    if (input == bindings.inputs.end())
      continue;
    for (auto [axis, dim] : llvm::enumerate(slot.dims))
      if (slot.staticShape[axis] < 0)
        dims.try_emplace(dim, input->second.getShape()[axis]);
  }
  for (const std::string &name : bindings.dynamic)
    if (!dims.count(name))
      usage("missing --dim " + name + "=V (kernel '" + contract.kernel +
            "' needs every dim bound at launch)");
}

Bindings readBindings(const LaunchContract &contract) {
  Bindings bindings;
  bindings.inputs = readInputs(contract);
  bindings.outputs = readOutputs(contract);
  bindDims(contract, bindings);
  return bindings;
}

/// A --dim that breaks an @aligned promise is refused at the promise (the
/// `.ph` line, or the Python line through --span-map) with exit status 2.
void checkAlignedDims(tile::KernelOp kernel, const LaunchContract &contract,
                      const LaunchContract::DimValues &dims) {
  for (auto &[name, multiple] : contract.aligned) {
    int64_t value = dims.lookup(name);
    if (!value || value % multiple == 0)
      continue;
    std::string message = ("--dim " + name + "=" + llvm::Twine(value) +
                           " breaks the kernel's @aligned promise: '" + name +
                           "' must be a multiple of " + llvm::Twine(multiple))
                              .str();
    mlir::LocationAttr place = kernel.getAlignedPromiseLoc(name);
    if (!place)
      usage(message);
    mlir::emitError(place) << message;
    std::exit(2);
  }
}

/// --init: how each tensor is filled, as given.
llvm::StringMap<std::string> readInits(const LaunchContract &contract) {
  llvm::StringMap<std::string> inits = measure.inits();
  for (const std::string &spec : measure.initSpecs) {
    llvm::StringRef name, how;
    parseBinding(spec, name, how);
    const ParamSlot *slot = contract.findParam(name);
    if (!slot || slot->kind != ParamSlot::Kind::Tensor)
      usage("--init: '" + name + "' is not a tensor parameter");
  }
  return inits;
}

/// The scalars given with --scalar.
struct GivenScalars {
  llvm::StringMap<double> values;
  /// Integer scalars exactly, not through a double.
  llvm::StringMap<int64_t> integers;
};

GivenScalars readScalars(const LaunchContract &contract) {
  GivenScalars scalars;
  for (const std::string &spec : kernelOptions.scalarSpecs) {
    llvm::StringRef name, text;
    if (!parseBinding(spec, name, text))
      usage("--scalar expects NAME=V, got '" + spec + "'");
    const ParamSlot *slot = contract.findParam(name);
    if (!slot || slot->kind != ParamSlot::Kind::Scalar)
      usage("--scalar: '" + name + "' is not a scalar parameter");
    if (scalars.values.count(name))
      usage("--scalar " + name + " is given twice");
    double value;
    if (!isFloat(slot->element)) {
      int64_t integer;
      if (text.getAsInteger(10, integer))
        usage("--scalar " + name + ": '" + text + "' is not an integer");
      scalars.integers[name] = integer;
      value = static_cast<double>(integer);
    } else if (text.getAsDouble(value)) {
      usage("--scalar " + name + ": '" + text + "' is not a number");
    } else if (llvm::Expected<ElementValue> exact =
                   parseElementValue(slot->element, text)) {
      value = exact->f; // rounded once, straight from the text
    } else {
      // Beyond the type: the launcher's check names the argument.
      llvm::consumeError(exact.takeError());
    }
    if (slot->element == ElementType::Bool && value != 0 && value != 1)
      usage("--scalar " + name + "=" + text + ": a bool scalar is 0 or 1");
    scalars.values[name] = value;
  }
  return scalars;
}

/// --grid, else the grid the contract infers from the dims.
std::array<int64_t, 3> readGrid(const LaunchContract &contract,
                                const LaunchContract::DimValues &dims) {
  if (std::optional<std::array<int64_t, 3>> grid = kernelOptions.grid())
    return *grid;
  llvm::Expected<std::array<int64_t, 3>> inferred = contract.gridFor(dims);
  if (!inferred)
    usage(llvm::toString(inferred.takeError()) + " (--grid X,Y,Z)");
  return *inferred;
}

using Shapes = llvm::StringMap<llvm::SmallVector<int64_t, 4>>;

/// Everything the launch will check, checked now, before any tensor is
/// allocated: dims, extents, @aligned, scalars (a value out of its type's
/// range), the grid's hardware limits (for the interpreter too). Returns
/// each tensor's shape.
Shapes checkLaunch(const LaunchContract &contract, const Bindings &bindings,
                   const llvm::StringMap<double> &scalars,
                   const llvm::StringMap<int64_t> &integers,
                   std::array<int64_t, 3> grid) {
  Shapes shapes;
  std::vector<LaunchArgument> checked;
  for (const ParamSlot &slot : contract.params) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      // Unspecified scalars take values valid for every type.
      auto given = scalars.find(slot.name);
      auto exact = integers.find(slot.name);
      checked.push_back(ScalarArgument{
          given != scalars.end() ? given->second : 1.0,
          exact != integers.end() ? std::optional<int64_t>(exact->second)
                                  : std::nullopt});
      continue;
    }
    llvm::SmallVector<int64_t, 4> shape;
    if (auto input = bindings.inputs.find(slot.name);
        input != bindings.inputs.end())
      shape.assign(input->second.getShape().begin(),
                   input->second.getShape().end());
    else
      for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
        shape.push_back(extent >= 0 ? extent : bindings.dims.lookup(dim));
    TensorArgument argument;
    // Not allocated yet: neither dereferenced nor compared for overlap.
    argument.address = 16;
    argument.placeholder = true;
    argument.element = slot.element;
    argument.shape.assign(shape.begin(), shape.end());
    checked.push_back(std::move(argument));
    shapes[slot.name] = std::move(shape);
  }
  llvm::Expected<BoundLaunch> bound =
      bindArguments(contract, checked, grid, cuda::encodeTensorMap);
  if (!bound) {
    std::string hint;
    llvm::handleAllErrors(bound.takeError(), [&](const LaunchError &error) {
      const ParamSlot *slot = contract.findParam(error.getParam());
      hint = llvm::toString(llvm::make_error<LaunchError>(error));
      if (!slot)
        hint += kernelOptions.gridSpec.empty()
                    ? " (the grid follows from the dims: choose smaller "
                      "--dim values, or give --grid)"
                    : " (--grid)";
      else if (slot->kind == ParamSlot::Kind::Scalar)
        hint += " (--scalar " + slot->name + "=V)";
      else
        hint += " (--dim, or the array given with --input)";
    });
    usage(hint);
  }
  return shapes;
}

/// Host memory: every tensor is held twice (the run's copy and the inputs
/// kept for the check), three times when the interpreter times repeats.
void checkHostMemory(const LaunchContract &contract, const Shapes &shapes) {
  uint64_t limit =
      maxHostBytes ? maxHostBytes.getValue() : availableHostBytes();
  unsigned copies = 2 + (interpret && bench ? 1 : 0);
  uint64_t total = 0;
  std::string largest;
  int64_t largestBytes = -1;
  for (const ParamSlot &slot : contract.params) {
    if (slot.kind != ParamSlot::Kind::Tensor)
      continue;
    std::optional<std::pair<int64_t, int64_t>> size =
        tensorSize(slot.element, shapes.lookup(slot.name));
    if (!size)
      usage("argument '" + slot.name + "' would have more than 2^63 elements "
            "or bytes; choose smaller --dim values");
    if (size->second > largestBytes) {
      largestBytes = size->second;
      largest = slot.name;
    }
    // Each size is below 2^63: three copies fit in 128 bits' worth of
    // saturation.
    uint64_t bytes = uint64_t(size->second);
    total = bytes > (UINT64_MAX - total) / copies ? UINT64_MAX
                                                  : total + bytes * copies;
  }
  if (limit && total > limit)
    usage("the run needs " + formatBytes(total) +
          " of host memory for its tensors (each held " + llvm::Twine(copies) +
          " times; the largest is '" + largest + "', " +
          formatBytes(largestBytes) + "), more than the " + formatBytes(limit) +
          (maxHostBytes ? " --max-host-bytes allows"
                        : " this machine has available (--max-host-bytes "
                          "sets the limit)") +
          "; choose smaller --dim values");
}

/// The run's arguments, by parameter index.
struct Arguments {
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// What the kernel runs on; scalars: empty.
  std::vector<HostTensor> tensors;
  /// The tensors before the run, which the check's reference reads.
  std::vector<HostTensor> initial;
  /// The interpreter's view of `tensors` and the scalars.
  std::vector<interp::Argument> interpreted;
  /// The reference's view of `initial` and every scalar's value.
  reference::Problem referenceInputs;
  /// Integer scalars given with --scalar, exactly.
  llvm::StringMap<int64_t> integerScalars;
};

/// Fills the tensors (--input, --init, seeded random data, or poison for
/// outputs only written) and gives the scalars not given a seeded value.
void fillArguments(const LaunchContract &contract, const Bindings &bindings,
                   const llvm::StringMap<std::string> &inits,
                   const GivenScalars &scalars, Arguments &arguments) {
  std::mt19937_64 rng(measure.seed);
  std::vector<HostTensor> &tensors = arguments.tensors;
  reference::Problem &referenceInputs = arguments.referenceInputs;
  tensors.resize(contract.params.size());
  arguments.initial.resize(contract.params.size());
  referenceInputs.scalars = scalars.values;
  arguments.integerScalars = scalars.integers;
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      if (!scalars.values.count(slot.name)) {
        // Unspecified float scalars take a seeded value in [0.5, 1.5).
        double value = isFloat(slot.element)
                           ? 0.5 + std::uniform_real_distribution<double>()(rng)
                           : 1.0;
        referenceInputs.scalars[slot.name] = roundTo(slot.element, value);
      }
      interp::ScalarArg scalar;
      scalar.floatValue = referenceInputs.scalars[slot.name];
      auto exact = scalars.integers.find(slot.name);
      scalar.intValue = exact != scalars.integers.end()
                            ? exact->second
                            : static_cast<int64_t>(scalar.floatValue);
      arguments.interpreted.push_back(scalar);
      continue;
    }
    llvm::SmallVector<int64_t, 4> shape;
    for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
      shape.push_back(extent >= 0 ? extent : bindings.dims.lookup(dim));
    HostTensor &tensor = tensors[index] = HostTensor(slot.element, shape);
    std::string how = inits.lookup(slot.name);
    if (auto input = bindings.inputs.find(slot.name);
        input != bindings.inputs.end()) {
      if (!how.empty())
        usage("--init " + slot.name + ": the tensor is read with --input");
      tensor = input->second;
    } else if (!how.empty()) {
      if (llvm::Error error = tensor.fill(how, rng))
        usage("--init " + slot.name + "=" + how + ": " +
              llvm::toString(std::move(error)));
    } else if (slot.read || !slot.written) {
      tensor.fillRandom(rng);
    } else {
      tensor.poison(); // written only: every element must be stored
    }
    arguments.initial[index] = tensor;
    referenceInputs.tensors[slot.name] = &arguments.initial[index];
  }
  for (auto [index, slot] : llvm::enumerate(contract.params))
    if (slot.kind == ParamSlot::Kind::Tensor) {
      interp::TensorArg arg;
      arg.data = tensors[index].data();
      arg.elementType = slot.element;
      arg.shape.assign(tensors[index].getShape().begin(),
                       tensors[index].getShape().end());
      arguments.interpreted.insert(arguments.interpreted.begin() + index, arg);
    }
}

/// The arguments, every option about them checked before any tensor is
/// allocated.
void prepareArguments(tile::KernelOp kernel, const LaunchContract &contract,
                      const Bindings &bindings, Arguments &arguments) {
  checkAlignedDims(kernel, contract, bindings.dims);
  llvm::StringMap<std::string> inits = readInits(contract);
  GivenScalars scalars = readScalars(contract);
  arguments.grid = readGrid(contract, bindings.dims);
  Shapes shapes =
      checkLaunch(contract, bindings, scalars.values, scalars.integers,
                  arguments.grid);
  checkHostMemory(contract, shapes);
  fillArguments(contract, bindings, inits, scalars, arguments);
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

/// Arrays from files can disagree with each other: the launcher's checks
/// say how, by argument.
void checkInputsAgree(const LaunchContract &contract,
                      const Arguments &arguments) {
  std::vector<LaunchArgument> checked;
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    if (slot.kind == ParamSlot::Kind::Scalar) {
      auto exact = arguments.integerScalars.find(slot.name);
      checked.push_back(ScalarArgument{
          arguments.referenceInputs.scalars.lookup(slot.name),
          exact != arguments.integerScalars.end()
              ? std::optional<int64_t>(exact->second)
              : std::nullopt});
      continue;
    }
    const HostTensor &tensor = arguments.tensors[index];
    TensorArgument argument;
    argument.address = reinterpret_cast<uintptr_t>(tensor.data());
    argument.element = slot.element;
    argument.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    checked.push_back(std::move(argument));
  }
  llvm::Expected<BoundLaunch> bound =
      bindArguments(contract, checked, arguments.grid, cuda::encodeTensorMap);
  if (!bound)
    usage(llvm::toString(bound.takeError()));
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
