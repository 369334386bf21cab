//===- CompilePool.cpp - Variants compiled in parallel --------------------===//
//
// One thread per core takes variants from a shared list. Each thread has
// its own MLIRContext (threading off: the parallelism is across variants)
// and its own KernelCompiler, whose pass managers are built once and reused
// for every variant the thread compiles. A variant already in the kernel
// cache is not compiled again; a compiled one is published there, so each
// variant compiles at most once, whichever process asks.
//
//===----------------------------------------------------------------------===//

#include "TuneInternal.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Driver/Compiler.h"
#include "Phobos/Driver/JitLink.h"
#include "Phobos/Driver/Session.h"
#include "Phobos/Support/Experiments.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Target/BuildLaunchContract.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <cstdlib>
#include <mutex>

#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace phobos;
using namespace phobos::tune;

namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

/// The first lines of a diagnostic text, for a table cell.
std::string firstLines(llvm::StringRef text, unsigned count = 3) {
  llvm::SmallVector<llvm::StringRef> lines;
  text.trim().split(lines, '\n');
  std::string result;
  for (unsigned i = 0; i < lines.size() && i < count; ++i)
    result += (i ? "\n" : "") + lines[i].rtrim().str();
  return result;
}

/// Each variant's compile allocates and frees tens of megabytes (MLIR,
/// LLVM, nvJitLink). With glibc's defaults the freed memory goes back to
/// the kernel (trimmed from the top of a heap, or unmapped where a block
/// was above the mmap threshold), and the next variant faults it in again
/// page by page: on the sgemm space a good share of the time went to page
/// faults, most of them in nvJitLink. Keeping freed memory in the heaps
/// (trimmed only above 1 GiB, grown 64 MiB at a time, blocks up to 32 MiB
/// from the heap) made the median variant faster to compile and its time
/// steadier from run to run (figures in docs/benchmarks-log.md).
/// Process-wide, once; the experiment allocator-defaults=1 leaves glibc's
/// settings, for A/B measurements.
void keepFreedMemory() {
#ifdef __GLIBC__
  static std::once_flag once;
  std::call_once(once, [] {
    if (getExperiments().allocatorDefaults)
      return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 64 << 20);
  });
#endif
}

} // namespace

