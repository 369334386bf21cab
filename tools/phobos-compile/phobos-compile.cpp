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
#include "Phobos/Driver/Session.h"
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

  if (!contractOnly && !isValidChip(chip)) {
    llvm::errs() << "phobos-compile: --chip: unsupported chip '" << chip
                 << "'; Phobos targets " << supportedChips() << "\n";
    return 2;
  }
  CompileOptions options;
  options.chip = contractOnly ? kContractOnlyChip.str() : chip.getValue();
  options.assemble = !noCubin && !contractOnly;
  options.cacheDir = useCache ? cacheRoot : "";
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
  BuildKey key;
  key.source =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer().str();
  std::optional<KernelCompiler> compiler;
  if (!contractOnly)
    compiler.emplace(&context, options.chip);
  int status = 0;
  for (const frontend::ImportOptions &job : jobs) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        frontend::importPhobos(sourceMgr, &context, job);
    if (!module)
      return 1;
    for (tile::KernelOp kernelOp : module->getOps<tile::KernelOp>()) {
      key.specialized = specializeAlignment(kernelOp, specializeDims);
      mlir::FailureOr<KernelBuild> build = getOrCompile(
          kernelOp, key, options, compiler ? &*compiler : nullptr);
      if (failed(build))
        return 1;
      for (const std::string &note : build->notes)
        llvm::errs() << "phobos-compile: note: " << note << "\n";
      if (!build->assemblyError.empty()) {
        llvm::errs() << "phobos-compile: " << build->kernel.contract.kernel
                     << ": " << build->assemblyError << "\n";
        status = 1;
      }
      if (!build->storeError.empty()) {
        llvm::errs() << "phobos-compile: " << build->storeError << "\n";
        return 1;
      }
      if (useCache) {
        llvm::outs() << build->cacheEntry << "\n";
        continue;
      }
      if (!writeOutputs(*build, resources))
        return 1;
    }
  }
  return status;
}
