//===- Compiler.cpp - From Phobos source to PTX and a contract ------------===//

#include "Phobos/Driver/Compiler.h"

#include "Phobos/Conversion/Passes.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Dialect/Tile/Transforms/KernelMarks.h"
#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Support/Experiments.h"
#include "Phobos/Target/PTXEmitter.h"
#include "Phobos/Target/PassPipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <numeric>

using namespace mlir;
using namespace phobos;

FailureOr<std::vector<CompiledKernel>>
phobos::compilePhobos(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                      const frontend::ImportOptions &options, StringRef chip) {
  if (!isValidChip(chip)) {
    emitError(UnknownLoc::get(context))
        << "--chip: unsupported chip '" << chip << "'; Phobos targets "
        << supportedChips();
    return failure();
  }
  OwningOpRef<ModuleOp> module =
      frontend::importPhobos(sourceMgr, context, options);
  if (!module)
    return failure();
  return compileModule(*module, chip);
}

KernelCompiler::KernelCompiler(MLIRContext *context, StringRef chip)
    : context(context), chip(chip.str()),
      pipeline(std::make_unique<PassManager>(context)),
      emitter(std::make_unique<PTXEmitter>(
          chip, getExperiments().leanAddresses.value_or(false),
          getExperiments().keepInvariants.value_or(false))) {
  PhobosToNVVMOptions pipelineOptions;
  pipelineOptions.chip = this->chip;
  buildPhobosToNVVMPipeline(*pipeline, pipelineOptions);
  pipeline->enableVerifier(getExperiments().verifyEach);
}

KernelCompiler::~KernelCompiler() = default;

static double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

FailureOr<CompiledKernel> KernelCompiler::compile(tile::KernelOp kernel,
                                                  CompileTimings *timings,
                                                  int64_t sharedLimitBytes,
                                                  SpillRelief relief,
                                                  bool lineInfo) {
  if (!isValidChip(chip))
    return kernel.emitError("unsupported chip '")
           << chip << "'; Phobos targets sm_80, sm_86, sm_87, sm_89, sm_90 and "
                      "sm_90a";
  CompiledKernel result;
  result.chip = chip;
  result.contract = buildLaunchContract(kernel, chip);
  result.loops =
      kernel->walk([](LoopLikeOpInterface) { return WalkResult::interrupt(); })
          .wasInterrupted();
  // One module per kernel, so that each gets its own PTX.
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> single = ModuleOp::create(kernel.getLoc());
  builder.setInsertionPointToStart(single->getBody());
  builder.clone(*kernel.getOperation());
  PassManager *passes = pipeline.get();
  SpillRelief lowering = relief.lowering();
  if (lowering.any()) {
    std::unique_ptr<PassManager> &relieved = reliefPipelines[lowering];
    if (!relieved) {
      relieved = std::make_unique<PassManager>(context);
      PhobosToNVVMOptions options;
      options.chip = chip;
      // Only what the relief changes is set: the rest keeps its default
      // (and its environment variable, for A/B measurements).
      if (relief.fmaKUnroll > 0)
        options.fmaKUnroll = relief.fmaKUnroll;
      if (relief.synchronousDots)
        options.synchronousDots = true;
      if (relief.asyncStaging)
        options.asyncStaging = true;
      if (relief.wgmmaFragmentSteps > 0)
        options.wgmmaFragmentSteps = relief.wgmmaFragmentSteps;
      buildPhobosToNVVMPipeline(*relieved, options);
      relieved->enableVerifier(getExperiments().verifyEach);
    }
    passes = relieved.get();
  }
  auto start = std::chrono::steady_clock::now();
  LogicalResult lowered = passes->run(*single);
  // Without the verifier between passes, once here: LLVM's translation
  // gets valid IR or the compile fails with the verifier's message.
  if (succeeded(lowered) && !getExperiments().verifyEach)
    lowered = verify(*single);
  if (timings)
    timings->passesMs = millisecondsSince(start);
  if (failed(lowered))
    return failure();
  // Kernels are not nested in kernels: their bodies (10^4 to 10^5 ops)
  // are skipped.
  single->walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
    if (!func)
      return WalkResult::advance();
    // The threads a launch starts: the pipeline may add a producer
    // warpgroup to the CTA the source lays its tiles out over.
    if (auto threads = func->getAttrOfType<DenseI32ArrayAttr>(
            NVVM::NVVMDialect::getMaxntidAttrName());
        threads && !threads.empty())
      result.contract.ctaThreads = threads[0];
    if (auto bytes = func->getAttrOfType<IntegerAttr>(
            tile::KernelOp::kSharedBytesAttrName))
      result.contract.sharedMemoryBytes = bytes.getInt();
    result.contract.persistent = func->hasAttr(phobos::kPersistentAttrName);
    if (auto steps = func->getAttrOfType<IntegerAttr>(kFmaKStepsAttrName))
      result.fmaKSteps = steps.getInt();
    result.dotsInFlight |= func->hasAttr(kDotsInFlightAttrName);
    result.registerStaging |= func->hasAttr(tile::kRegisterStagingAttrName);
    if (auto steps =
            func->getAttrOfType<IntegerAttr>(kWgmmaFragmentStepsAttrName))
      result.wgmmaFragmentSteps = steps.getInt();
    if (auto maps = func->getAttrOfType<ArrayAttr>(phobos::kTensorMapsAttrName))
      for (auto map : maps.getAsRange<DenseI64ArrayAttr>()) {
        ArrayRef<int64_t> fields = map.asArrayRef();
        TensorMapSlot slot;
        slot.param = result.contract.params[fields[0]].name;
        slot.boxRows = fields[1];
        slot.boxCols = fields[2];
        slot.swizzleBytes = fields[3];
        result.contract.tensorMaps.push_back(std::move(slot));
      }
    return WalkResult::skip();
  });
  if (sharedLimitBytes >= 0 &&
      result.contract.sharedMemoryBytes > sharedLimitBytes)
    return result;
  start = std::chrono::steady_clock::now();
  PTXEmitter *assembly = emitter.get();
  if (relief.leanAddresses || relief.keepInvariants) {
    std::unique_ptr<PTXEmitter> &made =
        reliefEmitters[relief.leanAddresses + 2 * relief.keepInvariants];
    if (!made)
      made = std::make_unique<PTXEmitter>(chip, relief.leanAddresses,
                                          relief.keepInvariants);
    assembly = made.get();
  }
  FailureOr<std::string> ptx = assembly->emit(*single, lineInfo);
  if (timings)
    timings->llvmMs = millisecondsSince(start);
  if (failed(ptx))
    return failure();
  result.ptx = std::move(*ptx);
  return result;
}

