//===- MLIRGen.h - From the Phobos AST to the phobos dialect ----*- C++ -*-===//
//
// Lowers a checked kernel (one variant) to a `phobos.kernel` op, with the
// source location of each construct on each op, and offers the front end's
// entry point: from a source buffer to a verified module.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_MLIRGEN_H
#define PHOBOS_FRONTEND_MLIRGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace phobos::frontend {

class Diagnostics;
class SpanMap;
struct CheckedKernel;

/// Adds the `phobos.kernel` of `kernel` to `module`. Sema has accepted the
/// kernel, so this cannot fail on user errors. With `markCluster`, a kernel
/// with @cluster carries the marks the cluster compiler's split reads (see
/// ImportOptions::markCluster).
void generateKernel(CheckedKernel &kernel, mlir::ModuleOp module,
                    Diagnostics &diags, bool markCluster = false);

/// What to import from a source file.
struct ImportOptions {
  /// Only the kernel of this name; empty for every kernel in the file.
  std::string kernelName;
  /// Values for @autotune names; a name no imported kernel declares is an
  /// error. Every other name takes the first value of its search space.
  llvm::StringMap<int64_t> variant;
  /// Import for the cluster compiler: in kernels with @cluster, mark each
  /// constant that spells an @cluster name (`phobos_cluster.dim`), each
  /// slice whose extent does (`phobos_cluster.extents`) and the kernel
  /// (`phobos_cluster.marked`), so that --phobos-cluster-split can read the
  /// body at the cluster level, where those names are super-tile sizes.
  bool markCluster = false;
  /// The span map of a program another front end wrote (the Python
  /// package): the module's locations become the places it gives
  /// (SpanMap::relocate), so that the GPU's line info and the run-time
  /// errors name the user's file and line. Diagnostics of the front end
  /// itself go through SpanMapDiagnosticHandler as before.
  const SpanMap *spanMap = nullptr;
};

/// Parses `text` (`NAME=V,NAME=V`) into `variant`. Returns an error message,
/// empty on success.
std::string parseVariantSpec(llvm::StringRef text,
                             llvm::StringMap<int64_t> &variant);

/// Parses, checks and lowers the main buffer of `sourceMgr`. Errors are
/// reported through `context`'s diagnostic engine with source locations;
/// returns null after any error.
mlir::OwningOpRef<mlir::ModuleOp> importPhobos(llvm::SourceMgr &sourceMgr,
                                               mlir::MLIRContext *context,
                                               const ImportOptions &options);

} // namespace phobos::frontend

#endif // PHOBOS_FRONTEND_MLIRGEN_H
