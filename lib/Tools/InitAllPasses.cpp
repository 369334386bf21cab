//===- InitAllPasses.cpp - Passes the Phobos tools register ---------------===//

#include "Phobos/InitAllPasses.h"

#include "mlir/Transforms/Passes.h"

void phobos::registerAllPasses() {
  // Upstream clean-ups the pipeline and its tests use.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerLoopInvariantCodeMotionPass();
  mlir::registerSymbolDCEPass();
}
