//===- Compiler.h - From Phobos source to PTX and a contract ----*- C++ -*-===//
//
// What phobos-compile, phobos-run and the Python package call: import one
// variant of each selected kernel, derive its launch contract, run the GPU
// pipeline and serialise PTX; optionally assemble a cubin with ptxas.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DRIVER_COMPILER_H
#define PHOBOS_DRIVER_COMPILER_H

#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Target/LaunchContract.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace phobos {

struct CompiledKernel {
  LaunchContract contract;
  std::string chip;
  std::string ptx;
};

/// Compiles the kernels `options` selects from the main buffer of
/// `sourceMgr` for `chip`, one PTX module each. Errors (with source
/// locations) go to `context`'s diagnostic handler.
mlir::FailureOr<std::vector<CompiledKernel>>
compilePhobos(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
              const frontend::ImportOptions &options, llvm::StringRef chip);

/// Compiles every `phobos.kernel` of `module` (the front end's output, one
/// variant each; `module` is not changed).
mlir::FailureOr<std::vector<CompiledKernel>>
compileModule(mlir::ModuleOp module, llvm::StringRef chip);

/// The ptxas next to the CUDA toolkit (PATH, then /usr/local/cuda/bin).
std::optional<std::string> findPtxas();

/// Assembles `ptx` for `chip` with `ptxas`; the cubin bytes, or an error
/// holding ptxas's output.
llvm::Expected<std::string> assembleCubin(llvm::StringRef ptxas,
                                          llvm::StringRef ptx,
                                          llvm::StringRef chip);

} // namespace phobos

#endif // PHOBOS_DRIVER_COMPILER_H
