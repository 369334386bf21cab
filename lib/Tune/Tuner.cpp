//===- Tuner.cpp - Search a kernel's @autotune space ----------------------===//
//
// The search: enumerate, ask the tuning cache, compile in parallel (the
// GPU backend) or import (the interpreter), check each variant as soon as
// it is compiled, time the ones that pass, time the fastest few again in
// rounds, choose, store, report. Progress goes to `Options::progress`.
//
// Why this file is long: it is the search alone, one Search object whose
// methods are its steps in the order they run, sharing the search's state;
// what is not the search (the compile pool, the backends, the problem and
// its inputs, the report) is already in files of its own.
//
//===----------------------------------------------------------------------===//

#include "TuneInternal.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Driver/Compiler.h"
#include "Phobos/Frontend/Diagnostics.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Frontend/Parser.h"
#include "Phobos/Frontend/Sema.h"
#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/Support/Chips.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Reference/Reference.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Runtime/TuningCache.h"
#include "Phobos/Target/BuildLaunchContract.h"
#include "Phobos/Target/PassPipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Threading.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <numeric>

using namespace phobos;
using namespace phobos::tune;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> samples) {
  if (samples.empty())
    return -1;
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

std::string today() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", std::localtime(&now));
  return text;
}

/// A float64 reference that remembers what it computed, so that checking
/// many variants on one problem computes each expected element once.
class RememberingReference : public reference::Reference {
public:
  explicit RememberingReference(std::unique_ptr<reference::Reference> inner)
      : inner(std::move(inner)) {}
  std::vector<std::string> tensorNames() const override {
    return inner->tensorNames();
  }
  std::vector<std::string> scalarNames() const override {
    return inner->scalarNames();
  }
  std::vector<std::string> outputNames() const override {
    return inner->outputNames();
  }
  std::vector<Signature> signatures() const override {
    return inner->signatures();
  }
  double element(const reference::Problem &problem, llvm::StringRef output,
                 llvm::ArrayRef<int64_t> index) override {
    std::string key = output.str();
    for (int64_t i : index)
      key += "," + std::to_string(i);
    auto [it, inserted] = known.try_emplace(key, 0.0);
    if (inserted)
      it->second = inner->element(problem, output, index);
    return it->second;
  }

private:
  std::unique_ptr<reference::Reference> inner;
  llvm::StringMap<double> known;
};

/// Progress: compiled / checked / timed of the total, the best so far, an
/// estimate of the time left.
class Progress {
public:
  Progress(const Options &options, size_t total)
      : os(options.progress), inPlace(options.progressInPlace), total(total),
        start(Clock::now()) {}

  size_t compiled = 0, checked = 0, timed = 0;
  std::string best;

  void update(bool force = false) {
    if (!os)
      return;
    double elapsed = secondsSince(start);
    if (!force && elapsed - lastPrint < (inPlace ? 0.1 : 1.0))
      return;
    lastPrint = elapsed;
    size_t doneUnits = compiled + checked + timed;
    double left = doneUnits ? elapsed * (3.0 * total - doneUnits) / doneUnits : 0;
    std::string line = llvm::formatv(
        "phobos-tune: compiled {0}/{3}, checked {1}/{3}, timed {2}/{3}", compiled,
        checked, timed, total);
    if (!best.empty())
      line += ", best " + best;
    if (doneUnits && doneUnits < 3 * total)
      line += llvm::formatv(", about {0:f1} s left", left).str();
    if (inPlace)
      *os << "\r" << line << "\033[K";
    else
      *os << line << "\n";
    os->flush();
  }
  void finish() {
    update(true);
    if (os && inPlace)
      *os << "\n";
  }

private:
  llvm::raw_ostream *os;
  bool inPlace;
  size_t total;
  Clock::time_point start;
  double lastPrint = -1e9;
};

/// The kernel's source, parsed once in the main context: the space and the
/// front end for the interpreter.
struct Source {
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::string diagnosticText;
  llvm::raw_string_ostream diagnosticStream{diagnosticText};
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> printer;
  std::optional<frontend::SpanMap> spanMap;
  std::unique_ptr<frontend::SpanMapDiagnosticHandler> spanHandler;

  explicit Source(mlir::DialectRegistry &registry) : context(registry) {
    context.printOpOnDiagnostic(false);
  }

  mlir::OwningOpRef<mlir::ModuleOp> import(const std::string &kernel,
                                           const Variant &variant) {
    diagnosticText.clear();
    frontend::ImportOptions options;
    options.kernelName = kernel;
    for (auto &[name, value] : variant)
      options.variant[name] = value;
    if (spanMap)
      options.spanMap = &*spanMap;
    return frontend::importPhobos(sourceMgr, &context, options);
  }
};

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

} // namespace

/// The float64 reference `options` asks for (by name, else the one its
/// catalog names for `kernelName`) and that name; null where none is known.
static std::pair<std::unique_ptr<reference::Reference>, std::string>
chooseReference(const Options &options, llvm::StringRef kernelName) {
  if (!options.references)
    return {nullptr, options.reference};
  std::string name = options.reference.empty()
                         ? options.references->defaultFor(kernelName).str()
                         : options.reference;
  return {options.references->make(name), name};
}

