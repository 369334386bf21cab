//===- Passes.td - Lowerings out of the phobos dialect -----*- tablegen -*-===//

#ifndef PHOBOS_CONVERSION_PASSES_TD
#define PHOBOS_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "lowers laid-out tile kernels to per-thread code in a gpu.module";
  let description = [{
    Turns each `phobos.kernel` whose tiles carry layouts into a `gpu.func`
    (kernel) in a `gpu.module @phobos_kernels`: every tile becomes the
    registers one thread holds of it, as its layout says; loads and stores
    become masked (and, where contiguous, vectorised) global accesses;
    shared-memory buffers, layout conversions, reductions and scans go
    through one dynamic shared-memory array; dots become FMA micro-tiles or
    `nvvm.mma.sync`. Scalars stay `arith`, control flow stays `scf` (with
    the tiles' registers carried), special registers and barriers are
    `nvvm`, memory is `llvm`.

    The kernel's parameters follow the launch ABI (Launcher.h): a tensor is
    a global pointer and one i32 per dynamic extent; a scalar is its value
    (bool as i8).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def CheckTargetDialects : Pass<"phobos-check-target-dialects", "::mlir::ModuleOp"> {
  let summary = "fails unless only the target dialects remain";
  let description = [{
    The last step of the pipeline: inside the `gpu.module`s only `llvm` and
    `nvvm` ops may remain (and the module's own terminator); anything else
    is a lowering gap, reported at the op's source location.
  }];
}

#endif // PHOBOS_CONVERSION_PASSES_TD
