//===- phobos-opt.cpp - Phobos's mlir-opt ---------------------------------===//
//
// Runs the Phobos dialects and passes, and the upstream ones the pipeline
// uses, over MLIR files: the driver of the dialect and pass lit tests.
//
//===----------------------------------------------------------------------===//

#include "Phobos/InitAllDialects.h"
#include "Phobos/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  phobos::registerAllDialects(registry);
  phobos::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Phobos optimizer driver\n", registry));
}