/// The extents every GPU launch of the search shares, which the variants
/// are specialised for: the timed problem's when the variants are checked
/// on it too (a float64 reference, no check, or only compiling) or on the
/// interpreter's small problem chosen later (smallCheckDims then keeps
/// their powers of two), else per dim the greatest common divisor with the
/// given check problem's extent.
static llvm::StringMap<int64_t>
specializationExtents(const Options &options, llvm::StringRef kernelName) {
  if (!options.specialize)
    return {};
  CheckMode mode = options.checkDimsOnly ? CheckMode::Interpreter : options.check;
  if (mode == CheckMode::Reference &&
      !chooseReference(options, kernelName).first)
    mode = CheckMode::Interpreter;
  if (options.compileOnly || mode == CheckMode::Reference ||
      mode == CheckMode::None)
    return options.problem.dims;
  // The interpreter's small problem, chosen later, keeps the powers of two
  // of these extents (see smallCheckDims' multiples below).
  if (mode == CheckMode::Interpreter && options.checkProblem.dims.empty())
    return options.problem.dims;
  llvm::StringMap<int64_t> shared;
  for (const auto &entry : options.problem.dims) {
    auto check = options.checkProblem.dims.find(entry.getKey());
    if (check != options.checkProblem.dims.end())
      shared[entry.getKey()] = std::gcd(entry.getValue(), check->getValue());
  }
  return shared;
}

namespace {

/// One search, its stages in the order tune() runs them, and the state
/// they hand on. Members are declared in the order the stages make them,
/// so that what refers to another is destroyed first (the loaded variants
/// before the backend, the front ends before their context).
class Search {
public:
  Search(const Options &options, mlir::DialectRegistry &registry,
         Clock::time_point wallStart)
      : options(options), wallStart(wallStart), source(registry),
        checkProblem(options.problem), tolerance(options.tolerance),
        rng(options.seed) {}

  /// The kernel's source in the main context, with diagnostics at the
  /// places --span-map gives.
  llvm::Error readSource();
  /// The kernel and the variants to search (--variants, or the @autotune
  /// space less what --fix rules out).
  llvm::Error enumerateSpace();
  /// The default variant's contract, and the problem checked against it.
  llvm::Error readDefaultContract();
  /// The backend and the chip.
  llvm::Error chooseBackend();
  /// The report the tuning cache remembers for this search, where it may
  /// answer (not when only compiling, forced or asked for the check dims).
  std::optional<Report> lookUpTuningCache();
  void startReport();
  /// Stage 1 of every variant: the front end (contract, pruning), on the
  /// GPU in the compile pool, which goes on to stage 2 in the background.
  void compileFrontEnds();
  /// Whether variants run (are checked and timed), not only compiled.
  bool runsVariants() const { return backend != nullptr; }
  /// How variants are checked: the tolerance, the check problem, the
  /// reference or the expected outputs.
  llvm::Error chooseCheck();
  /// The report of --print-check-dims: the check problem's dims.
  Report checkDimsReport();
  /// The check problem's tensors and, for the interpreter check, what the
  /// interpreter gives on them.
  llvm::Error prepareCheck();
  /// The timed problem, uploaded once.
  llvm::Error prepareTiming();
  /// Checks and times each variant as it arrives from the compile pool.
  void checkAndTimeEach();
  /// The fastest few again, in rounds, so that drift hits them alike.
  void refineFastest();
  /// The fastest variant that passed; ends the progress line.
  void chooseBest();
  /// Remembers the winner in the tuning cache.
  void remember();
  Report takeReport() { return std::move(report); }

private:
  void importFrontEnds();
  void startCompilePool();
  llvm::Error chooseSmallCheckDims();
  /// The next variant out of stage 2, in completion order; nullopt when
  /// every variant has come.
  std::optional<CompileOutcome> nextCompiled();
  void recordCompile(const CompileOutcome &outcome);
  /// A variant that is not compiled: counted in every column of the
  /// progress.
  void drop(size_t index, VariantResult::Status status,
            const std::string &reason);
  /// A variant that failed after it was compiled: counted as checked and
  /// timed.
  void markFailed(VariantResult &result, VariantResult::Status status,
                  const std::string &reason);
  void checkAndTime(const CompileOutcome &outcome);
  /// Runs `outcome` on the check problem and compares its outputs; false
  /// when it failed or is wrong (its result says why).
  bool checkVariant(const CompileOutcome &outcome);
  /// The largest relative error of the outputs `ran` gives (infinite for
  /// unwritten elements and mismatched NaNs or infinities), and the output
  /// it is in.
  std::pair<double, std::string>
  worstError(const CompileOutcome &outcome,
             const std::vector<HostTensor> &ran);
  void timeVariant(const CompileOutcome &outcome);

