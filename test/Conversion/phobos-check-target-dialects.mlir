// RUN: phobos-opt %s --phobos-check-target-dialects --split-input-file -verify-diagnostics | FileCheck %s

// The last step of the pipeline: inside gpu.modules only llvm and nvvm ops
// may remain; anything else is reported where it is.

// Only llvm and nvvm: the module passes unchanged.
// CHECK-LABEL: gpu.module @phobos_kernels
// CHECK: llvm.func @k
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: nvvm.barrier0
module attributes {gpu.container_module} {
  gpu.module @phobos_kernels {
    llvm.mlir.global external @phobos_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.func @k(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %i = llvm.sext %t : i32 to i64
      %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
      nvvm.barrier0
      llvm.store %t, %q : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// An arith op left behind is a lowering gap, reported at its location, as
// is each other one.
module attributes {gpu.container_module} {
  gpu.module @phobos_kernels {
    llvm.func @k(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
      %t = nvvm.read.ptx.sreg.tid.x : i32
      // expected-error @+1 {{'arith.addi' is left after lowering; only llvm and nvvm ops may reach PTX}}
      %u = arith.addi %t, %t : i32
      // expected-error @+1 {{'arith.index_cast' is left after lowering; only llvm and nvvm ops may reach PTX}}
      %i = arith.index_cast %u : i32 to index
      llvm.return
    }
  }
}

// -----

// Control flow that was not lowered, and a gpu.func that was not turned
// into an llvm.func, are gaps too.
module attributes {gpu.container_module} {
  gpu.module @phobos_kernels {
    // expected-error @+1 {{'gpu.func' is left after lowering; only llvm and nvvm ops may reach PTX}}
    gpu.func @k(%c: i1) kernel {
      // The implicit scf.yield has the scf.if's location.
      // expected-error @+2 {{'scf.if' is left after lowering; only llvm and nvvm ops may reach PTX}}
      // expected-error @+1 {{'scf.yield' is left after lowering; only llvm and nvvm ops may reach PTX}}
      scf.if %c {
      }
      // expected-error @+1 {{'gpu.return' is left after lowering; only llvm and nvvm ops may reach PTX}}
      gpu.return
    }
  }
}

// -----

// Ops outside the gpu.modules (the host side) are not its concern.
// CHECK-LABEL: func.func @host
// CHECK: arith.constant
func.func @host() -> i32 {
  %c = arith.constant 1 : i32
  return %c : i32
}