FailureOr<std::vector<CompiledKernel>>
phobos::compileModule(ModuleOp module, StringRef chip, SpillRelief relief) {
  if (!isValidChip(chip))
    return module.emitError("unsupported chip '")
           << chip << "'; Phobos targets " << supportedChips();
  KernelCompiler compiler(module.getContext(), chip);
  std::vector<CompiledKernel> compiled;
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
    FailureOr<CompiledKernel> result =
        compiler.compile(kernel, nullptr, -1, relief);
    if (failed(result))
      return failure();
    compiled.push_back(std::move(*result));
  }
  return compiled;
}

int64_t phobos::specializationMultiple(int64_t extent) {
  if (extent <= 0)
    return 1;
  return int64_t(1) << std::min<int64_t>(4, llvm::countr_zero(uint64_t(extent)));
}

std::vector<std::pair<std::string, int64_t>>
phobos::specializeAlignment(tile::KernelOp kernel,
                            const llvm::StringMap<int64_t> &dims) {
  // The named extents of the kernel's tensors that are bound at launch: an
  // axis static in this variant (a literal, or an @autotune name) has
  // nothing to specialise, and leaving it out keeps the promises (and the
  // cache key) what the Python package computes from the contract.
  llvm::StringSet<> named;
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    auto names =
        kernel.getArgAttrOfType<ArrayAttr>(i, tile::KernelOp::kDimsAttrName);
    if (!names)
      continue;
    auto shaped = dyn_cast<ShapedType>(kernel.getArgument(i).getType());
    for (auto [axis, name] : llvm::enumerate(names)) {
      auto text = dyn_cast<StringAttr>(name);
      if (!text || (shaped && shaped.hasRank() &&
                    axis < static_cast<size_t>(shaped.getRank()) &&
                    !shaped.isDynamicDim(axis)))
        continue;
      named.insert(text.getValue());
    }
  }
  llvm::StringMap<int64_t> promises;
  if (DictionaryAttr existing = kernel.getAlignedAttr())
    for (NamedAttribute promise : existing)
      if (auto multiple = dyn_cast<IntegerAttr>(promise.getValue()))
        promises[promise.getName()] = multiple.getInt();
  std::vector<std::pair<std::string, int64_t>> added;
  for (const auto &[name, value] : dims) {
    if (!named.contains(name) || value <= 0)
      continue;
    int64_t power = specializationMultiple(value);
    if (power < 2)
      continue;
    int64_t &promise = promises[name];
    int64_t merged = promise > 0 ? std::lcm(promise, power) : power;
    if (merged == promise)
      continue;
    promise = merged;
    added.emplace_back(name.str(), power);
  }
  if (added.empty())
    return added;
  llvm::sort(added);
  Builder b(kernel.getContext());
  SmallVector<NamedAttribute> entries;
  for (const auto &[name, multiple] : promises)
    entries.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(multiple)));
  kernel.setAlignedAttr(b.getDictionaryAttr(entries));
  return added;
}

