//===- Session.cpp - The front door: source to kernels to launches --------===//

#include "Phobos/Driver/Session.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Frontend/Diagnostics.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Frontend/Parser.h"
#include "Phobos/Frontend/Sema.h"
#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Runtime/KernelCache.h"
#include "Phobos/Runtime/Launcher.h"
#include "Phobos/Runtime/TuningCache.h"
#include "Phobos/Support/Chips.h"
#include "Phobos/Support/Files.h"
#include "Phobos/Target/BuildLaunchContract.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <variant>

using namespace mlir;
using namespace phobos;

char SessionError::ID = 0;

std::error_code SessionError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

/// KernelCacheKey::places of `kernel`: a SHA-256 of the file (as the PTX
/// names it, sourceFileForLineInfo), line and column of each place in its
/// ops' locations.
static std::string placesDigest(tile::KernelOp kernel) {
  std::string text;
  llvm::DenseMap<StringAttr, unsigned> files;
  std::string fileNames;
  // Every place in each op's location, those in fused metadata too (the
  // kernel's @aligned promises: KernelOp::withAlignedPromiseLocs).
  kernel->walk([&](Operation *op) {
    Attribute(op->getLoc()).walk([&](FileLineColLoc place) {
      auto [entry, added] =
          files.try_emplace(place.getFilename(), files.size());
      if (added)
        fileNames += sourceFileForLineInfo(place.getFilename()) + "\n";
      text += std::to_string(entry->second) + ":" +
              std::to_string(place.getLine()) + ":" +
              std::to_string(place.getColumn()) + "\n";
    });
  });
  return llvm::toHex(llvm::SHA256::hash(
                         llvm::arrayRefFromStringRef(fileNames + "\n" + text)),
                     /*LowerCase=*/true);
}

