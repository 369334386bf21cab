//===- phobos-translate.cpp - Phobos's mlir-translate ---------------------===//
//
// Imports Phobos source into the phobos dialect (--import-phobos), with the
// variant and kernel chosen on the command line (and, with --cluster, the
// marks the cluster compiler reads).
//
//===----------------------------------------------------------------------===//

#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/Target/PassPipeline.h"

#include "mlir/Pass/PassManager.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

namespace {
llvm::cl::opt<std::string>
    variantOption("variant",
                  llvm::cl::desc("Bind @autotune names: NAME=V,NAME=V (the "
                                 "rest take their first value)"),
                  llvm::cl::value_desc("NAME=V,..."), llvm::cl::init(""));
llvm::cl::opt<std::string>
    kernelOption("kernel",
                 llvm::cl::desc("Import only the kernel of this name"),
                 llvm::cl::value_desc("NAME"), llvm::cl::init(""));

llvm::cl::opt<bool> clusterOption(
    "cluster",
    llvm::cl::desc("Import for the cluster compiler: mark where @cluster "
                   "kernels use their @cluster names (the input of "
                   "--phobos-cluster-split)"),
    llvm::cl::init(false));

llvm::cl::opt<std::string> chipOption("chip",
                                      llvm::cl::desc("--phobos-to-ptx: the GPU"),
                                      llvm::cl::init("sm_90"));

/// --phobos-to-ptx: runs the GPU pipeline on a module of phobos kernels (if
/// it has not run yet) and prints the PTX.
void registerPhobosToPTX() {
  mlir::TranslateFromMLIRRegistration registration(
      "phobos-to-ptx", "Compile phobos kernels to PTX",
      [](mlir::Operation *op, llvm::raw_ostream &os) -> mlir::LogicalResult {
        auto module = llvm::dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        if (!module.getOps<phobos::tile::KernelOp>().empty()) {
          mlir::PassManager pm(module.getContext());
          phobos::PhobosToNVVMOptions options;
          options.chip = chipOption;
          phobos::buildPhobosToNVVMPipeline(pm, options);
          if (mlir::failed(pm.run(module)))
            return mlir::failure();
        }
        mlir::FailureOr<std::string> ptx =
            phobos::serializeToPTX(module, chipOption);
        if (mlir::failed(ptx))
          return mlir::failure();
        os << *ptx;
        return mlir::success();
      },
      [](mlir::DialectRegistry &registry) {
        phobos::registerAllDialects(registry);
      });
}

void registerImportPhobos() {
  mlir::TranslateToMLIRRegistration registration(
      "import-phobos", "Import Phobos source (.ph) into the phobos dialect",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         mlir::MLIRContext *context) -> mlir::OwningOpRef<mlir::Operation *> {
        phobos::frontend::ImportOptions options;
        options.kernelName = kernelOption;
        options.markCluster = clusterOption;
        std::string problem =
            phobos::frontend::parseVariantSpec(variantOption, options.variant);
        if (!problem.empty()) {
          mlir::emitError(mlir::UnknownLoc::get(context))
              << "--variant: " << problem;
          return nullptr;
        }
        return phobos::frontend::importPhobos(*sourceMgr, context, options);
      },
      [](mlir::DialectRegistry &registry) {
        phobos::registerAllDialects(registry);
      });
}
} // namespace

int main(int argc, char **argv) {
  registerImportPhobos();
  registerPhobosToPTX();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Phobos translation driver\n"));
}