std::optional<std::string> phobos::findPtxas() {
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

const std::vector<std::string> &phobos::getExtraPtxasOptions() {
  return getExperiments().ptxasOptions;
}

AssemblyReport phobos::parsePtxasReport(StringRef log) {
  AssemblyReport report;
  // "<n> <what>" somewhere in `line`, as an int; -1 when absent.
  auto number = [](StringRef line, StringRef what) {
    size_t at = line.find(what);
    if (at == StringRef::npos)
      return -1;
    StringRef before = line.take_front(at).rtrim();
    StringRef digits = before.drop_front(before.find_last_not_of("0123456789") + 1);
    int value = -1;
    if (digits.getAsInteger(10, value))
      return -1;
    return value;
  };
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    if (int used = number(line, " registers"); used >= 0 &&
                                                 line.contains("Used "))
      report.registers = used;
    if (int bytes = number(line, " bytes spill stores"); bytes >= 0)
      report.spillStoreBytes = bytes;
    if (int bytes = number(line, " bytes spill loads"); bytes >= 0)
      report.spillLoadBytes = bytes;
    if (int bytes = number(line, " bytes stack frame"); bytes >= 0)
      report.stackFrameBytes = bytes;
  }
  return report;
}

llvm::Expected<std::string> phobos::assembleCubin(StringRef ptxas, StringRef ptx,
                                                  StringRef chip,
                                                  AssemblyReport *report) {
  SmallString<128> input, output, log;
  int fd;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("phobos", "ptx", fd, input))
    return llvm::createStringError(error, "cannot create a temporary file");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("phobos", "cubin", output);
  llvm::sys::fs::createTemporaryFile("phobos", "log", log);
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, arch, "-o", output, input};
  for (const std::string &option : getExtraPtxasOptions())
    args.insert(args.begin() + 1, option);
  if (report)
    args.insert(args.begin() + 1, "-v");
  // The PTX's `.loc` lines as the cubin's line table (ptxHasLineInfo).
  if (cuda::ptxHasLineInfo(ptx))
    args.insert(args.begin() + 1, "-lineinfo");
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         /*SecondsToWait=*/120, 0, &message);
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(input);
    llvm::sys::fs::remove(output);
    llvm::sys::fs::remove(log);
  });
  if (status != 0) {
    std::string text;
    if (auto buffer = llvm::MemoryBuffer::getFile(log))
      text = (*buffer)->getBuffer().str();
    return llvm::createStringError("ptxas failed (%d): %s%s", status,
                                   message.c_str(), text.c_str());
  }
  auto cubin = llvm::MemoryBuffer::getFile(output, /*IsText=*/false);
  if (!cubin)
    return llvm::createStringError(cubin.getError(), "ptxas wrote no cubin");
  if (report)
    if (auto buffer = llvm::MemoryBuffer::getFile(log))
      *report = parsePtxasReport((*buffer)->getBuffer());
  return (*cubin)->getBuffer().str();
}

std::optional<std::string> phobos::requestOneCtaPerSM(StringRef ptx) {
  SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  std::string result;
  result.reserve(ptx.size() + 64);
  bool changed = false;
  // The directives of an entry sit between `.entry name(...)` and its `{`;
  // `threadsEnd` is where the line of .maxntid or .reqntid ends.
  bool inDirectives = false, requested = false;
  size_t threadsEnd = std::string::npos;
  auto endDirectives = [&] {
    if (!requested && threadsEnd != std::string::npos) {
      result.insert(threadsEnd, ".minnctapersm 1\n");
      changed = true;
    }
    inDirectives = false;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    StringRef line = lines[i];
    StringRef text = line.trim();
    if (text.contains(".entry ")) {
      inDirectives = true;
      requested = false;
      threadsEnd = std::string::npos;
    } else if (inDirectives) {
      if (text.starts_with(".maxnreg"))
        return std::nullopt;
      if (text.starts_with(".minnctapersm")) {
        requested = true;
        if (text != ".minnctapersm 1") {
          line = ".minnctapersm 1";
          changed = true;
        }
      } else if (text.starts_with("{")) {
        endDirectives();
      }
    }
    result += line;
    if (i + 1 < lines.size())
      result += '\n';
    if (inDirectives &&
        (text.starts_with(".maxntid") || text.starts_with(".reqntid")))
      threadsEnd = result.size();
  }
  if (inDirectives)
    endDirectives();
  if (!changed)
    return std::nullopt;
  return result;
}

