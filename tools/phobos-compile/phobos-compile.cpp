//===- phobos-compile.cpp - Phobos source to PTX and launch contracts -----===//
//
// phobos-compile FILE.ph [--kernel NAME] [--variant NAME=V,...]
//                [--all-variants] [--chip sm_90] -o DIR
//
// Writes, for each compiled kernel variant, DIR/<kernel>.<variant>.ptx, the
// .cubin when ptxas is found, and the launch contract as .json; with
// --cache, publishes them in the kernel cache instead and prints each
// entry's directory. --span-map reports diagnostics at the place a
// generated program was written (the Python package's kernels).
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
#include "Phobos/Driver/Compiler.h"
#include "Phobos/Target/Pipeline.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

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
static cl::opt<std::string> chip("chip", cl::desc("Target GPU"),
                                 cl::init("sm_90"), cl::cat(category));
static cl::opt<bool> noCubin("no-cubin",
                             cl::desc("Do not run ptxas even if it is found"),
                             cl::cat(category));
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

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Phobos compiler version " << compilerVersion() << "\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "phobos-compile: Phobos source to PTX\n");
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
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  // Errors point at the user's source; the IR of the failing op is noise.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!buffer) {
    llvm::errs() << "phobos-compile: cannot read '" << inputFile
                 << "': " << buffer.getError().message() << "\n";
    return 2;
  }
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::optional<frontend::SpanMap> spanMap;
  std::optional<frontend::SpanMapDiagnosticHandler> spanMapHandler;
  if (!spanMapFile.empty()) {
    llvm::Expected<frontend::SpanMap> map = frontend::SpanMap::readFile(spanMapFile);
    if (!map) {
      llvm::errs() << "phobos-compile: " << llvm::toString(map.takeError()) << "\n";
      return 2;
    }
    spanMap = std::move(*map);
    spanMapHandler.emplace(
        *spanMap,
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier().str(),
        sourceMgr, diagnostics, &context);
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
  // The variants to build: the one asked for, or (with --all-variants) the
  // whole space of each kernel.
  std::vector<frontend::ImportOptions> jobs;
  if (!allVariants && !lastVariant) {
    jobs.push_back(base);
  } else {
    frontend::Diagnostics diags(sourceMgr, &context, sourceMgr.getMainFileID());
    auto program = frontend::parseProgram(diags);
    if (!program)
      return 1;
    for (auto &kernel : program->kernels) {
      if (!kernelName.empty() && kernel->name != kernelName)
        continue;
      std::optional<frontend::KernelAttributes> attrs =
          frontend::readAttributes(*kernel, diags);
      if (!attrs)
        return 1;
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
        return 1;
      }
      for (const frontend::Variant &variant : variants) {
        frontend::ImportOptions job;
        job.kernelName = kernel->name;
        for (auto &[name, value] : variant)
          job.variant[name] = value;
        jobs.push_back(std::move(job));
      }
    }
  }

  std::optional<std::string> ptxas =
      noCubin || contractOnly ? std::nullopt : findPtxas();
  if (resources && (useCache || contractOnly || noCubin || !ptxas)) {
    llvm::errs() << "phobos-compile: --resources needs ptxas and -o DIR ("
                 << (!ptxas && !noCubin && !contractOnly
                         ? "no ptxas on PATH or in /usr/local/cuda/bin"
                         : "not with --cache, --contract-only or --no-cubin")
                 << ")\n";
    return 2;
  }
  int status = 0;
  if (useCache || contractOnly) {
    if (!contractOnly && !isValidChip(chip)) {
      llvm::errs() << "phobos-compile: --chip: unsupported chip '" << chip
                   << "'\n";
      return 2;
    }
    KernelCache cache(cacheRoot);
    llvm::StringRef source =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
    for (const frontend::ImportOptions &job : jobs) {
      mlir::OwningOpRef<mlir::ModuleOp> module =
          frontend::importPhobos(sourceMgr, &context, job);
      if (!module)
        return 1;
      for (tile::KernelOp kernelOp : module->getOps<tile::KernelOp>()) {
        std::vector<std::pair<std::string, int64_t>> specialized =
            specializeAlignment(kernelOp, specializeDims);
        CompiledKernel kernel;
        kernel.contract = buildLaunchContract(kernelOp);
        kernel.chip = contractOnly ? "contract" : chip.getValue();
        KernelCacheKey key;
        key.source = source.str();
        key.kernel = kernel.contract.kernel;
        key.variant = kernel.contract.variant;
        key.chip = kernel.chip;
        key.specialized = specialized;
        if (useCache) {
          std::string damage;
          if (std::optional<KernelCacheEntry> entry =
                  cache.lookup(key.digest(), &damage)) {
            llvm::outs() << entry->directory << "\n";
            continue;
          }
          if (!damage.empty())
            llvm::errs() << "phobos-compile: note: " << damage << "\n";
        }
        std::optional<std::string> cubin;
        if (!contractOnly) {
          // One kernel alone in a module, as compileModule makes it.
          mlir::OwningOpRef<mlir::ModuleOp> single =
              mlir::ModuleOp::create(kernelOp.getLoc());
          mlir::OpBuilder builder(&context);
          builder.setInsertionPointToStart(single->getBody());
          builder.clone(*kernelOp.getOperation());
          mlir::FailureOr<std::vector<CompiledKernel>> compiled =
              compileModule(*single, chip);
          if (failed(compiled))
            return 1;
          kernel = std::move(compiled->front());
          if (ptxas) {
            llvm::Expected<std::string> assembled = assembleAvoidingSpills(
                *ptxas, kernel, nullptr,
                SpillRecompile{
                    availableReliefs(kernel),
                    [&](SpillRelief relief) -> mlir::FailureOr<CompiledKernel> {
                      auto again = compileModule(*single, chip, relief);
                      if (failed(again))
                        return mlir::failure();
                      return std::move(again->front());
                    }});
            if (!assembled) {
              llvm::errs() << "phobos-compile: " << kernel.contract.kernel
                           << ": " << llvm::toString(assembled.takeError())
                           << "\n";
              status = 1;
            } else {
              cubin = std::move(*assembled);
            }
          }
        }
        if (useCache) {
          llvm::Expected<KernelCacheEntry> entry = cache.store(
              key, kernel.contract.toJSON(),
              contractOnly ? std::nullopt
                           : std::optional<llvm::StringRef>(kernel.ptx),
              cubin ? std::optional<llvm::StringRef>(*cubin) : std::nullopt);
          if (!entry) {
            llvm::errs() << "phobos-compile: " << llvm::toString(entry.takeError())
                         << "\n";
            return 1;
          }
          llvm::outs() << entry->directory << "\n";
          continue;
        }
        std::string stem = outputDir + "/" + kernel.contract.kernel + "." +
                           variantTag(kernel.contract);
        if (!writeContract(stem, kernel, llvm::json::Object{}))
          return 1;
        llvm::outs() << stem << ".json\n";
      }
    }
    return status;
  }
  for (const frontend::ImportOptions &job : jobs) {
    mlir::FailureOr<std::vector<CompiledKernel>> compiled = mlir::failure();
    if (specializeDims.empty()) {
      compiled = compilePhobos(sourceMgr, &context, job, chip);
    } else {
      mlir::OwningOpRef<mlir::ModuleOp> module =
          frontend::importPhobos(sourceMgr, &context, job);
      if (!module)
        return 1;
      for (tile::KernelOp kernelOp : module->getOps<tile::KernelOp>())
        (void)specializeAlignment(kernelOp, specializeDims);
      compiled = compileModule(*module, chip);
    }
    if (failed(compiled))
      return 1;
    for (CompiledKernel &kernel : *compiled) {
      std::string stem = outputDir + "/" + kernel.contract.kernel + "." +
                         variantTag(kernel.contract);
      llvm::json::Object files{
          {"ptx", stem.substr(outputDir.size() + 1) + ".ptx"}};
      AssemblyReport report;
      // Assembly may re-target the PTX's occupancy (assembleAvoidingSpills):
      // the .ptx written is the one the cubin comes from.
      std::optional<std::string> cubin;
      // A kernel that spills is compiled once more, lighter on registers
      // (SpillRelief): from the source again, as above.
      auto compileRelieved =
          [&](SpillRelief relief) -> mlir::FailureOr<CompiledKernel> {
        mlir::OwningOpRef<mlir::ModuleOp> module =
            frontend::importPhobos(sourceMgr, &context, job);
        if (!module)
          return mlir::failure();
        if (!specializeDims.empty())
          for (tile::KernelOp kernelOp : module->getOps<tile::KernelOp>())
            (void)specializeAlignment(kernelOp, specializeDims);
        mlir::FailureOr<std::vector<CompiledKernel>> again =
            compileModule(*module, chip, relief);
        if (failed(again))
          return mlir::failure();
        for (CompiledKernel &other : *again)
          if (other.contract.kernel == kernel.contract.kernel)
            return std::move(other);
        return mlir::failure();
      };
      if (ptxas) {
        llvm::Expected<std::string> assembled = assembleAvoidingSpills(
            *ptxas, kernel, resources ? &report : nullptr,
            SpillRecompile{availableReliefs(kernel), compileRelieved});
        if (assembled) {
          cubin = std::move(*assembled);
        } else {
          llvm::errs() << "phobos-compile: " << kernel.contract.kernel << ": "
                       << llvm::toString(assembled.takeError()) << "\n";
          status = 1;
        }
      }
      if (!writeFile(stem + ".ptx", kernel.ptx))
        return 1;
      if (cubin && writeFile(stem + ".cubin", *cubin))
        files["cubin"] = stem.substr(outputDir.size() + 1) + ".cubin";
      if (!writeContract(stem, kernel, std::move(files)))
        return 1;
      llvm::outs() << stem << ".{ptx" << (ptxas ? ",cubin" : "") << ",json}\n";
      if (resources)
        llvm::outs() << kernel.contract.kernel << " ["
                     << variantTag(kernel.contract) << "] " << chip << ": "
                     << report.registers << " registers, "
                     << report.spillStoreBytes << " bytes spill stores, "
                     << report.spillLoadBytes << " bytes spill loads, "
                     << report.stackFrameBytes << " bytes stack frame\n";
    }
  }
  return status;
}
