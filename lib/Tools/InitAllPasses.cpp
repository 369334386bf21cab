//===- InitAllPasses.cpp - Passes the Phobos tools register ---------------===//

#include "Phobos/InitAllPasses.h"

#include "Phobos/Conversion/Passes.h"
#include "Phobos/Dialect/Cluster/Transforms/Passes.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"
#include "Phobos/Target/PassPipeline.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"

void phobos::registerAllPasses() {
  tile::registerPhobosTilePasses();
  cluster::registerPhobosClusterPasses();
  registerPhobosConversionPasses();
  registerPhobosToNVVMPipeline();

  // Upstream clean-ups the pipeline and its tests use.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerLoopInvariantCodeMotionPass();
  mlir::registerSymbolDCEPass();
  // Upstream lowerings: the pipeline uses scf-to-cf; the others, which
  // phobos-convert-gpu-to-nvvm does in one conversion, stay for comparison.
  mlir::registerSCFToControlFlowPass();
  mlir::registerConvertGpuOpsToNVVMOps();
  mlir::registerArithToLLVMConversionPass();
  mlir::registerConvertControlFlowToLLVMPass();
  mlir::registerReconcileUnrealizedCastsPass();
  mlir::registerGpuNVVMAttachTarget();
  mlir::registerGpuModuleToBinaryPass();
}