SpillRelief phobos::availableReliefs(const CompiledKernel &kernel) {
  SpillRelief available;
  if (kernel.fmaKSteps > kSpillingFmaKUnroll && !getExperiments().fmaKUnroll)
    available.fmaKUnroll = kSpillingFmaKUnroll;
  available.synchronousDots = kernel.dotsInFlight && !getExperiments().syncDots;
  available.asyncStaging = kernel.registerStaging && !getExperiments().asyncStaging;
  available.leanAddresses =
      kernel.contract.sharedMemoryBytes > 0 && !getExperiments().leanAddresses;
  available.keepInvariants = kernel.loops && !getExperiments().keepInvariants;
  if (kernel.wgmmaFragmentSteps > kSpillingWgmmaFragmentSteps &&
      !getExperiments().wgmmaFragmentSteps)
    available.wgmmaFragmentSteps = kSpillingWgmmaFragmentSteps;
  return available;
}

SmallVector<SpillRelief, 11> SpillRecompile::reliefs() const {
  SmallVector<SpillRelief, 11> reliefs;
  if (!compile)
    return reliefs;
  SmallVector<SpillRelief, 2> ladder;
  SpillRelief relief;
  if (available.fmaKUnroll > 0) {
    relief.fmaKUnroll = available.fmaKUnroll;
    ladder.push_back(relief);
  }
  if (available.synchronousDots) {
    relief.synchronousDots = true;
    ladder.push_back(relief);
  }
  if (available.asyncStaging) {
    SpillRelief alone;
    alone.asyncStaging = true;
    reliefs.push_back(alone);
  }
  reliefs.append(ladder.begin(), ladder.end());
  if (available.asyncStaging)
    for (SpillRelief step : ladder) {
      step.asyncStaging = true;
      reliefs.push_back(step);
    }
  SpillRelief all = available;
  all.leanAddresses = false;
  all.keepInvariants = false;
  all.wgmmaFragmentSteps = 0;
  SpillRelief tight = all;
  tight.fmaKUnroll = kTightFmaKUnroll;
  if (all.fmaKUnroll > kTightFmaKUnroll)
    reliefs.push_back(tight);
  if (available.leanAddresses) {
    SpillRelief lean;
    lean.leanAddresses = true;
    reliefs.push_back(lean);
    if (all.any()) {
      all.leanAddresses = true;
      reliefs.push_back(all);
    }
    if (all.fmaKUnroll > kTightFmaKUnroll) {
      tight.leanAddresses = true;
      reliefs.push_back(tight);
    }
  }
  if (available.keepInvariants) {
    SpillRelief kept = all;
    kept.leanAddresses = available.leanAddresses;
    kept.keepInvariants = true;
    reliefs.push_back(kept);
    if (available.wgmmaFragmentSteps > 0) {
      kept.wgmmaFragmentSteps = available.wgmmaFragmentSteps;
      reliefs.push_back(kept);
    }
    // Kept invariants alone: with the others they can cost what they save
    // (the tf32 GEMM 64 x 256 x 64 for sm_80 spills 4 bytes with every
    // relief together and none with this one).
    SpillRelief keptAlone;
    keptAlone.keepInvariants = true;
    if (keptAlone < reliefs.back() || reliefs.back() < keptAlone)
      reliefs.push_back(keptAlone);
  }
  return reliefs;
}

/// The consumers' register request in a warp-specialised kernel's PTX.
static constexpr StringLiteral kConsumerSetmaxnreg =
    "setmaxnreg.inc.sync.aligned.u32";

std::optional<int> phobos::consumerRegisters(StringRef ptx) {
  size_t at = ptx.find(kConsumerSetmaxnreg);
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = ptx.substr(at + kConsumerSetmaxnreg.size()).split(';').first.trim();
  int registers;
  if (rest.getAsInteger(10, registers))
    return std::nullopt;
  return registers;
}

