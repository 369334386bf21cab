//===- PTXEmitter.h - LLVM's NVPTX back end, set up once ---------*- C++
//-*-===//
//
// Turns the gpu.module of a lowered kernel into PTX: translation to LLVM
// IR, LLVM's O1 pipeline, then NVPTX code generation. The target machine is
// made once per emitter, so a tuner that compiles many variants pays for it
// once per thread. No bitcode library is linked: the lowering never calls
// libdevice (and MLIR's NVVM target would link it whenever a CUDA toolkit
// is found, on every compile).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TARGET_PTXEMITTER_H
#define PHOBOS_TARGET_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace phobos {

/// Emits PTX for one chip. Not thread-safe: one per thread.
class PTXEmitter {
public:
  /// `chip` must be one isValidChip accepts. With `leanAddresses`, LLVM
  /// gets 32-bit shared-memory pointers (`nvptx-short-ptr`) and code
  /// generation leaves out loop strength reduction (`disable-lsr`): fewer
  /// registers for the shared addresses a kernel keeps live, and no
  /// induction variables added for them; a relief for kernels that spill,
  /// since some kernels that do not ran slower with it
  /// (docs/benchmarks-log.md).
  /// With `keepInvariants`, neither LLVM's IR pipeline nor its code
  /// generation hoists loop-invariant code (LICM, MachineLICM): each value
  /// hoisted out of a loop holds a register through it, which LLVM does
  /// not weigh; ptxas hoists what its register budget allows. Also a
  /// relief (the general tf32 GEMMs of K 64 tiles, docs/benchmarks-log.md).
  explicit PTXEmitter(llvm::StringRef chip, bool leanAddresses = false,
                      bool keepInvariants = false);
  ~PTXEmitter();

  /// The PTX of every gpu.module in `module` (lowered to llvm/nvvm), with
  /// the rewrites around ptxas bugs (PtxWorkarounds.h); with `lineInfo`,
  /// `.file`/`.loc` lines at the ops' source locations (docs/debugging.md).
  /// Errors are reported on the module; `module` changes only by the
  /// debug-info subprogram each function's location gets with `lineInfo`.
  mlir::FailureOr<std::string> emit(mlir::ModuleOp module,
                                    bool lineInfo = true);

private:
  std::string chip;
  bool leanAddresses;
  bool keepInvariants;
  std::unique_ptr<llvm::TargetMachine> machine;
};

} // namespace phobos

#endif // PHOBOS_TARGET_PTXEMITTER_H