  const Options &options;
  Clock::time_point wallStart;
  Source source;
  std::unique_ptr<frontend::Diagnostics> diags;
  std::unique_ptr<frontend::ast::Program> program;
  std::optional<frontend::KernelAttributes> attrs;
  std::string kernelName;
  std::vector<Variant> space;
  LaunchContract firstContract;
  std::unique_ptr<Backend> backend;
  std::string chip;
  /// Variants run on the interpreter: they are imported, not compiled.
  bool interpreted = false;
  TuningKey tuningKey;
  std::string cacheRoot;
  std::optional<TuningCache> tuningCache;
  Report report;
  std::optional<Progress> progress;
  /// The extents the GPU variants are specialised for (none on the
  /// interpreter backend, which runs the tile kernel).
  llvm::StringMap<int64_t> specializeDims;
  std::vector<CompileOutcome> outcomes;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> frontEnds;
  std::unique_ptr<CompilePool> pool;
  std::deque<CompileOutcome> compiledQueue;
  Clock::time_point compileStart;
  Problem checkProblem;
  CheckMode checkMode = CheckMode::None;
  double tolerance;
  std::mt19937_64 rng;
  std::map<std::string, HostTensor> expected;
  std::unique_ptr<RememberingReference> reference;
  std::optional<Instance> checkInstance;
  reference::Problem referenceProblem;
  std::vector<std::unique_ptr<Loaded>> loaded;
  double bestMs = INFINITY;
};

llvm::Error Search::readSource() {
  source.sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(options.source, options.sourceFile),
      llvm::SMLoc());
  source.printer = std::make_unique<mlir::SourceMgrDiagnosticHandler>(
      source.sourceMgr, &source.context, source.diagnosticStream);
  if (!options.spanMapFile.empty()) {
    llvm::Expected<frontend::SpanMap> map =
        frontend::SpanMap::readFile(options.spanMapFile);
    if (!map)
      return map.takeError();
    source.spanMap = std::move(*map);
    source.spanHandler = std::make_unique<frontend::SpanMapDiagnosticHandler>(
        *source.spanMap, options.sourceFile, source.sourceMgr, *source.printer,
        &source.context);
  }
  return llvm::Error::success();
}

llvm::Error Search::enumerateSpace() {
  diags = std::make_unique<frontend::Diagnostics>(
      source.sourceMgr, &source.context, source.sourceMgr.getMainFileID());
  program = frontend::parseProgram(*diags);
  if (!program)
    return fail(source.diagnosticText);
  frontend::ast::Kernel *astKernel = nullptr;
  std::vector<std::string> names;
  for (auto &kernel : program->kernels) {
    names.push_back(kernel->name);
    if (options.kernel.empty() || kernel->name == options.kernel)
      astKernel = astKernel ? astKernel : kernel.get();
  }
  if (options.kernel.empty() && program->kernels.size() > 1)
    return fail("the file defines several kernels (" +
                llvm::join(names, ", ") + "); choose one with --kernel");
  if (!astKernel)
    return fail("no kernel '" + options.kernel + "' in " + options.sourceFile +
                " (it defines " + llvm::join(names, ", ") + ")");
  attrs = frontend::readAttributes(*astKernel, *diags);
  if (!attrs)
    return fail(source.diagnosticText);
  kernelName = astKernel->name;
  if (!options.variants.empty()) {
    for (const llvm::StringMap<int64_t> &given : options.variants) {
      Variant variant;
      for (const frontend::SearchDim &dim : attrs->autotune) {
        auto value = given.find(dim.name);
        variant.emplace_back(dim.name, value != given.end()
                                           ? value->second
                                           : dim.values.front());
      }
      for (auto &entry : given)
        if (!attrs->findAutotune(entry.getKey()))
          return fail("--variants: '" + entry.getKey() +
                      "' is not an @autotune name of '" + kernelName + "'");
      space.push_back(std::move(variant));
    }
    return llvm::Error::success();
  }
  for (auto &entry : options.fixed)
    if (!attrs->findAutotune(entry.getKey()))
      return fail("--fix: '" + entry.getKey() +
                  "' is not an @autotune name of '" + kernelName + "'");
  for (frontend::Variant &variant : frontend::enumerateVariants(*attrs)) {
    bool keep = llvm::all_of(variant, [&](auto &binding) {
      auto fixed = options.fixed.find(binding.first);
      return fixed == options.fixed.end() || fixed->second == binding.second;
    });
    if (keep)
      space.push_back(std::move(variant));
  }
  if (space.empty())
    return fail("--fix leaves no variant of '" + kernelName + "' to search");
  return llvm::Error::success();
}

