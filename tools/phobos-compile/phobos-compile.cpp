//===- phobos-compile.cpp - Phobos source to PTX and launch contracts -----===//
//
// phobos-compile FILE.ph [--kernel NAME] [--variant NAME=V,...]
//                [--all-variants] [-j N] [--chip sm_90] -o DIR
//
// Writes, for each compiled kernel variant, DIR/<kernel>.<variant>.ptx, the
// .cubin when ptxas is found, and the launch contract as .json; with
// --cache, publishes them in the kernel cache instead and prints each
// entry's directory. --span-map reports diagnostics at the place a
// generated program was written (the Python package's kernels). Several
// variants compile in parallel (-j), each thread with its own context and
// compiler; what they print comes in variant order. They assemble with the
// ptxas process, as phobos-run's do (nvJitLink, the tuner's assembler,
// makes other code: lib/Driver/JitLink.cpp).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Frontend/Diagnostics.h"
#include "Phobos/Frontend/Parser.h"
#include "Phobos/Frontend/Sema.h"
#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Driver/Session.h"
#include "Phobos/Support/Experiments.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Target/PassPipeline.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace phobos;
namespace cl = llvm::cl;

static cl::OptionCategory category("phobos-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<kernel.ph>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string> outputDir("o", cl::desc("Output directory"),
                                      cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> kernelName("kernel",
                                       cl::desc("Compile only this kernel"),
                                       cl::value_desc("NAME"), cl::cat(category));
static cl::opt<std::string> specializeSpec(
    "specialize-dims",
    cl::desc("Compile the kernel specialised for these extents, as phobos-run "
             "does for its --dim values: each one divisible by 2, 4, 8 or 16 "
             "becomes an @aligned promise (the launcher checks it)"),
    cl::value_desc("NAME=V,..."), cl::cat(category));
static cl::opt<std::string>
    variantSpec("variant", cl::desc("@autotune values: NAME=V,NAME=V"),
                cl::value_desc("NAME=V,..."), cl::cat(category));
static cl::opt<bool> lastVariant("last-variant",
                                 cl::desc("Compile the variant of each "
                                          "kernel that takes the last value "
                                          "of every @autotune dimension"),
                                 cl::cat(category));
static cl::opt<bool> allVariants("all-variants",
                                 cl::desc("Compile every variant of the "
                                          "@autotune space"),
                                 cl::cat(category));
static cl::list<std::string> experiments("experiment",
                                         cl::desc(phobos::kExperimentFlagHelp),
                                         cl::value_desc("NAME=VALUE"),
                                         cl::cat(category));
static cl::opt<unsigned>
    threadCount("j",
                cl::desc("Variants compiled at once (default: one per core)"),
                cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<std::string> chip("chip", cl::desc("Target GPU"),
                                 cl::init("sm_90"), cl::cat(category));
static cl::opt<bool> noCubin("no-cubin",
                             cl::desc("Do not run ptxas even if it is found"),
                             cl::cat(category));
static cl::opt<bool> lineInfo(
    "lineinfo",
    cl::desc("Line info in the PTX and cubin (.file/.loc at the source "
             "lines) for compute-sanitizer and Nsight Compute (default on; "
             "--lineinfo=false leaves it out)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool>
    resources("resources",
              cl::desc("Print what ptxas -v reports for each kernel: "
                       "registers, spilled bytes, stack frame"),
              cl::cat(category));
static cl::opt<bool> useCache("cache",
                              cl::desc("Publish in the kernel cache (and "
                                       "reuse what is there); prints each "
                                       "entry's directory"),
                              cl::cat(category));
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("The kernel cache (default: $PHOBOS_CACHE_DIR, else "
                      "~/.cache/phobos)"),
             cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool>
    contractOnly("contract-only",
                 cl::desc("Write only the launch contract (no GPU pipeline): "
                          "what the interpreter's launchers need"),
                 cl::cat(category));
static cl::opt<std::string>
    spanMapFile("span-map",
                cl::desc("Report diagnostics at the places this span map "
                         "gives (a generated program's origin)"),
                cl::value_desc("FILE"), cl::cat(category));

static bool writeFile(const std::string &path, llvm::StringRef contents) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error) {
    llvm::errs() << "phobos-compile: cannot write '" << path
                 << "': " << error.message() << "\n";
    return false;
  }
  os << contents;
  return true;
}

/// "TILE_M64_TILE_N128" for file names; "default" without a space.
static std::string variantTag(const LaunchContract &contract) {
  std::string tag;
  for (auto &[name, value] : contract.variant)
    tag += (tag.empty() ? "" : "_") + name + std::to_string(value);
  return tag.empty() ? "default" : tag;
}

/// Writes the contract (with `chip` and `files`) as DIR/<stem>.json.
static bool writeContract(const std::string &stem, const CompiledKernel &kernel,
                          llvm::json::Object files) {
  llvm::json::Value contract = kernel.contract.toJSON();
  contract.getAsObject()->insert({"chip", kernel.chip});
  contract.getAsObject()->insert({"files", std::move(files)});
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", contract) << "\n";
  return writeFile(stem + ".json", text);
}

/// Writes a build as DIR/<kernel>.<variant>.{ptx,cubin,json} (the contract
/// alone with --contract-only) and says what it wrote; with `resources`,
/// what ptxas reported.
static bool writeOutputs(const KernelBuild &build, bool resources) {
  const CompiledKernel &kernel = build.kernel;
  std::string stem = outputDir + "/" + kernel.contract.kernel + "." +
                     variantTag(kernel.contract);
  if (contractOnly) {
    if (!writeContract(stem, kernel, llvm::json::Object{}))
      return false;
    llvm::outs() << stem << ".json\n";
    return true;
  }
  std::string base = stem.substr(outputDir.size() + 1);
  llvm::json::Object files{{"ptx", base + ".ptx"}};
  // Assembly may re-target the PTX's occupancy (assembleAvoidingSpills):
  // the .ptx written is the one the cubin comes from.
  if (!writeFile(stem + ".ptx", kernel.ptx))
    return false;
  if (build.cubin && writeFile(stem + ".cubin", *build.cubin))
    files["cubin"] = base + ".cubin";
  if (!writeContract(stem, kernel, std::move(files)))
    return false;
  llvm::outs() << stem << ".{ptx" << (build.cubin ? ",cubin" : "")
               << ",json}\n";
  if (resources)
    llvm::outs() << kernel.contract.kernel << " [" << variantTag(kernel.contract)
                 << "] " << kernel.chip << ": " << build.report.registers
                 << " registers, " << build.report.spillStoreBytes
                 << " bytes spill stores, " << build.report.spillLoadBytes
                 << " bytes spill loads, " << build.report.stackFrameBytes
                 << " bytes stack frame\n";
  return true;
}

namespace {
/// What the source is, shared by every compile thread.
struct Input {
  std::string name, text;
  std::optional<frontend::SpanMap> spanMap;
};

/// One variant's compile: what it printed and what it built.
struct JobOutcome {
  std::string diagnostics;
  std::vector<KernelBuild> builds;
  bool failed = false;
};

/// The kernel and variant of a job as the user writes them again:
/// `kernel 'k' (--variant A=1,B=2)`, the names sorted.
std::string describeJob(const frontend::ImportOptions &job) {
  std::vector<std::string> values;
  for (const auto &entry : job.variant)
    values.push_back((entry.getKey() + "=" + llvm::Twine(entry.getValue())).str());
  llvm::sort(values);
  std::string text = "kernel '" + job.kernelName + "'";
  if (!values.empty())
    text += " (--variant " + llvm::join(values, ",") + ")";
  return text;
}

/// A compile thread's own context, copy of the source and compiler:
/// MLIR's pass managers and a KernelCompiler serve one thread at a time.
class Worker {
public:
  Worker(const mlir::DialectRegistry &registry, const Input &input,
         const CompileOptions &options, bool threaded, bool withCompiler = true)
      : context(registry, threaded ? mlir::MLIRContext::Threading::DISABLED
                                   : mlir::MLIRContext::Threading::ENABLED),
        stream(text), diagnostics(sourceMgr, &context, stream) {
    // Errors point at the user's source; the IR of the failing op is noise.
    context.printOpOnDiagnostic(false);
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(input.text, input.name),
        llvm::SMLoc());
    if (input.spanMap) {
      spanMap = &*input.spanMap;
      spanMapHandler.emplace(*input.spanMap, input.name, sourceMgr,
                             diagnostics, &context);
    }
    if (withCompiler && !contractOnly)
      compiler.emplace(&context, options.chip);
  }

  /// The variants of the source's kernels (--all-variants) or the last of
  /// each (--last-variant); nullopt after an error (in takeDiagnostics).
  std::optional<std::vector<frontend::ImportOptions>> listVariants();

  /// What was reported since the last call.
  std::string takeDiagnostics() {
    std::string taken = std::move(text);
    text.clear();
    return taken;
  }

  /// Compiles one job; its diagnostics come back with it.
  JobOutcome compile(const frontend::ImportOptions &job, const BuildKey &base,
                     const CompileOptions &options,
                     const llvm::StringMap<int64_t> &specializeDims) {
    JobOutcome outcome;
    frontend::ImportOptions import = job;
    import.spanMap = spanMap;
    mlir::OwningOpRef<mlir::ModuleOp> module =
        frontend::importPhobos(sourceMgr, &context, import);
    if (module) {
      BuildKey key = base;
      for (tile::KernelOp kernelOp : module->getOps<tile::KernelOp>()) {
        key.specialized = specializeAlignment(kernelOp, specializeDims);
        mlir::FailureOr<KernelBuild> build = getOrCompile(
            kernelOp, key, options, compiler ? &*compiler : nullptr);
        if (failed(build)) {
          outcome.failed = true;
          break;
        }
        outcome.builds.push_back(std::move(*build));
      }
    } else {
      outcome.failed = true;
    }
    outcome.diagnostics = takeDiagnostics();
    return outcome;
  }

private:
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::string text;
  llvm::raw_string_ostream stream;
  mlir::SourceMgrDiagnosticHandler diagnostics;
  const frontend::SpanMap *spanMap = nullptr;
  std::optional<frontend::SpanMapDiagnosticHandler> spanMapHandler;
  std::optional<KernelCompiler> compiler;
};

/// Compiles `jobs` on `threads` threads and hands each outcome to `emit` in
/// job order, as soon as it and those before it are done; stops at the
/// first `emit` that returns false (a variant that fails to compile does
/// not stop the others: a failure to write the outputs does).
void compileAll(const mlir::DialectRegistry &registry, const Input &input,
                const std::vector<frontend::ImportOptions> &jobs,
                const BuildKey &key, const CompileOptions &options,
                const llvm::StringMap<int64_t> &specializeDims,
                unsigned threads,
                llvm::function_ref<bool(size_t, JobOutcome &)> emit) {
  if (threads <= 1) {
    Worker worker(registry, input, options, /*threaded=*/false);
    for (size_t index = 0; index < jobs.size(); ++index) {
      JobOutcome outcome =
          worker.compile(jobs[index], key, options, specializeDims);
      if (!emit(index, outcome))
        return;
    }
    return;
  }
  std::vector<std::optional<JobOutcome>> outcomes(jobs.size());
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      Worker worker(registry, input, options, /*threaded=*/true);
      for (size_t index; !stop && (index = next++) < jobs.size();) {
        JobOutcome outcome =
            worker.compile(jobs[index], key, options, specializeDims);
        std::lock_guard<std::mutex> guard(mutex);
        outcomes[index] = std::move(outcome);
        ready.notify_all();
      }
    });
  for (size_t index = 0; index < jobs.size(); ++index) {
    std::unique_lock<std::mutex> lock(mutex);
    ready.wait(lock, [&] { return outcomes[index].has_value(); });
    JobOutcome outcome = std::move(*outcomes[index]);
    outcomes[index].reset();
    lock.unlock();
    if (!emit(index, outcome)) {
      stop = true;
      break;
    }
  }
  for (std::thread &thread : pool)
    thread.join();
}