CompilePool::CompilePool(Config config, std::vector<Variant> variants)
    : config(std::move(config)), variants(std::move(variants)),
      reportsLeft(2 * this->variants.size()) {
  keepFreedMemory();
  // One nvJitLink for every worker: it assembles in the process, where
  // ptxas costs a process and two files per variant.
  if (this->config.useCubin && !getExperiments().ptxasProcess)
    linker = JitLinker::open();
  unsigned count = std::max(1u, std::min<unsigned>(this->config.jobs,
                                                   this->variants.size()));
  for (unsigned worker = 0; worker < count; ++worker)
    threads.emplace_back([this, worker] { work(worker); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard<std::mutex> guard(mutex);
    nextJob = variants.size(); // no new work
  }
  for (std::thread &thread : threads)
    thread.join();
}

std::optional<CompileOutcome> CompilePool::next() {
  std::unique_lock<std::mutex> lock(mutex);
  if (reportsLeft == 0)
    return std::nullopt;
  ready.wait(lock, [&] { return !done.empty(); });
  CompileOutcome outcome = std::move(done.front());
  done.pop_front();
  --reportsLeft;
  return outcome;
}

void CompilePool::work(unsigned) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(config.source, config.sourceFile),
      llvm::SMLoc());
  std::string diagnosticText;
  llvm::raw_string_ostream diagnosticStream(diagnosticText);
  mlir::SourceMgrDiagnosticHandler printer(sourceMgr, &context,
                                           diagnosticStream);
  std::optional<frontend::SpanMap> spanMap;
  std::optional<frontend::SpanMapDiagnosticHandler> spanMapHandler;
  if (!config.spanMapFile.empty()) {
    if (llvm::Expected<frontend::SpanMap> map =
            frontend::SpanMap::readFile(config.spanMapFile)) {
      spanMap = std::move(*map);
      spanMapHandler.emplace(*spanMap, config.sourceFile, sourceMgr, printer,
                             &context);
    } else {
      llvm::consumeError(map.takeError()); // the caller read it first
    }
  }
  std::unique_ptr<KernelCompiler> compiler;
  CompileOptions buildOptions;
  buildOptions.chip = config.chip;
  buildOptions.cacheDir = config.cacheDir;
  buildOptions.assemble = config.useCubin;
  buildOptions.needCubin = true;
  buildOptions.sharedLimitBytes = config.sharedLimitBytes;
  if (linker)
    buildOptions.assembler = [&](llvm::StringRef ptx, AssemblyReport *report) {
      return linker->assemble(ptx, config.chip, report);
    };

  auto publish = [&](CompileOutcome outcome) {
    std::lock_guard<std::mutex> guard(mutex);
    done.push_back(std::move(outcome));
    ready.notify_one();
  };

  while (true) {
    size_t index;
    {
      std::lock_guard<std::mutex> guard(mutex);
      if (nextJob >= variants.size())
        return;
      index = nextJob++;
    }
    const Variant &variant = variants[index];
    CompileOutcome outcome;
    outcome.index = index;
    auto start = std::chrono::steady_clock::now();

    // Stage 1: the front end, the contract, and whether it can run here.
    diagnosticText.clear();
    frontend::ImportOptions options;
    options.kernelName = config.kernel;
    if (spanMap)
      options.spanMap = &*spanMap;
    for (auto &[name, value] : variant)
      options.variant[name] = value;
    mlir::OwningOpRef<mlir::ModuleOp> module =
        frontend::importPhobos(sourceMgr, &context, options);
    outcome.frontendMs = millisecondsSince(start);
    outcome.stage = 1;
    tile::KernelOp kernel;
    if (module)
      kernel = *module->getOps<tile::KernelOp>().begin();
    if (!kernel) {
      outcome.error = firstLines(diagnosticText);
      if (outcome.error.empty())
        outcome.error = "the front end rejected the variant";
    } else {
      outcome.contract = buildLaunchContract(kernel);
      outcome.reduced = usesReducedPrecision(kernel);
      outcome.pruned = pruneReason(outcome.contract, config.dims);
    }
    CompileOutcome first = outcome;
    publish(std::move(first));
    if (!kernel || !outcome.pruned.empty()) {
      outcome.stage = 2; // nothing more to do
      publish(std::move(outcome));
      continue;
    }

    // Stage 2: from the kernel cache, or compiled into it (getOrCompile,
    // the path every tool takes), with the cubin this pool's assembler
    // makes; specialised for the problem's extents first when asked (the
    // kernel cache keys the promises, as phobos-run's launches do).
    BuildKey key;
    key.source = config.source;
    if (!config.specializeDims.empty())
      key.specialized = specializeAlignment(kernel, config.specializeDims);
    outcome.specialized = key.specialized;
    if (!compiler)
      compiler = std::make_unique<KernelCompiler>(&context, config.chip);
    diagnosticText.clear();
    mlir::FailureOr<KernelBuild> build =
        getOrCompile(kernel, key, buildOptions, compiler.get());
    if (failed(build)) {
      outcome.error = firstLines(diagnosticText);
      if (outcome.error.empty())
        outcome.error = "the GPU pipeline failed";
    } else {
      // The kernel of the cubin: a relieved one may have another contract.
      outcome.contract = std::move(build->kernel.contract);
      outcome.ptx = std::move(build->kernel.ptx);
      outcome.cubin = std::move(build->cubin);
      outcome.cached = build->fromCache;
      outcome.passesMs = build->timings.passesMs;
      outcome.llvmMs = build->timings.llvmMs;
      outcome.ptxasMs = build->assembleMs;
      if (!build->assemblyError.empty())
        outcome.error = firstLines(build->assemblyError);
    }
    if (outcome.error.empty() && config.sharedLimitBytes >= 0 &&
        outcome.contract.sharedMemoryBytes > config.sharedLimitBytes)
      outcome.pruned = llvm::formatv(
          "needs {0} KiB of shared memory; {1} allows {2} KiB per CTA",
          (outcome.contract.sharedMemoryBytes + 1023) / 1024, config.chip,
          config.sharedLimitBytes / 1024);
    outcome.totalMs = millisecondsSince(start);
    outcome.stage = 2;
    publish(std::move(outcome));
  }
}
