//===- PTXEmitter.cpp - LLVM's NVPTX back end, set up once ----------------===//
//
// What MLIR's gpu-module-to-binary did for Phobos, minus what costs time and
// buys nothing here (measured on the sgemm example's variants; figures in
// docs/benchmarks-log.md, "our own PTX emitter"): a target machine made per
// kernel, libdevice parsed and linked whenever a CUDA toolkit is found, and
// code generation at LLVM's "aggressive" level, whose NVPTX IR passes run GVN
// twice where the default level runs EarlyCSE (a large share of the back
// end's time on the FMA GEMMs, for the same PTX).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Target/PTXEmitter.h"

#include "Phobos/Target/PtxWorkarounds.h"
#include "Phobos/Support/Experiments.h"
#include "Phobos/Support/Files.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
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
/// PTX 8.1 carries sm_90a's instructions and the vector reductions to
/// global memory (`red.global.add.v4.f32`, AtomicToGPU.cpp); older chips
/// accept it as well (ptxas and drivers of CUDA 12.1 and later).
constexpr const char *kFeatures = "+ptx81";
/// LLVM IR optimisation level: O1, unless the experiment llvm-opt-level
/// says otherwise (the compiler version then names it). The kernels reach
/// LLVM already tiled, unrolled and vectorised by our own passes; O1 made no
/// kernel of the GPU suite slower and takes much less LLVM time than O3
/// (docs/benchmarks-log.md).
unsigned getIROptLevel() {
  return getExperiments().llvmOptLevel.value_or(1);
}

/// The debug-info file of a location's file name (absolute where it is a
/// file on disk: sourceFileForLineInfo).
LLVM::DIFileAttr fileAttr(MLIRContext *context, StringRef path) {
  std::string file = sourceFileForLineInfo(path);
  return LLVM::DIFileAttr::get(context, llvm::sys::path::filename(file),
                               llvm::sys::path::parent_path(file));
}

/// Gives every function of `gpuModule` a DISubprogram, so that the
/// translation to LLVM IR keeps the ops' FileLineColLocs (the user's lines:
/// the `.ph` file, or the Python file the span map gave) as debug
/// locations, and NVPTX writes `.file` and `.loc` for compute-sanitizer,
/// cuda-gdb and Nsight Compute's source view.
///
/// The compile unit's kind is DebugDirectivesOnly, not LineTablesOnly: with
/// LineTablesOnly NVPTX marks the module `.target sm_90a, debug` and writes
/// DWARF sections, and ptxas then compiles it as with -G (the saxpy example:
/// 24 registers became 35, and other SASS); DebugDirectivesOnly writes only
/// the directives, and ptxas's SASS is byte-identical to the code
/// without them in 24 of 28 example variants and differs in a few
/// instructions' registers and order in the other 4, with the same
/// registers and spills (docs/debugging.md). (MLIR's ensure-debug-info-scope-on-llvm-func does the same
/// with a file name as the location spells it, so a tool given a relative
/// path wrote a relative `.file`, and it walks the bodies' 10^4 to 10^5 ops
/// to find the functions; MLIR takes a DILocation's file from its
/// function's subprogram, so the subprogram's file is what counts.)
void attachLineInfo(gpu::GPUModuleOp gpuModule) {
  MLIRContext *context = gpuModule.getContext();
  LLVM::DICompileUnitAttr unit;
  for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
    if (func.isExternal() ||
        func.getLoc()->findInstanceOf<FusedLocWith<LLVM::DISubprogramAttr>>())
      continue;
    auto place = func.getLoc()->findInstanceOf<FileLineColLoc>();
    if (!place)
      continue;
    LLVM::DIFileAttr file = fileAttr(context, place.getFilename());
    if (!unit)
      unit = LLVM::DICompileUnitAttr::get(
          DistinctAttr::create(UnitAttr::get(context)), llvm::dwarf::DW_LANG_C,
          file, StringAttr::get(context, "Phobos"), /*isOptimized=*/true,
          LLVM::DIEmissionKind::DebugDirectivesOnly);
    auto type = LLVM::DISubroutineTypeAttr::get(context, {});
    auto subprogram = LLVM::DISubprogramAttr::get(
        context, DistinctAttr::create(UnitAttr::get(context)), unit, file,
        func.getNameAttr(), func.getNameAttr(), file, place.getLine(),
        place.getLine(),
        LLVM::DISubprogramFlags::Definition | LLVM::DISubprogramFlags::Optimized,
        type, /*retainedNodes=*/{}, /*annotations=*/{});
    func->setLoc(FusedLoc::get(context, {func.getLoc()}, subprogram));
  }
}

/// LLVM's options that give the lean addresses and keep invariants in
/// loops (PTXEmitter.h) are global; they are set and read under this
/// lock: the target machine reads `nvptx-short-ptr` when it is made, code
/// generation `disable-lsr` and `disable-machine-licm` when it builds its
/// passes.
std::mutex &optionsLock() {
  static std::mutex lock;
  return lock;
}