/// Exits with status 2 after a bad --experiment.
void applyExperimentsOrExit() {
  if (llvm::Error error = applyExperiments(experiments)) {
    llvm::errs() << "phobos-compile: " << llvm::toString(std::move(error))
                 << "\n";
    std::exit(2);
  }
}

std::optional<std::vector<frontend::ImportOptions>> Worker::listVariants() {
  std::vector<frontend::ImportOptions> jobs;
  frontend::Diagnostics diags(sourceMgr, &context, sourceMgr.getMainFileID());
  auto program = frontend::parseProgram(diags);
  if (!program)
    return std::nullopt;
  for (auto &kernel : program->kernels) {
    if (!kernelName.empty() && kernel->name != kernelName)
      continue;
    std::optional<frontend::KernelAttributes> attrs =
        frontend::readAttributes(*kernel, diags);
    if (!attrs)
      return std::nullopt;
    std::vector<frontend::Variant> variants;
    if (lastVariant) {
      variants.push_back(frontend::lastVariant(*attrs));
    } else if (frontend::countVariants(*attrs,
                                       frontend::kMaxEnumeratedVariants)) {
      variants = frontend::enumerateVariants(*attrs);
    } else {
      // Never build the space: 40 dimensions of two values are 2^40.
      diags.error(attrs->autotune.front().loc)
          << "kernel '" << kernel->name << "' has more than "
          << frontend::kMaxEnumeratedVariants
          << " variants, more than --all-variants compiles; choose "
             "variants with --variant NAME=V,... (or --last-variant)";
      return std::nullopt;
    }
    for (const frontend::Variant &variant : variants) {
      frontend::ImportOptions job;
      job.kernelName = kernel->name;
      for (auto &[name, value] : variant)
        job.variant[name] = value;
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    // The version names the experiments given before --version.
    applyExperimentsOrExit();
    os << "Phobos compiler version " << compilerVersion() << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "phobos-compile: Phobos source to PTX\n");
  applyExperimentsOrExit();
  if (outputDir.empty() == !useCache) {
    llvm::errs() << "phobos-compile: give either -o DIR or --cache\n";
    return 2;
  }
  std::string cacheRoot = cacheDir.empty() ? defaultKernelCacheDir() : cacheDir;
  if (useCache && cacheRoot.empty()) {
    llvm::errs() << "phobos-compile: --cache: no cache directory (set "
                    "PHOBOS_CACHE_DIR or HOME, or pass --cache-dir)\n";
    return 2;
  }
  Input input;
  // A FIFO or a device would block or never end: regular files, or "-".
  auto buffer = readInputFile(inputFile);
  if (!buffer) {
    llvm::errs() << "phobos-compile: " << llvm::toString(buffer.takeError())
                 << "\n";
    return 2;
  }
  input.name = (*buffer)->getBufferIdentifier().str();
  input.text = (*buffer)->getBuffer().str();
  if (!spanMapFile.empty()) {
    llvm::Expected<frontend::SpanMap> map = frontend::SpanMap::readFile(spanMapFile);
    if (!map) {
      llvm::errs() << "phobos-compile: " << llvm::toString(map.takeError()) << "\n";
      return 2;
    }
    input.spanMap = std::move(*map);
  }
  if (!useCache)
    if (std::error_code error = llvm::sys::fs::create_directories(outputDir)) {
      llvm::errs() << "phobos-compile: cannot create '" << outputDir
                   << "': " << error.message() << "\n";
      return 2;
    }

  frontend::ImportOptions base;
  base.kernelName = kernelName;
  std::string problem = frontend::parseVariantSpec(variantSpec, base.variant);
  if (!problem.empty()) {
    llvm::errs() << "phobos-compile: --variant: " << problem << "\n";
    return 2;
  }
  llvm::StringMap<int64_t> specializeDims;
  problem = frontend::parseVariantSpec(specializeSpec, specializeDims);
  if (!problem.empty()) {
    llvm::errs() << "phobos-compile: --specialize-dims: " << problem << "\n";
    return 2;
  }
  for (auto &[name, value] : specializeDims)
    if (value < 1) {
      llvm::errs() << "phobos-compile: --specialize-dims " << name.str() << "="
                   << value << ": extents are at least 1\n";
      return 2;
    }
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  // The variants to build: the one asked for, or those of each kernel.
  std::optional<std::vector<frontend::ImportOptions>> jobs;
  if (allVariants || lastVariant) {
    Worker lister(registry, input, CompileOptions(), /*threaded=*/false,
                  /*withCompiler=*/false);
    jobs = lister.listVariants();
    llvm::errs() << lister.takeDiagnostics();
    if (!jobs)
      return 1;
  } else {
    jobs.emplace({base});
  }

  if (!contractOnly && !isValidChip(chip)) {
    llvm::errs() << "phobos-compile: --chip: unsupported chip '" << chip
                 << "'; Phobos targets " << supportedChips() << "\n";
    return 2;
  }
  CompileOptions options;
  options.chip = contractOnly ? kContractOnlyChip.str() : chip.getValue();
  options.assemble = !noCubin && !contractOnly;
  options.cacheDir = useCache ? cacheRoot : "";
  options.lineInfo = lineInfo;
  if (options.assemble)
    options.ptxas = findPtxas().value_or("");
  if (resources && (useCache || options.ptxas.empty())) {
    llvm::errs() << "phobos-compile: --resources needs ptxas and -o DIR ("
                 << (options.ptxas.empty() && !noCubin && !contractOnly
                         ? "no ptxas on PATH or in /usr/local/cuda/bin"
                         : "not with --cache, --contract-only or --no-cubin")
                 << ")\n";
    return 2;
  }
  unsigned threads = std::min<size_t>(
      threadCount ? threadCount : std::max(1u, std::thread::hardware_concurrency()),
      jobs->size());
  BuildKey key;
  key.source = input.text;
  int status = 0;
  // Of many variants, each failure names its variant, and the others are
  // still compiled (a refused variant says nothing of the rest of the
  // space); a diagnostic already printed for another variant is not
  // printed again.
  bool manyJobs = jobs->size() > 1;
  llvm::StringSet<> printed;
  compileAll(registry, input, *jobs, key, options, specializeDims, threads,
             [&](size_t index, JobOutcome &outcome) {
               bool repeated = manyJobs && outcome.failed &&
                               !printed.insert(outcome.diagnostics).second;
               if (!repeated)
                 llvm::errs() << outcome.diagnostics;
               if (manyJobs && outcome.failed)
                 llvm::errs() << "phobos-compile: note: "
                              << describeJob((*jobs)[index]) << " failed"
                              << (repeated ? " with the error printed above"
                                           : "")
                              << "; the other variants are still compiled\n";
               for (const KernelBuild &build : outcome.builds) {
                 for (const std::string &note : build.notes)
                   llvm::errs() << "phobos-compile: note: " << note << "\n";
                 if (!build.assemblyError.empty()) {
                   llvm::errs() << "phobos-compile: " << build.kernel.contract.kernel
                                << ": " << build.assemblyError << "\n";
                   status = 1;
                 }
                 if (!build.storeError.empty()) {
                   llvm::errs() << "phobos-compile: " << build.storeError << "\n";
                   status = 1;
                   return false;
                 }
                 if (useCache)
                   llvm::outs() << build.cacheEntry << "\n";
                 else if (!writeOutputs(build, resources)) {
                   status = 1;
                   return false;
                 }
               }
               if (outcome.failed)
                 status = 1;
               return true;
             });
  return status;
}
