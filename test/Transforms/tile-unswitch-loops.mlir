// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-unswitch-loops))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-unswitch-loops),canonicalize,cse,phobos.kernel(tile-split-ragged-loops),canonicalize,cse)' --split-input-file | FileCheck %s --check-prefix=FOLD
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-unswitch-loops{max-copies=1}))' --split-input-file | FileCheck %s --check-prefix=NONE

// A loop that tests a flag fixed before it runs as one copy per value of the
// flag. The bound computed from the flag before the loop (attention's
// `where(causal, tmin(N, row + BR), N)`) is computed again in each branch with
// the flag fixed.

// CHECK-LABEL: phobos.kernel @masked
// CHECK-SAME: %[[CAUSAL:[^:]*]]: i1)
// CHECK: %[[MIN:.*]] = arith.minsi
// CHECK: %[[N:.*]] = phobos.dim %{{.*}}[1]
// CHECK: %[[R:.*]] = scf.if %[[CAUSAL]] -> (!phobos.tile<16x1xf32>) {
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[END1:.*]] = arith.select %[[TRUE]], %[[MIN]], %[[N]] : i32
// CHECK-NEXT: %[[L1:.*]] = scf.for %{{.*}} = %{{.*}} to %[[END1]]
// CHECK: phobos.select %[[TRUE]], %{{.*}}, %{{.*}} : i1, !phobos.tile<16x32xi1>, !phobos.tile<32xi1>
// CHECK: scf.yield %[[L1]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT: %[[END2:.*]] = arith.select %[[FALSE]], %[[MIN]], %[[N]] : i32
// CHECK-NEXT: %[[L2:.*]] = scf.for %{{.*}} = %{{.*}} to %[[END2]]
// CHECK: phobos.select %[[FALSE]], %{{.*}}, %{{.*}} : i1, !phobos.tile<16x32xi1>, !phobos.tile<32xi1>
// CHECK: scf.yield %[[L2]]
// CHECK-NEXT: }
// CHECK-NEXT: phobos.reshape %[[R]]

// Folded, the causal copy keeps only `cols <= rows`; the other runs to N, and
// tile-split-ragged-loops gives it a mask-free main loop and a remainder.
// FOLD-LABEL: phobos.kernel @masked
// FOLD: scf.if %{{.*}} -> (!phobos.tile<16x1xf32>) {
// FOLD: scf.for
// FOLD: phobos.cmp le
// FOLD-NOT: phobos.cmp lt
// FOLD: } else {
// FOLD: scf.for
// FOLD-NOT: phobos.cmp
// FOLD-NOT: phobos.select
// FOLD: phobos.load %{{.*}} {in_bounds = array<i1: false, true>}
// FOLD: scf.yield
// FOLD: scf.for
// FOLD: phobos.cmp lt
// FOLD: phobos.select
// FOLD: } {phobos.ragged_remainder}

