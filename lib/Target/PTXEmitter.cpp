//===- PTXEmitter.cpp - LLVM's NVPTX back end, set up once ----------------===//
//
// What MLIR's gpu-module-to-binary did for Phobos, minus what costs time and
// buys nothing here (measured on the sgemm example's variants, 2026-12-02):
// a target machine made per kernel, libdevice parsed and linked whenever a
// CUDA toolkit is found, and code generation at LLVM's "aggressive" level,
// whose NVPTX IR passes run GVN twice where the default level runs EarlyCSE
// (a third of the back end's time on the FMA GEMMs, with the same PTX).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Target/PTXEmitter.h"

#include "Phobos/Target/PtxWorkarounds.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;
using namespace phobos;

namespace {
constexpr const char *kTriple = "nvptx64-nvidia-cuda";
/// PTX 8.0 carries sm_90a's instructions; older chips accept it as well.
constexpr const char *kFeatures = "+ptx80";
/// LLVM IR optimisation level: O1, unless $PHOBOS_LLVM_OPT_LEVEL (0 to 3)
/// says otherwise, for A/B measurements (the compiler version then names
/// it). The kernels reach LLVM already tiled, unrolled and vectorised by
/// our own passes; O1 made no kernel of the GPU suite slower on the H200
/// and takes 30-45 % less LLVM time than O3 (docs/benchmarks.md,
/// seventeenth and eighteenth sessions).
unsigned getIROptLevel() {
  static const unsigned level = [] {
    const char *given = std::getenv("PHOBOS_LLVM_OPT_LEVEL");
    constexpr unsigned kDefault = 1;
    unsigned value = kDefault;
    if (given &&
        (llvm::StringRef(given).getAsInteger(10, value) || value > 3)) {
      llvm::errs() << "phobos: PHOBOS_LLVM_OPT_LEVEL: '" << given
                   << "' is not 0 to 3; using " << kDefault << "\n";
      value = kDefault;
    }
    return value;
  }();
  return level;
}

/// Whether shared-memory pointers are 32-bit (LLVM's `nvptx-short-ptr`):
/// yes, unless $PHOBOS_SHORT_SHARED_POINTERS is 0, for A/B measurements
/// (the compiler version then names it). Shared memory is at most 228 KiB,
/// so its addresses fit 32 bits, and a kernel that keeps many of them live
/// (a tile's rows copied by cp.async, swizzled fragment reads) needs half
/// the registers for them: the f32 attention of 128 rows and 128 key
/// columns spilled 32 bytes with 64-bit ones and none with 32-bit ones
/// (docs/benchmarks.md, twenty-first session).
bool useShortSharedPointers() {
  static const bool value = [] {
    const char *given = std::getenv("PHOBOS_SHORT_SHARED_POINTERS");
    if (!given || !*given)
      return true;
    llvm::StringRef text(given);
    if (text != "0" && text != "1")
      llvm::errs() << "phobos: PHOBOS_SHORT_SHARED_POINTERS: '" << given
                   << "' is not 0 or 1; using 1\n";
    return text != "0";
  }();
  return value;
}
/// Whether NVPTX code generation runs LLVM's loop strength reduction: no,
/// unless $PHOBOS_LLVM_LSR is 1, for A/B measurements (the compiler version
/// then names it). On our loops (cp.async copies and fragment reads with
/// 32-bit shared addresses) it spent up to 90 % of code generation
/// choosing induction variables, and the ones it added cost registers that
/// ptxas then spilled: f32 attention D 128 BR 128 BC 128 with 8-step FMA
/// loops spilled 76 bytes with it and 32 without (docs/benchmarks.md,
/// twenty-first session). ptxas strength-reduces addresses itself.
bool useLoopStrengthReduction() {
  static const bool value = [] {
    const char *given = std::getenv("PHOBOS_LLVM_LSR");
    if (!given || !*given)
      return false;
    llvm::StringRef text(given);
    if (text != "0" && text != "1")
      llvm::errs() << "phobos: PHOBOS_LLVM_LSR: '" << given
                   << "' is not 0 or 1; using 0\n";
    return text == "1";
  }();
  return value;
}
} // namespace

PTXEmitter::PTXEmitter(StringRef chip) : chip(chip.str()) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // The NVPTX target machine reads the pointer width of shared memory
    // from this option when it is made (its data layout says `p3:32:32`);
    // code generation reads the other when it builds its passes.
    auto &options = llvm::cl::getRegisteredOptions();
    if (auto found = options.find("nvptx-short-ptr"); found != options.end())
      found->second->addOccurrence(0, "nvptx-short-ptr",
                                   useShortSharedPointers() ? "true" : "false");
    if (auto found = options.find("disable-lsr"); found != options.end())
      found->second->addOccurrence(
          0, "disable-lsr", useLoopStrengthReduction() ? "false" : "true");
  });
  llvm::Triple triple(kTriple);
  std::string error;
  if (const llvm::Target *target =
          llvm::TargetRegistry::lookupTarget(triple, error))
    machine.reset(target->createTargetMachine(
        triple, this->chip, kFeatures, llvm::TargetOptions(), std::nullopt,
        std::nullopt, llvm::CodeGenOptLevel::Default));
}

PTXEmitter::~PTXEmitter() = default;

FailureOr<std::string> PTXEmitter::emit(ModuleOp module) {
  if (!machine)
    return module.emitError("LLVM's NVPTX back end is not available for '")
           << chip << "'";
  std::string ptx;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(gpuModule, context, gpuModule.getName());
    if (!llvmModule)
      return gpuModule.emitError("cannot translate the kernel to LLVM IR");
    llvmModule->setDataLayout(machine->createDataLayout());
    llvmModule->setTargetTriple(machine->getTargetTriple());
    auto optimize = makeOptimizingTransformer(getIROptLevel(), /*sizeLevel=*/0,
                                              machine.get());
    if (llvm::Error error = optimize(llvmModule.get())) {
      InFlightDiagnostic diagnostic = gpuModule.emitError("LLVM's optimiser: ");
      llvm::handleAllErrors(std::move(error),
                            [&](const llvm::ErrorInfoBase &info) {
                              diagnostic << info.message();
                            });
      return diagnostic;
    }
    std::string text;
    {
      llvm::raw_string_ostream stream(text);
      llvm::buffer_ostream buffered(stream);
      llvm::legacy::PassManager codegen;
      if (machine->addPassesToEmitFile(codegen, buffered, nullptr,
                                       llvm::CodeGenFileType::AssemblyFile))
        return gpuModule.emitError("NVPTX cannot emit assembly for '")
               << chip << "'";
      codegen.run(*llvmModule);
    }
    ptx += text;
  }
  if (ptx.empty())
    return module.emitError("the module holds no GPU kernel");
  return rewriteIntegerNegations(ptx);
}