FailureOr<KernelBuild> phobos::getOrCompile(tile::KernelOp kernel,
                                            const BuildKey &key,
                                            const CompileOptions &options,
                                            KernelCompiler *compiler) {
  bool contractOnly = options.chip == kContractOnlyChip;
  if (!contractOnly && !isValidChip(options.chip))
    return kernel.emitError("unsupported chip '")
           << options.chip << "'; Phobos targets " << supportedChips();
  KernelBuild build;
  build.kernel.contract = buildLaunchContract(kernel, options.chip);
  build.kernel.chip = options.chip;

  KernelCacheKey cacheKey;
  cacheKey.source = key.source;
  cacheKey.kernel = key.kernel.empty() ? build.kernel.contract.kernel : key.kernel;
  cacheKey.variant = build.kernel.contract.variant;
  cacheKey.chip = options.chip;
  cacheKey.specialized = key.specialized;
  bool cached = !options.cacheDir.empty() && !key.source.empty();
  if (cached) {
    cacheKey.places = placesDigest(kernel);
    cacheKey.lineInfo = contractOnly || options.lineInfo;
  }
  KernelCache cache(options.cacheDir);
  if (cached) {
    std::string damage;
    if (std::optional<KernelCacheEntry> entry =
            cache.lookup(cacheKey.digest(), &damage)) {
      llvm::Expected<LaunchContract> read =
          LaunchContract::fromJSON(entry->contract);
      bool cubinMissing = options.needCubin && !entry->cubin &&
                          (options.assembler || findPtxas());
      if (read && (contractOnly || entry->ptx) && !cubinMissing) {
        build.kernel.contract = std::move(*read);
        build.kernel.ptx = entry->ptx.value_or("");
        build.cubin = std::move(entry->cubin);
        build.cacheEntry = std::move(entry->directory);
        build.fromCache = true;
        return build;
      }
      if (!read)
        damage = "cache entry '" + entry->directory +
                 "' holds a contract this compiler cannot read (" +
                 llvm::toString(read.takeError()) + "); it is rebuilt";
    }
    if (!damage.empty())
      build.notes.push_back(std::move(damage));
  }

  if (!contractOnly) {
    std::unique_ptr<KernelCompiler> own;
    if (!compiler) {
      own = std::make_unique<KernelCompiler>(kernel.getContext(), options.chip);
      compiler = own.get();
    }
    FailureOr<CompiledKernel> compiled =
        compiler->compile(kernel, &build.timings, options.sharedLimitBytes, {},
                          options.lineInfo);
    if (failed(compiled))
      return failure();
    build.kernel = std::move(*compiled);
    if (options.sharedLimitBytes >= 0 &&
        build.kernel.contract.sharedMemoryBytes > options.sharedLimitBytes) {
      build.sharedMemoryExceeded = true;
      return build;
    }
    std::optional<std::string> ptxas;
    if (options.assemble && !options.assembler)
      ptxas = options.ptxas.empty() ? findPtxas()
                                    : std::optional<std::string>(options.ptxas);
    if (ptxas || (options.assemble && options.assembler)) {
      auto start = std::chrono::steady_clock::now();
      std::string chip = options.chip;
      // A kernel that spills is compiled again, lighter on registers
      // (SpillRelief), and the assembly that spills least is kept.
      llvm::Expected<std::string> assembled = assembleAvoidingSpills(
          build.kernel,
          [&](llvm::StringRef ptx, AssemblyReport *report) {
            return options.assembler ? options.assembler(ptx, report)
                                     : assembleCubin(*ptxas, ptx, chip, report);
          },
          &build.report,
          SpillRecompile{availableReliefs(build.kernel),
                         [&](SpillRelief relief) {
                           return compiler->compile(kernel, nullptr,
                                                    options.sharedLimitBytes,
                                                    relief, options.lineInfo);
                         }});
      build.assembleMs = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
      if (assembled)
        build.cubin = std::move(*assembled);
      else
        build.assemblyError = llvm::toString(assembled.takeError());
    }
  }

  if (cached) {
    llvm::Expected<KernelCacheEntry> entry = cache.store(
        cacheKey, build.kernel.contract.toJSON(),
        contractOnly ? std::nullopt
                     : std::optional<llvm::StringRef>(build.kernel.ptx),
        build.cubin ? std::optional<llvm::StringRef>(*build.cubin)
                    : std::nullopt);
    if (entry)
      build.cacheEntry = std::move(entry->directory);
    else
      build.storeError = llvm::toString(entry.takeError());
  }
  return build;
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

namespace {
/// A loaded program: its buffer and the handlers that print diagnostics
/// in it (at the span map's places, when it has one).
struct Program {
  llvm::SourceMgr sourceMgr;
  std::string text;
  std::string fileName;
  std::optional<frontend::SpanMap> spanMap;
  std::unique_ptr<SourceMgrDiagnosticHandler> printer;
  std::unique_ptr<frontend::SpanMapDiagnosticHandler> mapped;
  /// The first error's place (mapped), recorded by the handler registered
  /// last, which runs first and passes every diagnostic on.
  std::optional<ScopedDiagnosticHandler> firstError;
  std::string errorFile;
  unsigned errorLine = 0, errorColumn = 0;
  /// Imported variants, by kernel and variant.
  std::map<std::string, OwningOpRef<ModuleOp>> modules;
};
} // namespace

struct Session::Impl {
  Impl() : context(makeRegistry()) { context.printOpOnDiagnostic(false); }
  ~Impl() { program.reset(); }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  /// The diagnostics printed since the last call, as an error.
  llvm::Error takeError(llvm::StringRef fallback) {
    std::string message = std::move(diagnosticText);
    diagnosticText.clear();
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    if (message.empty())
      message = fallback.str();
    std::string file;
    unsigned line = 0, column = 0;
    if (program) {
      std::swap(file, program->errorFile);
      std::swap(line, program->errorLine);
      std::swap(column, program->errorColumn);
    }
    return llvm::make_error<SessionError>(std::move(message), std::move(file),
                                          line, column);
  }

  /// The loaded program parsed again, and the diagnostics that read it
  /// (attributes are read through them too).
  struct Parsed {
    std::unique_ptr<frontend::Diagnostics> diags;
    std::unique_ptr<frontend::ast::Program> program;
  };
  llvm::Expected<Parsed> parse() {
    if (!program)
      return llvm::make_error<SessionError>(
          "no program is loaded (load one first)");
    llvm::SourceMgr &sourceMgr = program->sourceMgr;
    Parsed parsed;
    parsed.diags = std::make_unique<frontend::Diagnostics>(
        sourceMgr, &context, sourceMgr.getMainFileID());
    parsed.program = frontend::parseProgram(*parsed.diags);
    if (!parsed.program || parsed.diags->hadError())
      return takeError("the program does not parse");
    return parsed;
  }

  llvm::Expected<tile::KernelOp>
  importVariant(llvm::StringRef kernel, const llvm::StringMap<int64_t> &variant) {
    if (!program)
      return llvm::make_error<SessionError>(
          "no program is loaded (load one first)");
    diagnosticText.clear();
    program->errorFile.clear();
    program->errorLine = program->errorColumn = 0;
    std::map<std::string, int64_t> sorted;
    for (const auto &entry : variant)
      sorted[entry.getKey().str()] = entry.getValue();
    std::string cacheName = kernel.str();
    for (auto &[name, value] : sorted)
      cacheName += ";" + name + "=" + std::to_string(value);
    OwningOpRef<ModuleOp> &module = program->modules[cacheName];
    if (!module) {
      frontend::ImportOptions options;
      options.kernelName = kernel.str();
      options.variant = variant;
      if (program->spanMap)
        options.spanMap = &*program->spanMap;
      module = frontend::importPhobos(program->sourceMgr, &context, options);
      if (!module) {
        program->modules.erase(cacheName);
        return takeError("the front end rejected the kernel");
      }
    }
    for (tile::KernelOp op : module->getOps<tile::KernelOp>())
      if (op.getName() == kernel)
        return op;
    return llvm::make_error<SessionError>("'" + program->fileName +
                                          "' has no kernel '" + kernel.str() +
                                          "'");
  }

  KernelCompiler &compilerFor(llvm::StringRef chip) {
    std::unique_ptr<KernelCompiler> &compiler = compilers[chip.str()];
    if (!compiler)
      compiler = std::make_unique<KernelCompiler>(&context, chip);
    return *compiler;
  }

  MLIRContext context;
  std::string diagnosticText;
  llvm::raw_string_ostream diagnosticStream{diagnosticText};
  std::unique_ptr<Program> program;
  std::map<std::string, std::unique_ptr<KernelCompiler>> compilers;
};

Session::Session() : impl(std::make_unique<Impl>()) {}
Session::~Session() = default;

llvm::Error Session::load(llvm::StringRef text, llvm::StringRef fileName,
                          llvm::StringRef spanMapJson) {
  impl->program.reset();
  impl->diagnosticText.clear();
  auto program = std::make_unique<Program>();
  program->text = text.str();
  program->fileName = fileName.str();
  if (!spanMapJson.empty()) {
    llvm::Expected<frontend::SpanMap> map = frontend::SpanMap::parse(spanMapJson);
    if (!map)
      return llvm::make_error<SessionError>("the span map: " +
                                            llvm::toString(map.takeError()));
    program->spanMap = std::move(*map);
  }
  program->sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(program->text, program->fileName),
      llvm::SMLoc());
  program->printer = std::make_unique<SourceMgrDiagnosticHandler>(
      program->sourceMgr, &impl->context, impl->diagnosticStream);
  if (program->spanMap)
    program->mapped = std::make_unique<frontend::SpanMapDiagnosticHandler>(
        *program->spanMap, program->fileName, program->sourceMgr,
        *program->printer, &impl->context);
  Program *raw = program.get();
  program->firstError.emplace(&impl->context, [raw](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error ||
        raw->errorLine != 0)
      return failure();
    Location loc = diagnostic.getLocation();
    if (raw->mapped) {
      bool changed = false;
      loc = raw->mapped->mapLocation(loc, changed);
    }
    if (auto place = loc->findInstanceOf<FileLineColLoc>()) {
      raw->errorFile = place.getFilename().str();
      raw->errorLine = place.getLine();
      raw->errorColumn = place.getColumn();
    }
    return failure(); // printed by the handlers registered before
  });
  impl->program = std::move(program);
  llvm::Expected<std::vector<std::string>> names = kernelNames();
  if (!names) {
    llvm::Error error = names.takeError();
    impl->program.reset();
    return error;
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<std::string>> Session::kernelNames() {
  llvm::Expected<Impl::Parsed> parsed = impl->parse();
  if (!parsed)
    return parsed.takeError();
  std::vector<std::string> names;
  for (const auto &kernel : parsed->program->kernels)
    names.push_back(kernel->name);
  return names;
}

llvm::Expected<std::vector<std::pair<std::string, std::vector<int64_t>>>>
Session::autotuneSpace(llvm::StringRef kernel) {
  llvm::Expected<Impl::Parsed> parsed = impl->parse();
  if (!parsed)
    return parsed.takeError();
  for (const auto &candidate : parsed->program->kernels) {
    if (candidate->name != kernel)
      continue;
    std::optional<frontend::KernelAttributes> attrs =
        frontend::readAttributes(*candidate, *parsed->diags);
    if (!attrs || parsed->diags->hadError())
      return impl->takeError("kernel '" + kernel.str() +
                             "' has malformed attributes");
    std::vector<std::pair<std::string, std::vector<int64_t>>> space;
    for (const frontend::SearchDim &dim : attrs->autotune)
      space.emplace_back(dim.name, dim.values);
    return space;
  }
  return llvm::make_error<SessionError>("no kernel '" + kernel.str() +
                                        "' in the program");
}

llvm::Expected<KernelBuild>
Session::getOrCompile(llvm::StringRef kernel,
                      const llvm::StringMap<int64_t> &variant,
                      const llvm::StringMap<int64_t> &specializeDims,
                      const CompileOptions &options) {
  llvm::Expected<tile::KernelOp> imported = impl->importVariant(kernel, variant);
  if (!imported)
    return imported.takeError();
  bool contractOnly = options.chip == kContractOnlyChip;
  if (!contractOnly && !isValidChip(options.chip))
    return llvm::make_error<SessionError>("unsupported chip '" + options.chip +
                                          "'; Phobos targets " +
                                          supportedChips().str());
  // Specialisation changes the kernel: a copy of its module.
  OwningOpRef<ModuleOp> copy;
  tile::KernelOp op = *imported;
  BuildKey key;
  key.source = impl->program->text;
  if (!specializeDims.empty()) {
    copy = cast<ModuleOp>(op->getParentOp()->clone());
    for (tile::KernelOp candidate : copy->getOps<tile::KernelOp>())
      if (candidate.getName() == kernel)
        op = candidate;
    key.specialized = specializeAlignment(op, specializeDims);
  }
  FailureOr<KernelBuild> build = phobos::getOrCompile(
      op, key, options,
      contractOnly ? nullptr : &impl->compilerFor(options.chip));
  if (failed(build))
    return impl->takeError("the GPU pipeline failed");
  build->diagnostics = std::move(impl->diagnosticText);
  impl->diagnosticText.clear();
  while (!build->diagnostics.empty() && build->diagnostics.back() == '\n')
    build->diagnostics.pop_back();
  return std::move(*build);
}

llvm::Expected<std::vector<std::pair<std::string, int64_t>>>
Session::tunedVariant(llvm::StringRef kernel, llvm::StringRef chip,
                      const llvm::StringMap<int64_t> &dims, bool general,
                      llvm::StringRef cacheDir) {
  if (!impl->program)
    return llvm::make_error<SessionError>("no program is loaded (load one first)");
  TuningKey key;
  key.source = impl->program->text;
  key.kernel = kernel.str();
  key.chip = chip.str();
  for (const auto &entry : dims)
    key.dims.emplace_back(entry.getKey().str(), entry.getValue());
  key.general = general;
  std::vector<std::pair<std::string, int64_t>> variant;
  if (std::optional<llvm::json::Object> record = TuningCache(cacheDir.str()).lookup(key))
    if (auto stored = TuningCache::variantOf(*record))
      variant = std::move(*stored);
  return variant;
}

llvm::Error Session::withProgram(
    llvm::function_ref<LogicalResult(llvm::SourceMgr &, MLIRContext *,
                                     const frontend::SpanMap *)>
        body) {
  Program *program = impl->program.get();
  if (!program)
    return llvm::make_error<SessionError>(
        "no program is loaded (load one first)");
  impl->diagnosticText.clear();
  program->errorFile.clear();
  program->errorLine = program->errorColumn = 0;
  if (failed(body(program->sourceMgr, &impl->context,
                  program->spanMap ? &*program->spanMap : nullptr)))
    return impl->takeError("the program was rejected");
  impl->diagnosticText.clear();
  return llvm::Error::success();
}

void phobos::reportRace(const LaunchContract &contract,
                        const interp::Race &race) {
  // A persistent kernel's tiles run in whichever CTAs the launcher starts:
  // the interpreter runs each tile as a CTA of its own, and names it so.
  auto cta = [&](const std::array<int64_t, 3> &id) {
    return std::string(contract.persistent ? "tile (" : "CTA (") +
           std::to_string(id[0]) + ", " + std::to_string(id[1]) + ", " +
           std::to_string(id[2]) + ")";
  };
  std::string element;
  for (int64_t index : race.element)
    element += (element.empty() ? "" : ", ") + std::to_string(index);
  const std::string &tensor = contract.params[race.param].name;
  mlir::InFlightDiagnostic diagnostic = mlir::emitError(race.second);
  diagnostic << "race on " << tensor << "[" << element << "]";
  if (race.count > 1)
    diagnostic << " (" << race.count
               << " such pairs of accesses between these two ops)";
  diagnostic << ": " << cta(race.secondCta) << " has a " << race.secondAccess
             << " here that nothing orders with " << cta(race.firstCta)
             << "'s " << race.firstAccess;
  diagnostic.attachNote(race.first)
      << cta(race.firstCta) << "'s " << race.firstAccess << " of " << tensor
      << "[" << element << "]";
  if (contract.persistent)
    diagnostic.attachNote(race.second)
        << "a @persistent kernel's tiles are walked by the CTAs the GPU "
           "holds at once, in an order nothing fixes: two tiles may run in "
           "different CTAs at the same time";
}

llvm::Error Session::interpret(llvm::StringRef kernel,
                               const llvm::StringMap<int64_t> &variant,
                               llvm::ArrayRef<interp::Argument> args,
                               const interp::Options &options) {
  llvm::Expected<tile::KernelOp> imported = impl->importVariant(kernel, variant);
  if (!imported)
    return imported.takeError();
  tile::KernelOp op = *imported;
  LaunchContract contract = buildLaunchContract(op);
  if (args.size() != contract.params.size())
    return llvm::make_error<SessionError>(
        "kernel '" + kernel.str() + "' takes " +
        std::to_string(contract.params.size()) + " arguments, got " +
        std::to_string(args.size()));
  for (auto [index, slot] : llvm::enumerate(contract.params)) {
    const auto *tensor = std::get_if<interp::TensorArg>(&args[index]);
    bool isTensor = slot.kind == ParamSlot::Kind::Tensor;
    if (isTensor != (tensor != nullptr))
      return llvm::make_error<SessionError>(
          "argument '" + slot.name + "': expected a " +
          (isTensor ? "tensor" : "scalar"));
    if (tensor && (tensor->elementType != slot.element ||
                   tensor->shape.size() != slot.dims.size()))
      return llvm::make_error<SessionError>(
          "argument '" + slot.name + "': expected a rank " +
          std::to_string(slot.dims.size()) + " tensor of " +
          name(slot.element).str());
  }
  interp::Options run = options;
  if (contract.persistent) {
    // Only the tile grid, as on the GPU: another would leave tiles unrun.
    LaunchContract::DimValues dims;
    for (auto [index, slot] : llvm::enumerate(contract.params))
      if (const auto *tensor = std::get_if<interp::TensorArg>(&args[index]))
        for (auto [dim, extent] : llvm::zip(slot.dims, tensor->shape))
          dims.try_emplace(dim, extent);
    if (llvm::Error error = checkPersistentGrid(contract, dims, run.grid))
      return llvm::make_error<SessionError>(llvm::toString(std::move(error)));
  }
  run.grid = interpreterGrid(op, run.grid);
  if (std::optional<interp::RunError> error = interp::runKernel(op, args, run)) {
    emitError(error->loc) << error->message;
    return impl->takeError(error->message);
  }
  if (run.races && !run.races->empty()) {
    for (const interp::Race &race : *run.races)
      reportRace(contract, race);
    std::string summary = "race check: " + std::to_string(run.races->size()) +
                          " unordered pair" +
                          (run.races->size() == 1 ? "" : "s") + " of accesses";
    emitError(op.getLoc()) << summary;
    return impl->takeError(summary);
  }
  return llvm::Error::success();
}
