//===- phobos-compile.cpp - Phobos source to PTX and launch contracts -----===//
//
// phobos-compile FILE.ph [--kernel NAME] [--variant NAME=V,...]
//                [--all-variants] [--chip sm_90] -o DIR
//
// Writes, for each compiled kernel variant, DIR/<kernel>.<variant>.ptx, the
// .cubin when ptxas is found, and the launch contract as .json.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Frontend/Diagnostics.h"
#include "Phobos/Frontend/Parser.h"
#include "Phobos/Frontend/Sema.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Target/Compiler.h"

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
                                      cl::value_desc("DIR"), cl::Required,
                                      cl::cat(category));
static cl::opt<std::string> kernelName("kernel",
                                       cl::desc("Compile only this kernel"),
                                       cl::value_desc("NAME"), cl::cat(category));
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

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "phobos-compile: Phobos source to PTX\n");
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
      std::vector<frontend::Variant> variants = frontend::enumerateVariants(*attrs);
      if (lastVariant)
        variants.erase(variants.begin(), variants.end() - 1);
      for (const frontend::Variant &variant : variants) {
        frontend::ImportOptions job;
        job.kernelName = kernel->name;
        for (auto &[name, value] : variant)
          job.variant[name] = value;
        jobs.push_back(std::move(job));
      }
    }
  }

  std::optional<std::string> ptxas = noCubin ? std::nullopt : findPtxas();
  int status = 0;
  for (const frontend::ImportOptions &job : jobs) {
    mlir::FailureOr<std::vector<CompiledKernel>> compiled =
        compilePhobos(sourceMgr, &context, job, chip);
    if (failed(compiled))
      return 1;
    for (CompiledKernel &kernel : *compiled) {
      std::string stem = outputDir + "/" + kernel.contract.kernel + "." +
                         variantTag(kernel.contract);
      llvm::json::Object files{{"ptx", stem.substr(outputDir.size() + 1) + ".ptx"}};
      if (!writeFile(stem + ".ptx", kernel.ptx))
        return 1;
      if (ptxas) {
        llvm::Expected<std::string> cubin = assembleCubin(*ptxas, kernel.ptx, chip);
        if (!cubin) {
          llvm::errs() << "phobos-compile: " << kernel.contract.kernel << ": "
                       << llvm::toString(cubin.takeError()) << "\n";
          status = 1;
        } else if (writeFile(stem + ".cubin", *cubin)) {
          files["cubin"] = stem.substr(outputDir.size() + 1) + ".cubin";
        }
      }
      llvm::json::Value contract = kernel.contract.toJSON();
      contract.getAsObject()->insert({"chip", kernel.chip});
      contract.getAsObject()->insert({"files", std::move(files)});
      std::string text;
      llvm::raw_string_ostream os(text);
      os << llvm::formatv("{0:2}", contract) << "\n";
      if (!writeFile(stem + ".json", text))
        return 1;
      llvm::outs() << stem << ".{ptx" << (ptxas ? ",cubin" : "") << ",json}\n";
    }
  }
  return status;
}
