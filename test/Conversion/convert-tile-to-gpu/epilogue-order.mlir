// RUN: phobos-opt %s --convert-tile-to-gpu --split-input-file | FileCheck %s
// RUN: phobos-opt %s --convert-tile-to-gpu='order-epilogues=false' --split-input-file | FileCheck %s --check-prefix=OFF

// An epilogue on an accumulator-layout tile, x = exp(A + bias) + R, whose
// tensors A, bias and R the kernel only reads: after the conversion the
// block goes store by store (EpilogueOrder.h). Each two-element store is
// preceded by the loads, exps and additions of its own elements, and the
// next stores' loads of R are issued before it; the exps of the next store
// come after it. Op by op (order-epilogues=false), all sixteen exps come
// before the first store.

#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// CHECK-LABEL: gpu.func @bias_exp_residual
// CHECK-COUNT-2: llvm.nvvm.ex2.approx.ftz.f32
// CHECK-NOT: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: llvm.load
// CHECK: llvm.nvvm.ex2.approx.ftz.f32
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: gpu.return
// OFF-LABEL: gpu.func @bias_exp_residual
// OFF-NOT: llvm.store
// OFF-COUNT-16: llvm.nvvm.ex2.approx.ftz.f32
// OFF-NOT: llvm.nvvm.ex2.approx.ftz.f32
// OFF: gpu.return
phobos.kernel @bias_exp_residual(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
    %bias: !phobos.tensor<?xf32> {phobos.dims = ["N"]},
    %R: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
    %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32, #mma>
  %b = phobos.load %bias[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<32xf32, #phobos.slice<dim = 0, parent = #mma>>
  %x = phobos.add %a, %b : !phobos.tile<16x32xf32, #mma>, !phobos.tile<32xf32, #phobos.slice<dim = 0, parent = #mma>>
  %e = phobos.exp %x : !phobos.tile<16x32xf32, #mma>
  %r = phobos.load %R[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32, #mma>
  %y = phobos.add %e, %r : !phobos.tile<16x32xf32, #mma>, !phobos.tile<16x32xf32, #mma>
  phobos.store %y, %C[%c0, %c0] : !phobos.tile<16x32xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A tensor the kernel also writes is not read-only: its loads (of another
// slice, so not an in-place update either) stay before every store.

#mma = #phobos.mma<warpsPerCTA = [1, 1]>

// CHECK-LABEL: gpu.func @written
// CHECK: llvm.store
// CHECK-NOT: llvm.load
// CHECK: gpu.return
phobos.kernel @written(%C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]})
    attributes {max_threads = 32 : i32, phobos.scratch_offset = 0 : i64, phobos.shared_bytes = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %x = phobos.load %C[%c16, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32, #mma>
  %e = phobos.exp %x : !phobos.tile<16x32xf32, #mma>
  phobos.store %e, %C[%c0, %c0] : !phobos.tile<16x32xf32, #mma>, !phobos.tensor<?x?xf32>
  phobos.return
}