void setOption(llvm::StringRef name, bool value) {
  auto &options = llvm::cl::getRegisteredOptions();
  if (auto found = options.find(name); found != options.end())
    found->second->addOccurrence(0, name, value ? "true" : "false");
}
/// `pipeline` (a textual pass pipeline) without the passes named in
/// `names`, and without the loop pass managers that held nothing else.
std::string withoutPasses(llvm::StringRef pipeline,
                          llvm::ArrayRef<llvm::StringRef> names) {
  std::string text;
  for (size_t at = 0; at < pipeline.size();) {
    llvm::StringRef rest = pipeline.drop_front(at);
    bool startsName =
        at == 0 || llvm::StringRef(",(").contains(pipeline[at - 1]);
    auto isNamed = [&](llvm::StringRef n) {
      return rest.starts_with(n) &&
             (rest.size() == n.size() ||
              llvm::StringRef(",()<").contains(rest[n.size()]));
    };
    const llvm::StringRef *name =
        startsName ? llvm::find_if(names, isNamed) : names.end();
    if (name != names.end()) {
      size_t end = name->size();
      if (rest.size() > end && rest[end] == '<')
        end = std::min(rest.find('>'), rest.size() - 1) + 1;
      at += end;
      if (at < pipeline.size() && pipeline[at] == ',')
        ++at;
      else if (!text.empty() && text.back() == ',')
        text.pop_back();
      continue;
    }
    text += pipeline[at++];
  }
  // Loop pass managers left empty.
  for (llvm::StringRef empty : {"loop-mssa()", "loop()"}) {
    for (size_t found; (found = text.find(empty.str())) != std::string::npos;) {
      size_t begin = found, end = found + empty.size();
      if (end < text.size() && text[end] == ',')
        ++end;
      else if (begin > 0 && text[begin - 1] == ',')
        --begin;
      text.erase(begin, end - begin);
    }
  }
  return text;
}
} // namespace

/// LLVM's pipeline at `level` as makeOptimizingTransformer builds it (the
/// same tuning options), run on `module` without VectorCombine and, with
/// `keepInvariants`, without loop-invariant code motion.
///
/// VectorCombine turned the `<4 x float>` loads our lowering emits into
/// scalar loads, which code generation's load/store vectorizer then merged
/// back: without it, LLVM's stage takes less time on the sgemm variants
/// and their PTX is byte-identical (docs/benchmarks-log.md).
static llvm::Error optimize(llvm::Module &module, llvm::TargetMachine *machine,
                            unsigned level, bool keepInvariants) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::PassBuilder builder(machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::ModulePassManager standard =
      level == 0 ? builder.buildO0DefaultPipeline(levels[0])
                 : builder.buildPerModuleDefaultPipeline(levels[level]);
  std::string text;
  {
    llvm::raw_string_ostream stream(text);
    standard.printPipeline(stream, [&](llvm::StringRef className) {
      llvm::StringRef name = callbacks.getPassNameForClassName(className);
      return name.empty() ? className : name;
    });
  }
  llvm::SmallVector<llvm::StringRef, 2> dropped = {"vector-combine"};
  if (keepInvariants)
    dropped.push_back("licm");
  llvm::ModulePassManager passes;
  if (llvm::Error error =
          builder.parsePassPipeline(passes, withoutPasses(text, dropped)))
    return error;
  passes.run(module, modules);
  return llvm::Error::success();
}

PTXEmitter::PTXEmitter(StringRef chip, bool leanAddresses, bool keepInvariants)
    : chip(chip.str()), leanAddresses(leanAddresses),
      keepInvariants(keepInvariants) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  llvm::Triple triple(kTriple);
  std::string error;
  if (const llvm::Target *target =
          llvm::TargetRegistry::lookupTarget(triple, error)) {
    std::lock_guard<std::mutex> guard(optionsLock());
    // With it, the machine's data layout says `p3:32:32`.
    setOption("nvptx-short-ptr", leanAddresses);
    machine.reset(target->createTargetMachine(
        triple, this->chip, kFeatures, llvm::TargetOptions(), std::nullopt,
        std::nullopt, llvm::CodeGenOptLevel::Default));
  }
}

PTXEmitter::~PTXEmitter() = default;

FailureOr<std::string> PTXEmitter::emit(ModuleOp module, bool lineInfo) {
  if (!machine)
    return module.emitError("LLVM's NVPTX back end is not available for '")
           << chip << "'";
  std::string ptx;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    if (lineInfo)
      attachLineInfo(gpuModule);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(gpuModule, context, gpuModule.getName());
    if (!llvmModule)
      return gpuModule.emitError("cannot translate the kernel to LLVM IR");
    llvmModule->setDataLayout(machine->createDataLayout());
    llvmModule->setTargetTriple(machine->getTargetTriple());
    llvm::Error optimized =
        optimize(*llvmModule, machine.get(), getIROptLevel(), keepInvariants);
    if (llvm::Error error = std::move(optimized)) {
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
      bool unsupported;
      {
        std::lock_guard<std::mutex> guard(optionsLock());
        setOption("disable-lsr", leanAddresses);
        setOption("disable-machine-licm", keepInvariants);
        unsupported = machine->addPassesToEmitFile(
            codegen, buffered, nullptr, llvm::CodeGenFileType::AssemblyFile);
      }
      if (unsupported)
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