llvm::Error Search::readDefaultContract() {
  mlir::OwningOpRef<mlir::ModuleOp> defaultModule =
      source.import(kernelName, space.front());
  if (!defaultModule) {
    // Try the others: the first may be the one that does not compile.
    for (const Variant &variant : space)
      if ((defaultModule = source.import(kernelName, variant)))
        break;
    if (!defaultModule)
      return fail("no variant of '" + kernelName + "' compiles:\n" +
                  source.diagnosticText);
  }
  firstContract =
      buildLaunchContract(*defaultModule->getOps<tile::KernelOp>().begin());
  // What the problem must bind.
  for (const std::string &dim : firstContract.dynamicDims())
    if (!options.problem.dims.count(dim))
      return fail("missing --dim " + dim + "=V (kernel '" + kernelName +
                  "' needs every dim bound at launch)");
  for (const ParamSlot &slot : firstContract.params)
    for (const std::string &dim : slot.dims)
      if (attrs->findAutotune(dim) && !options.problem.dims.count(dim))
        return fail("missing --dim " + dim + "=V: '" + dim +
                    "' is an @autotune name and a tensor extent, so the "
                    "problem fixes it");
  for (auto &entry : options.problem.dims) {
    bool known = false;
    for (const ParamSlot &slot : firstContract.params)
      known |= llvm::is_contained(slot.dims, entry.getKey().str());
    if (!known)
      return fail("--dim: '" + entry.getKey() + "' is not a dim of kernel '" +
                  kernelName + "'");
  }
  return llvm::Error::success();
}

llvm::Error Search::chooseBackend() {
  chip = options.chip;
  if (!options.compileOnly) {
    if (options.backend == "interpreter" || options.checkDimsOnly) {
      backend = makeInterpreterBackend();
    } else if (options.backend == "gpu") {
      llvm::Expected<std::unique_ptr<Backend>> gpu =
          makeGpuBackend(options.chip);
      if (!gpu)
        return gpu.takeError();
      backend = std::move(*gpu);
    } else {
      return fail("--backend: expected gpu or interpreter, got '" +
                  options.backend + "'");
    }
    chip = backend->chip();
  }
  if (chip.empty())
    chip = "sm_90";
  interpreted =
      backend && (options.backend == "interpreter" || options.checkDimsOnly);
  if (!interpreted && !isValidChip(chip))
    return fail("--chip: unsupported chip '" + chip +
                "'; Phobos targets sm_80, sm_86, sm_87, sm_89, sm_90 and "
                "sm_90a");
  return llvm::Error::success();
}

std::optional<Report> Search::lookUpTuningCache() {
  tuningKey.source = options.source;
  tuningKey.kernel = kernelName;
  tuningKey.chip = chip;
  for (auto &entry : options.problem.dims)
    tuningKey.dims.emplace_back(entry.getKey().str(), entry.getValue());
  tuningKey.general = !interpreted && !options.specialize;
  cacheRoot =
      options.cacheDir.empty() ? defaultKernelCacheDir() : options.cacheDir;
  tuningCache.emplace(cacheRoot);
  if (options.compileOnly || options.checkDimsOnly || options.force ||
      cacheRoot.empty())
    return std::nullopt;
  std::optional<llvm::json::Object> record = tuningCache->lookup(tuningKey);
  if (!record)
    return std::nullopt;
  const llvm::json::Value *stored = record->get("report");
  if (!stored)
    return std::nullopt;
  llvm::Expected<Report> remembered = Report::fromJSON(*stored);
  if (!remembered) {
    llvm::consumeError(remembered.takeError());
    return std::nullopt;
  }
  remembered->fromCache = true;
  return std::move(*remembered);
}

void Search::startReport() {
  report.kernel = kernelName;
  report.file = options.sourceFile;
  report.chip = chip;
  report.backend = backend ? backend->describe() : "compile only";
  if (!backend)
    report.checkedWith = "nothing (compile only)";
  report.device = report.backend;
  report.dims = options.problem.dims;
  report.date = today();
  for (const frontend::SearchDim &dim : attrs->autotune)
    report.variantOrder.push_back(dim.name);
  for (const Variant &variant : space) {
    VariantResult result;
    result.variant = variant;
    report.results.push_back(std::move(result));
  }
  report.jobs = options.jobs ? options.jobs
                             : std::max(1u, llvm::hardware_concurrency()
                                                .compute_thread_count());
  progress.emplace(options, space.size());
}

void Search::compileFrontEnds() {
  if (!interpreted || options.checkDimsOnly)
    specializeDims = specializationExtents(options, kernelName);
  outcomes.resize(space.size());
  frontEnds.resize(space.size());
  loaded.resize(space.size());
  compileStart = Clock::now();
  if (interpreted)
    importFrontEnds();
  else
    startCompilePool();
}

void Search::importFrontEnds() {
  for (auto [index, variant] : llvm::enumerate(space)) {
    auto start = Clock::now();
    CompileOutcome &outcome = outcomes[index];
    outcome.index = index;
    frontEnds[index] = source.import(kernelName, variant);
    outcome.frontendMs = secondsSince(start) * 1e3;
    outcome.totalMs = outcome.frontendMs;
    if (!frontEnds[index]) {
      outcome.error = llvm::StringRef(source.diagnosticText).trim().str();
    } else {
      tile::KernelOp kernel =
          *frontEnds[index]->getOps<tile::KernelOp>().begin();
      outcome.contract = buildLaunchContract(kernel);
      outcome.reduced = usesReducedPrecision(kernel);
      outcome.pruned = pruneReason(outcome.contract, options.problem.dims);
    }
    // Nothing more to compile: the variant is ready to check.
    outcome.stage = 2;
    compiledQueue.push_back(outcome);
  }
}