std::optional<std::string> phobos::withConsumerRegisters(StringRef ptx,
                                                         int registers) {
  if (registers < 24 || registers > 256 || registers % 8 != 0)
    return std::nullopt;
  std::string result;
  result.reserve(ptx.size());
  bool changed = false;
  while (true) {
    size_t at = ptx.find(kConsumerSetmaxnreg);
    if (at == StringRef::npos)
      break;
    size_t end = ptx.find(';', at);
    if (end == StringRef::npos)
      return std::nullopt;
    result += ptx.take_front(at);
    result += (llvm::Twine(kConsumerSetmaxnreg) + " \t" + llvm::Twine(registers)).str();
    ptx = ptx.drop_front(end);
    changed = true;
  }
  if (!changed)
    return std::nullopt;
  result += ptx;
  return result;
}

/// Where `ptx` is warp-specialised and spills, assembles it with 8, 16, ...
/// (kConsumerRegisterSteps counts) fewer consumer registers in turn; the
/// first that does not spill becomes `ptx`, `report` its report, and its
/// cubin is returned. None where every count spills (or none is tried).
static std::optional<std::string>
assembleWithFewerConsumerRegisters(std::string &ptx, Assembler assemble,
                                   AssemblyReport &report) {
  std::optional<int> current = consumerRegisters(ptx);
  if (!current)
    return std::nullopt;
  for (int step = 1; step <= kConsumerRegisterSteps; ++step) {
    std::optional<std::string> lowered =
        withConsumerRegisters(ptx, *current - 8 * step);
    if (!lowered)
      break;
    AssemblyReport tried;
    llvm::Expected<std::string> cubin = assemble(*lowered, &tried);
    if (!cubin) {
      llvm::consumeError(cubin.takeError());
      continue;
    }
    if (tried.spilledBytes() == 0) {
      ptx = std::move(*lowered);
      report = tried;
      return std::move(*cubin);
    }
  }
  return std::nullopt;
}

/// Assembles `ptx`, or where that spills and requestOneCtaPerSM changes it,
/// the PTX asking for one CTA per SM, whichever spills fewer bytes (`ptx`
/// becomes it). `first` (optional): the report of `ptx` assembled as it
/// is, when that is known already, with its cubin `firstCubin`.
static llvm::Expected<std::string>
assembleAtEitherOccupancy(std::string &ptx, Assembler assemble,
                          AssemblyReport &report,
                          std::optional<AssemblyReport> first = std::nullopt,
                          std::string firstCubin = {}) {
  llvm::Expected<std::string> cubin = std::move(firstCubin);
  if (!first) {
    first.emplace();
    cubin = assemble(ptx, &*first);
  }
  if (!cubin || first->spilledBytes() == 0) {
    report = *first;
    return cubin;
  }
  std::optional<std::string> relaxed = requestOneCtaPerSM(ptx);
  AssemblyReport second;
  llvm::Expected<std::string> retried =
      relaxed ? assemble(*relaxed, &second)
              : llvm::Expected<std::string>(std::string());
  if (!relaxed || !retried || second.spilledBytes() >= first->spilledBytes()) {
    if (!retried)
      llvm::consumeError(retried.takeError()); // the first cubin still runs
    report = *first;
    return cubin;
  }
  ptx = std::move(*relaxed);
  report = second;
  return retried;
}

/// ptxas refuses an instruction that needs more registers than the
/// occupancy the PTX asks for leaves (error C7602, "Insufficient
/// registers"): to the reliefs that is a kernel that spills, by more than
/// any real spill, so that another occupancy or relief is tried.
static constexpr int kRegisterShortageBytes = 1 << 24;

static bool isRegisterShortage(llvm::StringRef message) {
  return message.contains("Insufficient registers");
}

static llvm::Expected<std::string>
assembleRelieving(CompiledKernel &kernel, Assembler assemble,
                  AssemblyReport *report, SpillRecompile recompile);

