//===- embed-opt.cpp - An out-of-tree *-opt tool that embeds Phobos -------===//
//
// What a compiler built on MLIR 22 writes to carry the phobos dialect, its
// passes and --phobos-to-nvvm: two registration calls.
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
      mlir::MlirOptMain(argc, argv, "embedding Phobos\n", registry));
}
