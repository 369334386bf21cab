//===- Pipeline.cpp - The tile-dialect-to-PTX pipeline --------------------===//

#include "Phobos/Target/Pipeline.h"

#include "Phobos/Conversion/Passes.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

bool phobos::isValidChip(StringRef chip) {
  // mma.sync m16n8k16 needs sm_80; PTX 8.0 stops at sm_90a.
  return llvm::is_contained({"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"},
                            chip);
}

void phobos::buildPhobosToNVVMPipeline(OpPassManager &pm,
                                       const PhobosToNVVMOptions &options) {
  // Tile level: clean up the source's tiles.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &kernel = pm.nest<tile::KernelOp>();
  kernel.addPass(tile::createTileHoistInvariants());
  kernel.addPass(tile::createTileDropMasks());
  kernel.addPass(tile::createTileSplitRaggedLoops());
  kernel.addPass(createCanonicalizerPass());
  kernel.addPass(createCSEPass());
  // Decide how tiles run: instructions, layouts, shared memory.
  kernel.addPass(tile::createTileSelectMma());
  kernel.addPass(tile::createTileAssignLayouts());
  kernel.addPass(tile::createTilePromoteShared());
  kernel.addPass(tile::createTilePipeline());
  kernel.addPass(tile::createTileAllocateShared());
  kernel.addPass(tile::createTileChooseOccupancy());
  kernel.addPass(tile::createTileInsertBarriers());
  // Per-thread code, then the upstream lowerings to llvm/nvvm.
  pm.addPass(createConvertTileToGPU());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &gpuModule = pm.nest<gpu::GPUModuleOp>();
  gpuModule.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  gpuModule.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  gpuModule.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCheckTargetDialects());
  (void)options;
}

void phobos::registerPhobosToNVVMPipeline() {
  PassPipelineRegistration<PhobosToNVVMOptions>(
      "phobos-to-nvvm",
      "Lower laid-out phobos kernels to a gpu.module of llvm/nvvm ops",
      buildPhobosToNVVMPipeline);
}

void phobos::registerPTXTranslationInterfaces(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void phobos::buildSerializeToPTXPipeline(OpPassManager &pm, StringRef chip) {
  GpuNVVMAttachTargetOptions target;
  target.chip = chip.str();
  // PTX 8.0 carries sm_90a's instructions; older chips accept it as well.
  target.features = "+ptx80";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

FailureOr<std::string> phobos::collectPTX(ModuleOp module) {
  std::string ptx;
  for (auto binaryOp : module.getOps<gpu::BinaryOp>())
    for (Attribute object : binaryOp.getObjects())
      ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  if (ptx.empty())
    return module.emitError("the module holds no GPU kernel");
  return ptx;
}

FailureOr<std::string> phobos::serializeToPTX(ModuleOp module,
                                              StringRef chip) {
  if (!isValidChip(chip))
    return module.emitError("unsupported chip '")
           << chip << "'; Phobos targets sm_80, sm_86, sm_87, sm_89, sm_90 and "
                      "sm_90a";
  PassManager pm(module.getContext());
  buildSerializeToPTXPipeline(pm, chip);
  if (failed(pm.run(module)))
    return failure();
  return collectPTX(module);
}