llvm::Expected<std::string>
phobos::assembleAvoidingSpills(CompiledKernel &kernel, Assembler assemble,
                               AssemblyReport *report,
                               SpillRecompile recompile) {
  // The first register shortage's message, given back where every
  // assembly tried falls short.
  std::optional<std::string> shortage;
  auto tolerant = [&](llvm::StringRef ptx,
                      AssemblyReport *into) -> llvm::Expected<std::string> {
    llvm::Expected<std::string> cubin = assemble(ptx, into);
    if (cubin)
      return cubin;
    std::string message = llvm::toString(cubin.takeError());
    if (!isRegisterShortage(message))
      return llvm::createStringError(message);
    if (!shortage)
      shortage = message;
    if (into) {
      *into = AssemblyReport();
      into->spillStoreBytes = kRegisterShortageBytes;
    }
    return std::string();
  };
  AssemblyReport kept;
  llvm::Expected<std::string> cubin =
      assembleRelieving(kernel, tolerant, &kept, recompile);
  if (cubin && kept.spillStoreBytes >= kRegisterShortageBytes)
    return llvm::createStringError(*shortage);
  if (report)
    *report = kept;
  return cubin;
}

static llvm::Expected<std::string>
assembleRelieving(CompiledKernel &kernel, Assembler assemble,
                  AssemblyReport *report, SpillRecompile recompile) {
  AssemblyReport best;
  if (getExperiments().keepSpills) {
    llvm::Expected<std::string> cubin = assemble(kernel.ptx, &best);
    if (report)
      *report = best;
    return cubin;
  }
  SmallVector<SpillRelief, 11> reliefs = recompile.reliefs();
  if (reliefs.empty()) {
    llvm::Expected<std::string> cubin =
        assembleAtEitherOccupancy(kernel.ptx, assemble, best);
    if (cubin && best.spilledBytes() > 0)
      if (std::optional<std::string> lowered =
              assembleWithFewerConsumerRegisters(kernel.ptx, assemble, best))
        cubin = std::move(*lowered);
    if (report)
      *report = best;
    return cubin;
  }
  // With a relieved kernel to try, it comes before the other occupancy: a
  // rolled one removed more spills and takes ptxas less time
  // (docs/benchmarks-log.md).
  llvm::Expected<std::string> cubin = assemble(kernel.ptx, &best);
  if (cubin && best.spilledBytes() > 0)
    if (std::optional<std::string> lowered =
            assembleWithFewerConsumerRegisters(kernel.ptx, assemble, best))
      cubin = std::move(*lowered);
  if (!cubin || best.spilledBytes() == 0) {
    if (report)
      *report = best;
    return cubin;
  }
  bool occupancyTried = false;
  for (const SpillRelief &relief : reliefs) {
    // The relieved kernel computes the same (threads, parameters); only
    // instruction order, registers and pipeline stages may differ.
    FailureOr<CompiledKernel> relieved = recompile.compile(relief);
    if (failed(relieved))
      continue; // the kernel in hand still runs
    AssemblyReport relievedReport;
    llvm::Expected<std::string> relievedCubin =
        assembleAtEitherOccupancy(relieved->ptx, assemble, relievedReport);
    if (!relievedCubin) {
      llvm::consumeError(relievedCubin.takeError());
      continue;
    }
    // A relief that keeps the dots in flight (asynchronous staging: a
    // remainder's V copied without registers) may fit at fewer consumer
    // registers where it spills at the first count.
    if (relievedReport.spilledBytes() > 0 && !relief.synchronousDots)
      if (std::optional<std::string> lowered =
              assembleWithFewerConsumerRegisters(relieved->ptx, assemble,
                                                 relievedReport))
        relievedCubin = std::move(*lowered);
    if (relievedReport.spilledBytes() == 0) {
      kernel = std::move(*relieved);
      if (report)
        *report = relievedReport;
      return relievedCubin;
    }
    if (!occupancyTried) {
      cubin = assembleAtEitherOccupancy(kernel.ptx, assemble, best, best,
                                        std::move(*cubin));
      occupancyTried = true;
      if (!cubin)
        return cubin;
    }
    if (relievedReport.spilledBytes() < best.spilledBytes()) {
      kernel = std::move(*relieved);
      best = relievedReport;
      cubin = std::move(relievedCubin);
    }
    if (best.spilledBytes() == 0)
      break; // the kernel as it was, at one CTA per SM
  }
  if (!occupancyTried)
    cubin = assembleAtEitherOccupancy(kernel.ptx, assemble, best, best,
                                      std::move(*cubin));
  if (report)
    *report = best;
  return cubin;
}

llvm::Expected<std::string>
phobos::assembleAvoidingSpills(StringRef ptxas, CompiledKernel &kernel,
                               AssemblyReport *report,
                               SpillRecompile recompile) {
  std::string chip = kernel.chip;
  return assembleAvoidingSpills(
      kernel,
      [&](StringRef text, AssemblyReport *into) {
        return assembleCubin(ptxas, text, chip, into);
      },
      report, recompile);
}