void Search::startCompilePool() {
  CompilePool::Config config;
  config.sourceFile = options.sourceFile;
  config.source = options.source;
  config.kernel = kernelName;
  config.spanMapFile = options.spanMapFile;
  config.chip = chip;
  config.cacheDir = cacheRoot;
  config.useCubin = options.useCubin;
  config.dims = options.problem.dims;
  config.specializeDims = specializeDims;
  config.sharedLimitBytes =
      backend ? backend->sharedLimitBytes()
              : (findChip(chip) ? findChip(chip)->sharedMemoryBytes
                                : 99 * 1024);
  config.jobs = report.jobs;
  pool = std::make_unique<CompilePool>(std::move(config), space);
  // Variants compiled before the last front end is done wait in the queue.
  size_t frontEndsDone = 0;
  while (frontEndsDone < space.size()) {
    std::optional<CompileOutcome> outcome = pool->next();
    if (!outcome)
      break;
    if (outcome->stage == 1) {
      outcomes[outcome->index] = *outcome;
      ++frontEndsDone;
    } else {
      compiledQueue.push_back(std::move(*outcome));
    }
  }
}

llvm::Error Search::chooseCheck() {
  bool anyReduced = llvm::any_of(outcomes, [](auto &o) { return o.reduced; });
  if (tolerance < 0)
    tolerance = anyReduced ? 1e-2 : 1e-5;
  checkMode = options.checkDimsOnly ? CheckMode::Interpreter : options.check;
  switch (checkMode) {
  case CheckMode::Reference: {
    auto [made, name] = chooseReference(options, kernelName);
    if (!made && !options.reference.empty())
      return fail("--reference: unknown reference '" + name + "' (known: " +
                  (options.references
                       ? llvm::join(options.references->names(), ", ")
                       : std::string("none")) +
                  ")");
    if (made) {
      reference = std::make_unique<RememberingReference>(std::move(made));
      report.checkedWith = "float64 reference '" + name + "'";
      break;
    }
    checkMode = CheckMode::Interpreter; // no reference for this kernel
    [[fallthrough]];
  }
  case CheckMode::Interpreter: {
    checkProblem = options.checkProblem;
    checkProblem.scalars = options.problem.scalars;
    checkProblem.integerScalars = options.problem.integerScalars;
    if (checkProblem.dims.empty())
      if (llvm::Error error = chooseSmallCheckDims())
        return error;
    // --print-check-dims asks for the dims alone.
    if (options.checkDimsOnly)
      break;
    std::string dimsText;
    for (auto &entry : checkProblem.dims)
      dimsText += (dimsText.empty() ? "" : " ") + entry.getKey().str() + "=" +
                  std::to_string(entry.getValue());
    report.checkedWith = "the interpreter on " + dimsText;
    break;
  }
  case CheckMode::Expected:
    checkProblem = options.checkProblem;
    checkProblem.scalars = options.problem.scalars;
    checkProblem.integerScalars = options.problem.integerScalars;
    expected = options.expected;
    // NaN matches only NaN and an infinity only itself (ErrorMeasure): a
    // reference with no finite element would pass any variant that copies
    // its non-finite values, and says nothing of the others. It is a
    // broken reference, not a check.
    for (auto &[name, tensor] : expected) {
      int64_t finite = 0, count = tensor.numElements();
      for (int64_t i = 0; i < count && !finite; ++i)
        finite += std::isfinite(tensor.get(i)) ? 1 : 0;
      if (count > 0 && !finite)
        return fail("--expect " + name +
                    ": no element of the expected output is finite (every "
                    "one is NaN or infinite); a check against it cannot "
                    "tell a right variant from a wrong one");
    }
    report.checkedWith = "expected outputs given";
    break;
  case CheckMode::None:
    report.checkedWith =
        "nothing (outputs only scanned for unwritten elements)";
    break;
  }
  return llvm::Error::success();
}

llvm::Error Search::chooseSmallCheckDims() {
  std::vector<std::vector<std::string>> tensors;
  llvm::StringMap<int64_t> multiples;
  for (const ParamSlot &slot : firstContract.params)
    if (slot.kind == ParamSlot::Kind::Tensor)
      tensors.push_back(slot.dims);
  for (const CompileOutcome &outcome : outcomes) {
    if (!outcome.error.empty() || !outcome.pruned.empty())
      continue;
    for (auto &[dim, multiple] : outcome.contract.aligned)
      multiples[dim] =
          std::lcm(std::max<int64_t>(1, multiples.lookup(dim)), multiple);
    for (const ParamSlot &slot : outcome.contract.params)
      for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
        if (extent >= 0)
          multiples[dim] = extent; // never halved
  }
  // The small problem keeps the powers of two the variants were
  // specialised for, so that their promises hold there too.
  for (const auto &entry : specializeDims) {
    int64_t power = specializationMultiple(entry.getValue());
    if (power > 1)
      multiples[entry.getKey()] = std::lcm(
          std::max<int64_t>(1, multiples.lookup(entry.getKey())), power);
  }
  checkProblem.dims = smallCheckDims(options.problem.dims, tensors, multiples);
  if (checkProblem.dims == options.problem.dims) {
    checkProblem.grid = options.problem.grid;
    checkProblem.grids = options.problem.grids;
  } else if (options.problem.grid || !options.problem.grids.empty()) {
    return fail("the interpreter checks on a smaller problem, whose grid "
                "is not known: give --check-dim and the check problem's "
                "grids (--grid-file), or a reference");
  }
  return llvm::Error::success();
}

