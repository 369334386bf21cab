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

    An FMA dot's reduction over its K slice is unrolled whole by default.
    With `fma-k-unroll=N` (N dividing K, below K) it becomes an `scf.for`
    of K / N steps whose body is N unrolled steps, marked
    `llvm.loop_annotation` "do not unroll" (PTX `.pragma "nounroll"`):
    fewer live operand registers and much less code for ptxas.

    A `swap_ab` wgmma dot (tf32 B from shared memory) loads its register
    fragments for every k-step of 8 before its first wgmma by default. With
    `wgmma-fragment-steps=N` (below the dot's k-steps) it issues them N
    k-steps at a time: the fragments of N steps, a fence, their wgmmas and
    a commit, and before the next N a `wgmma.wait_group 0`, so that only N
    steps' fragments are live (fewer registers; an A/B knob through
    the experiment `wgmma-fragment-steps`, not yet a retry of the drivers).

    An `atomic_add` is one relaxed addition per element a thread holds a
    canonical copy of. With `vector-atomics` (the pipeline sets it for
    sm_90 and later), a thread's f32 elements that are consecutive along
    the tensor's contiguous axis, inside and aligned (checked at run time,
    as for vector stores), are added by one `red.global.add.v2.f32` or
    `.v4.f32`.
  }];
  let options = [
    Option<"fmaKUnroll", "fma-k-unroll", "int64_t", /*default=*/"0",
           "Reduction steps per iteration of an FMA dot's K loop; 0 unrolls "
           "the whole K slice">,
    Option<"wgmmaFragmentSteps", "wgmma-fragment-steps", "int64_t",
           /*default=*/"0",
           "k-steps of a swap_ab wgmma dot issued per group, each loading "
           "its own register fragments; 0 issues them all in one group">,
    Option<"vectorAtomics", "vector-atomics", "bool", /*default=*/"false",
           "Adds a thread's consecutive f32 elements of an atomic_add with "
           "one red.global.add.v2/v4.f32 (sm_90 and later)">,
    Option<"orderEpilogues", "order-epilogues", "bool", /*default=*/"true",
           "Order an accumulator store's block store by store: each store "
           "preceded by the arithmetic, shuffles and read-only loads it "
           "needs (EpilogueOrder.h)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def ConvertGPUToNVVM : Pass<"phobos-convert-gpu-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "lowers per-thread gpu, arith, cf and nvvm code to llvm and nvvm in one conversion";
  let description = [{
    Runs on the `gpu.module` convert-tile-to-gpu makes, once `scf` is `cf`:
    `gpu.func` and `gpu.return` become an `llvm.func` kernel and its
    return (upstream's convert-gpu-to-nvvm patterns), `arith` and `cf`
    become `llvm`, and the `nvvm` ops with no LLVM intrinsic
    (`wgmma.mma_async`) become inline PTX. Upstream does this in four
    passes; here it is one dialect conversion without rollback, so the
    unrolled code (10^4 to 10^5 ops) is walked once and no change is
    logged for undoing, which is most of the conversions' time; the PTX is
    the same.

    A loop's `llvm.loop_annotation` (which scf-to-cf leaves on its back
    edge) becomes the branch's own `loop_annotation`, the one the LLVM IR
    translation reads: so a rolled loop's "do not unroll" reaches the PTX.

    ```mlir
    gpu.func @k(%n: i32) kernel { %c = arith.addi %n, %n : i32 ... gpu.return }
    // becomes
    llvm.func @k(%n: i32) attributes {nvvm.kernel} { %c = llvm.add %n, %n : i32 ... llvm.return }
    ```
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", "64",
           "Bits of an index in the lowered code">
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

def MarkTensorMapParams : Pass<"phobos-mark-tensor-map-params", "::mlir::ModuleOp"> {
  let summary = "passes a kernel's tensor maps by value, as CUDA does";
  let description = [{
    Runs on the `llvm.func` kernels of the `gpu.module`s, after
    phobos-convert-gpu-to-nvvm (whose gpu.func lowering keeps function
    attributes but not every argument attribute). The parameters `phobos.tensor_map_params` lists
    (convert-tile-to-gpu's tensor maps, generic pointers in the body)
    become `llvm.byval = !llvm.array<128 x i8>`, 64-byte aligned and
    `nvvm.grid_constant`: the `.param .align 64 .b8 [128]` a CUtensorMap is
    launched as, whose address the TMA copies take (`cvta.param`) without
    copying it to local memory.

    ```mlir
    llvm.func @k(%map: !llvm.ptr) attributes {nvvm.kernel, phobos.tensor_map_params = array<i32: 0>}
    // becomes
    llvm.func @k(%map: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {nvvm.kernel}
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
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