// NONE-LABEL: phobos.kernel @masked
// NONE-NOT: scf.if
phobos.kernel @masked(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %Y: !phobos.tensor<?xf32> {phobos.dims = ["M"]}, %causal: i1) {
  %0 = phobos.block_id x
  %c16_i32 = arith.constant 16 : i32
  %1 = arith.muli %0, %c16_i32 : i32
  %2 = phobos.arange : !phobos.tile<16xi32>
  %3 = phobos.add %1, %2 : i32, !phobos.tile<16xi32>
  %4 = phobos.reshape %3 : !phobos.tile<16xi32> -> !phobos.tile<16x1xi32>
  %cst = arith.constant 0.000000e+00 : f32
  %5 = phobos.fill %cst : !phobos.tile<16x1xf32>
  %6 = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %c16_i32_0 = arith.constant 16 : i32
  %7 = arith.addi %1, %c16_i32_0 : i32
  %8 = arith.minsi %6, %7 : i32
  %9 = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %10 = arith.select %causal, %8, %9 : i32
  %c0_i32 = arith.constant 0 : i32
  %c32_i32 = arith.constant 32 : i32
  %11 = scf.for %arg0 = %c0_i32 to %10 step %c32_i32 iter_args(%arg1 = %5) -> (!phobos.tile<16x1xf32>)  : i32 {
    %13 = phobos.arange : !phobos.tile<32xi32>
    %14 = phobos.add %arg0, %13 : i32, !phobos.tile<32xi32>
    %15 = phobos.cmp le, %14, %4 : !phobos.tile<32xi32>, !phobos.tile<16x1xi32>
    %16 = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
    %17 = phobos.cmp lt, %14, %16 : !phobos.tile<32xi32>, i32
    %18 = phobos.select %causal, %15, %17 : i1, !phobos.tile<16x32xi1>, !phobos.tile<32xi1>
    %19 = phobos.load %X[%1, %arg0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %20 = phobos.select %18, %19, %cst_1 : !phobos.tile<16x32xi1>, !phobos.tile<16x32xf32>, f32
    %21 = phobos.reduce sum %20 along 1 : !phobos.tile<16x32xf32> -> !phobos.tile<16x1xf32>
    %22 = phobos.reshape %21 : !phobos.tile<16x1xf32> -> !phobos.tile<16x1xf32>
    %23 = phobos.add %arg1, %22 : !phobos.tile<16x1xf32>, !phobos.tile<16x1xf32>
    scf.yield %23 : !phobos.tile<16x1xf32>
  }
  %12 = phobos.reshape %11 : !phobos.tile<16x1xf32> -> !phobos.tile<16xf32>
  phobos.store %12, %Y[%1] : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// Three flags: the outermost loop is unswitched on two of them (four copies,
// the default max-copies), and the third stays a run-time test in each copy.
// CHECK-LABEL: phobos.kernel @two
// CHECK-SAME: %[[A:[^:]*]]: i1, %[[B:[^:]*]]: i1, %[[C:[^:]*]]: i1)
// CHECK: scf.if %[[A]]
// CHECK: scf.if %[[B]]
// CHECK: scf.for
// CHECK: phobos.select %[[C]]
// CHECK: scf.for
// CHECK: phobos.select %[[C]]
// CHECK: scf.if %[[B]]
// CHECK: scf.for
// CHECK: phobos.select %[[C]]
// CHECK: scf.for
// CHECK: phobos.select %[[C]]
// CHECK-NOT: scf.for
// CHECK: phobos.return

// NONE-LABEL: phobos.kernel @two
// NONE-NOT: scf.if
phobos.kernel @two(%X: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %Y: !phobos.tensor<16xf32> {phobos.dims = ["16"]}, %a: i1, %b: i1, %c: i1) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = phobos.fill %cst : !phobos.tile<16xf32>
  %c0_i32 = arith.constant 0 : i32
  %1 = phobos.dim %X[0] : !phobos.tensor<?xf32>
  %c16_i32 = arith.constant 16 : i32
  %2 = scf.for %arg0 = %c0_i32 to %1 step %c16_i32 iter_args(%arg1 = %0) -> (!phobos.tile<16xf32>)  : i32 {
    %3 = phobos.load %X[%arg0] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %4 = phobos.select %a, %3, %cst_1 : i1, !phobos.tile<16xf32>, f32
    %5 = phobos.add %arg1, %4 : !phobos.tile<16xf32>, !phobos.tile<16xf32>
    %cst_2 = arith.constant 2.000000e+00 : f32
    %6 = phobos.mul %3, %cst_2 : !phobos.tile<16xf32>, f32
    %cst_3 = arith.constant 1.000000e+00 : f32
    %7 = phobos.select %b, %6, %cst_3 : i1, !phobos.tile<16xf32>, f32
    %8 = phobos.add %5, %7 : !phobos.tile<16xf32>, !phobos.tile<16xf32>
    %cst_4 = arith.constant 3.000000e+00 : f32
    %9 = phobos.select %c, %3, %cst_4 : i1, !phobos.tile<16xf32>, f32
    %10 = phobos.add %8, %9 : !phobos.tile<16xf32>, !phobos.tile<16xf32>
    scf.yield %10 : !phobos.tile<16xf32>
  }
  %c0_i32_0 = arith.constant 0 : i32
  phobos.store %2, %Y[%c0_i32_0] : !phobos.tile<16xf32>, !phobos.tensor<16xf32>
  phobos.return
}

// -----

// A flag computed in the loop (from the induction variable) changes between
// iterations: nothing to unswitch.
// CHECK-LABEL: phobos.kernel @inner
// CHECK-NOT: scf.if
// CHECK: phobos.return
phobos.kernel @inner(%X: !phobos.tensor<?xf32> {phobos.dims = ["N"]}, %Y: !phobos.tensor<16xf32> {phobos.dims = ["16"]}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = phobos.fill %cst : !phobos.tile<16xf32>
  %c0_i32 = arith.constant 0 : i32
  %1 = phobos.dim %X[0] : !phobos.tensor<?xf32>
  %c16_i32 = arith.constant 16 : i32
  %2 = scf.for %arg0 = %c0_i32 to %1 step %c16_i32 iter_args(%arg1 = %0) -> (!phobos.tile<16xf32>)  : i32 {
    %3 = phobos.load %X[%arg0] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
    %c32_i32 = arith.constant 32 : i32
    %4 = arith.remsi %arg0, %c32_i32 : i32
    %c16_i32_1 = arith.constant 16 : i32
    %5 = arith.cmpi eq, %4, %c16_i32_1 : i32
    %cst_2 = arith.constant 0.000000e+00 : f32
    %6 = phobos.select %5, %3, %cst_2 : i1, !phobos.tile<16xf32>, f32
    %7 = phobos.add %arg1, %6 : !phobos.tile<16xf32>, !phobos.tile<16xf32>
    scf.yield %7 : !phobos.tile<16xf32>
  }
  %c0_i32_0 = arith.constant 0 : i32
  phobos.store %2, %Y[%c0_i32_0] : !phobos.tile<16xf32>, !phobos.tensor<16xf32>
  phobos.return
}