Report Search::checkDimsReport() {
  report.checkDims = checkProblem.dims;
  report.wallSeconds = secondsSince(wallStart);
  return takeReport();
}

llvm::Error Search::prepareCheck() {
  // The tensors are made for the default contract: every variant shares
  // the parameters.
  llvm::Expected<Instance> madeCheck =
      instantiate(firstContract, checkProblem, checkProblem.scalars, rng);
  if (!madeCheck)
    return madeCheck.takeError();
  checkInstance = std::move(*madeCheck);
  if (checkMode == CheckMode::Interpreter) {
    // Any variant means the same; the first that compiles runs.
    std::unique_ptr<Backend> interpreter = makeInterpreterBackend();
    std::optional<size_t> chosen;
    for (auto [index, outcome] : llvm::enumerate(outcomes))
      if (outcome.error.empty() && outcome.pruned.empty()) {
        chosen = index;
        break;
      }
    if (chosen) {
      mlir::OwningOpRef<mlir::ModuleOp> module =
          frontEnds[*chosen] ? mlir::OwningOpRef<mlir::ModuleOp>()
                             : source.import(kernelName, space[*chosen]);
      mlir::ModuleOp frontEnd =
          frontEnds[*chosen] ? *frontEnds[*chosen] : *module;
      llvm::Expected<std::unique_ptr<Loaded>> chosenLoaded =
          interpreter->load(outcomes[*chosen], space[*chosen], frontEnd);
      if (!chosenLoaded)
        return chosenLoaded.takeError();
      llvm::Expected<std::array<int64_t, 3>> grid =
          gridFor(outcomes[*chosen].contract, checkProblem, space[*chosen]);
      if (!grid)
        return grid.takeError();
      llvm::Expected<std::vector<HostTensor>> ran =
          interpreter->run(**chosenLoaded, *checkInstance, *grid);
      if (!ran)
        return fail("the interpreter, checking " +
                    variantText(space[*chosen]) + ": " +
                    llvm::toString(ran.takeError()));
      for (auto [index, slot] : llvm::enumerate(firstContract.params))
        if (slot.kind == ParamSlot::Kind::Tensor && slot.written)
          expected[slot.name] = (*ran)[index];
    }
  }
  for (auto [index, slot] : llvm::enumerate(firstContract.params))
    if (slot.kind == ParamSlot::Kind::Tensor)
      referenceProblem.tensors[slot.name] = &checkInstance->tensors[index];
  referenceProblem.scalars = checkInstance->scalars;
  if (reference)
    for (const std::string &needed : reference->tensorNames())
      if (!referenceProblem.tensors.count(needed))
        return fail("the reference needs a tensor named '" + needed + "'");
  return llvm::Error::success();
}

llvm::Error Search::prepareTiming() {
  // The check problem when they are the same.
  bool sameProblem = checkProblem.dims == options.problem.dims &&
                     options.problem.inputs.empty() &&
                     checkProblem.inputs.empty();
  Instance timedInstance;
  if (sameProblem) {
    timedInstance = *checkInstance;
  } else {
    llvm::Expected<Instance> made = instantiate(firstContract, options.problem,
                                                options.problem.scalars, rng);
    if (!made)
      return made.takeError();
    timedInstance = std::move(*made);
  }
  return backend->prepareTiming(timedInstance);
}

std::optional<CompileOutcome> Search::nextCompiled() {
  while (compiledQueue.empty()) {
    if (!pool)
      return std::nullopt;
    std::optional<CompileOutcome> outcome = pool->next();
    if (!outcome)
      return std::nullopt;
    if (outcome->stage != 1)
      compiledQueue.push_back(std::move(*outcome));
  }
  CompileOutcome outcome = std::move(compiledQueue.front());
  compiledQueue.pop_front();
  return outcome;
}

void Search::checkAndTimeEach() {
  progress->update(true);
  while (std::optional<CompileOutcome> outcome = nextCompiled()) {
    checkAndTime(*outcome);
    progress->update();
  }
  report.compileSeconds = secondsSince(compileStart);
  pool.reset();
}

void Search::recordCompile(const CompileOutcome &outcome) {
  VariantResult &result = report.results[outcome.index];
  result.cached = outcome.cached;
  result.frontendMs = outcome.frontendMs;
  result.passesMs = outcome.passesMs;
  result.llvmMs = outcome.llvmMs;
  result.ptxasMs = outcome.ptxasMs;
  result.compileMs = outcome.totalMs;
  result.sharedBytes = outcome.contract.sharedMemoryBytes;
  // The promises the variants were specialised with, as added (the
  // kernel's own promises are not repeated).
  for (const auto &promise : outcome.specialized)
    if (!llvm::is_contained(report.specialized, promise))
      report.specialized.push_back(promise);
  llvm::sort(report.specialized);
}

void Search::drop(size_t index, VariantResult::Status status,
                  const std::string &reason) {
  report.results[index].status = status;
  report.results[index].reason = reason;
  ++progress->compiled;
  ++progress->checked;
  ++progress->timed;
}

void Search::markFailed(VariantResult &result, VariantResult::Status status,
                        const std::string &reason) {
  result.status = status;
  result.reason = reason;
  ++progress->checked;
  ++progress->timed;
}

void Search::checkAndTime(const CompileOutcome &outcome) {
  size_t index = outcome.index;
  recordCompile(outcome);
  if (!outcome.error.empty())
    return drop(index, VariantResult::Status::CompileError, outcome.error);
  if (!outcome.pruned.empty())
    return drop(index, VariantResult::Status::Pruned, outcome.pruned);
  ++progress->compiled;
  if (!backend) {
    report.results[index].status = VariantResult::Status::Ok;
    ++progress->checked;
    ++progress->timed;
    return;
  }
  if (checkVariant(outcome))
    timeVariant(outcome);
}

bool Search::checkVariant(const CompileOutcome &outcome) {
  size_t index = outcome.index;
  VariantResult &result = report.results[index];
  llvm::Expected<std::unique_ptr<Loaded>> made =
      backend->load(outcome, space[index],
                    frontEnds[index] ? *frontEnds[index] : mlir::ModuleOp());
  if (!made) {
    markFailed(result, VariantResult::Status::Failed,
               llvm::toString(made.takeError()));
    return false;
  }
  loaded[index] = std::move(*made);
  if (std::optional<std::array<int, 2>> used =
          backend->resources(*loaded[index])) {
    result.registers = (*used)[0];
    result.spillBytes = (*used)[1];
  }
  llvm::Expected<std::array<int64_t, 3>> checkGrid =
      gridFor(outcome.contract, checkProblem, space[index]);
  if (!checkGrid) {
    markFailed(result, VariantResult::Status::Failed,
               llvm::toString(checkGrid.takeError()));
    return false;
  }
  llvm::Expected<std::vector<HostTensor>> ran =
      backend->run(*loaded[index], *checkInstance, *checkGrid);
  if (!ran) {
    markFailed(result, VariantResult::Status::Failed,
               llvm::toString(ran.takeError()));
    return false;
  }
  auto [worst, worstWhat] = worstError(outcome, *ran);
  result.maxRelErr = worst;
  ++progress->checked;
  if (worst <= tolerance)
    return true;
  result.status = VariantResult::Status::Wrong;
  result.reason =
      std::isinf(worst)
          ? "output '" + worstWhat +
                "' has unwritten elements, or a NaN or infinity where the "
                "reference has another value"
          : llvm::formatv("'{0}' max rel err {1:e2} > {2:e0}", worstWhat, worst,
                          tolerance)
                .str();
  ++progress->timed;
  return false;
}

std::pair<double, std::string>
Search::worstError(const CompileOutcome &outcome,
                   const std::vector<HostTensor> &ran) {
  double worst = 0;
  std::string worstWhat;
  for (auto [p, slot] : llvm::enumerate(outcome.contract.params)) {
    if (slot.kind != ParamSlot::Kind::Tensor || !slot.written)
      continue;
    const HostTensor &got = ran[p];
    double error = 0;
    if (reference) {
      auto outputs = reference->outputNames();
      if (!llvm::is_contained(outputs, slot.name))
        continue;
      reference::Comparison comparison =
          reference::compare(*reference, referenceProblem, slot.name, got,
                             /*fullCheckLimit=*/1 << 18, /*samples=*/4096,
                             options.seed + 1);
      error = comparison.maxRelativeError;
      if (comparison.unwritten)
        error = INFINITY;
    } else if (auto want = expected.find(slot.name); want != expected.end()) {
      error = maxRelativeError(got, want->second);
    } else {
      for (int64_t i = 0, n = got.numElements(); i < n; ++i)
        if (got.isPoisoned(i)) {
          error = INFINITY;
          break;
        }
    }
    if (error > worst || std::isnan(error) || worstWhat.empty()) {
      worst = std::isnan(error) ? INFINITY : error;
      worstWhat = slot.name;
    }
  }
  return {worst, worstWhat};
}

void Search::timeVariant(const CompileOutcome &outcome) {
  size_t index = outcome.index;
  VariantResult &result = report.results[index];
  llvm::Expected<std::array<int64_t, 3>> timeGrid =
      gridFor(outcome.contract, options.problem, space[index]);
  if (!timeGrid)
    return markFailed(result, VariantResult::Status::Failed,
                      llvm::toString(timeGrid.takeError()));
  llvm::Expected<std::vector<double>> samples =
      backend->time(*loaded[index], *timeGrid,
                    interpreted ? 0 : options.warmup,
                    interpreted ? std::min(options.repeat, 3u) : options.repeat,
                    options.flushL2);
  ++progress->timed;
  if (!samples) {
    result.status = VariantResult::Status::Failed;
    result.reason = llvm::toString(samples.takeError());
    return;
  }
  result.samplesMs = std::move(*samples);
  result.timeMs = median(result.samplesMs);
  result.status = VariantResult::Status::Ok;
  if (result.timeMs < bestMs) {
    bestMs = result.timeMs;
    progress->best =
        llvm::formatv("{0:f4} ms ({1})", bestMs, variantText(space[index]));
  }
}

void Search::refineFastest() {
  if (!backend || interpreted || options.refineTop <= 1)
    return;
  std::vector<size_t> passing;
  for (auto [index, result] : llvm::enumerate(report.results))
    if (result.status == VariantResult::Status::Ok)
      passing.push_back(index);
  llvm::sort(passing, [&](size_t a, size_t b) {
    return report.results[a].timeMs < report.results[b].timeMs;
  });
  passing.resize(std::min<size_t>(passing.size(), options.refineTop));
  if (passing.size() <= 1)
    return;
  constexpr unsigned kRounds = 5;
  unsigned perRound = std::max(1u, options.refineRepeat / kRounds);
  for (unsigned round = 0; round < kRounds; ++round)
    for (size_t index : passing) {
      VariantResult &result = report.results[index];
      llvm::Expected<std::array<int64_t, 3>> grid =
          gridFor(loaded[index]->contract, options.problem, result.variant);
      if (!grid) {
        llvm::consumeError(grid.takeError());
        continue;
      }
      llvm::Expected<std::vector<double>> samples = backend->time(
          *loaded[index], *grid, 1, perRound, options.flushL2);
      if (!samples) {
        llvm::consumeError(samples.takeError());
        continue;
      }
      result.samplesMs.insert(result.samplesMs.end(), samples->begin(),
                              samples->end());
    }
  for (size_t index : passing)
    report.results[index].timeMs = median(report.results[index].samplesMs);
}

void Search::chooseBest() {
  for (auto [index, result] : llvm::enumerate(report.results))
    if (result.status == VariantResult::Status::Ok && result.timeMs >= 0 &&
        (report.best < 0 || result.timeMs < report.results[report.best].timeMs))
      report.best = index;
  if (report.best >= 0 && backend)
    progress->best =
        llvm::formatv("{0:f4} ms ({1})", report.results[report.best].timeMs,
                      variantText(report.results[report.best].variant));
  progress->finish();
  report.wallSeconds = secondsSince(wallStart);
}

void Search::remember() {
  if (!backend || report.best < 0 || options.noStore || cacheRoot.empty())
    return;
  const VariantResult &best = report.results[report.best];
  llvm::json::Object variant;
  llvm::json::Array order;
  for (auto &[name, value] : best.variant) {
    variant[name] = value;
    order.push_back(name);
  }
  llvm::json::Object record{{"variant", std::move(variant)},
                            {"variant_order", std::move(order)},
                            {"time_ms", best.timeMs},
                            {"device", report.device},
                            {"tuned_at", report.date},
                            {"report", report.toJSON()}};
  if (llvm::Error error = tuningCache->store(tuningKey, std::move(record)))
    if (options.progress)
      *options.progress << "phobos-tune: note: the winner is not remembered: "
                        << llvm::toString(std::move(error)) << "\n";
}

} // namespace

llvm::Expected<Report> phobos::tune::tune(const Options &options) {
  auto wallStart = Clock::now();
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  Search search(options, registry, wallStart);
  if (llvm::Error error = search.readSource())
    return std::move(error);
  if (llvm::Error error = search.enumerateSpace())
    return std::move(error);
  if (llvm::Error error = search.readDefaultContract())
    return std::move(error);
  if (llvm::Error error = search.chooseBackend())
    return std::move(error);
  if (std::optional<Report> remembered = search.lookUpTuningCache())
    return std::move(*remembered);
  search.startReport();

  // Stage 1 for every variant, then the check problem (which the
  // variants' contracts shape), then the rest as the variants arrive.
  search.compileFrontEnds();
  if (search.runsVariants()) {
    if (llvm::Error error = search.chooseCheck())
      return std::move(error);
    if (options.checkDimsOnly)
      return search.checkDimsReport();
    if (llvm::Error error = search.prepareCheck())
      return std::move(error);
    if (llvm::Error error = search.prepareTiming())
      return std::move(error);
  }
  search.checkAndTimeEach();
  search.refineFastest();
  search.chooseBest();
  search.remember();
  return search.takeReport();
}
