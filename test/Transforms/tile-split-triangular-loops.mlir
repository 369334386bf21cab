// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-split-triangular-loops))' --split-input-file | FileCheck %s

// A loop whose mask compares a block of columns with a block of rows, one
// of them moving with the loop, runs as the iterations where the mask holds
// everywhere (the comparison a tile of true) and the ones that cross the
// diagonal (the comparison kept).

// Causal attention's forward: `k0 + arange(16) <= row + arange(32)` holds
// everywhere while k0 + 15 <= row, a prefix that ends at
// 0 + (floor((row - 15 - 0) / 16) + 1) * 16, clamped to [0, end].
// CHECK-LABEL: phobos.kernel @prefix
// CHECK: %[[END:.*]] = arith.minsi
// CHECK: %[[B:.*]] = arith.addi %{{.*}}, %c-15_i32 : i32
// CHECK: %[[Q:.*]] = arith.floordivsi %{{.*}}, %c16_i32 : i32
// CHECK: %[[N:.*]] = arith.addi %[[Q]], %c1_i32 : i32
// CHECK-NEXT: %[[L:.*]] = arith.muli %[[N]], %c16_i32 : i32
// CHECK-NEXT: %[[P:.*]] = arith.addi %c0_i32, %[[L]] : i32
// CHECK-NEXT: %[[MIN:.*]] = arith.minsi %[[END]], %[[P]] : i32
// CHECK-NEXT: %[[SPLIT:.*]] = arith.maxsi %c0_i32, %[[MIN]] : i32
// CHECK-NEXT: %[[WHOLE:.*]] = scf.for %{{.*}} = %c0_i32 to %[[SPLIT]] step %c16_i32
// CHECK-NOT: phobos.cmp
// CHECK: %[[ALL:.*]] = phobos.fill %{{.*}} : !phobos.tile<32x16xi1>
// CHECK: phobos.select %[[ALL]]
// CHECK: scf.for %{{.*}} = %[[SPLIT]] to %[[END]] step %c16_i32 iter_args(%{{.*}} = %[[WHOLE]])
// CHECK: phobos.cmp le
phobos.kernel @prefix(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %Y: !phobos.tensor<?xf32> {phobos.dims = ["M"]}) {
  %0 = phobos.block_id x
  %c32_i32 = arith.constant 32 : i32
  %1 = arith.muli %0, %c32_i32 : i32
  %2 = phobos.arange : !phobos.tile<32xi32>
  %3 = phobos.add %1, %2 : i32, !phobos.tile<32xi32>
  %4 = phobos.reshape %3 : !phobos.tile<32xi32> -> !phobos.tile<32x1xi32>
  %cst = arith.constant 0.000000e+00 : f32
  %5 = phobos.fill %cst : !phobos.tile<32x1xf32>
  %c0_i32 = arith.constant 0 : i32
  %6 = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %c32_i32_0 = arith.constant 32 : i32
  %7 = arith.addi %1, %c32_i32_0 : i32
  %8 = arith.minsi %6, %7 : i32
  %c16_i32 = arith.constant 16 : i32
  %9 = scf.for %arg0 = %c0_i32 to %8 step %c16_i32 iter_args(%arg1 = %5) -> (!phobos.tile<32x1xf32>)  : i32 {
    %11 = phobos.arange : !phobos.tile<16xi32>
    %12 = phobos.add %arg0, %11 : i32, !phobos.tile<16xi32>
    %13 = phobos.cmp le, %12, %4 : !phobos.tile<16xi32>, !phobos.tile<32x1xi32>
    %14 = phobos.load %X[%1, %arg0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %15 = phobos.select %13, %14, %cst_1 : !phobos.tile<32x16xi1>, !phobos.tile<32x16xf32>, f32
    %16 = phobos.reduce sum %15 along 1 : !phobos.tile<32x16xf32> -> !phobos.tile<32x1xf32>
    %17 = phobos.reshape %16 : !phobos.tile<32x1xf32> -> !phobos.tile<32x1xf32>
    %18 = phobos.add %arg1, %17 : !phobos.tile<32x1xf32>, !phobos.tile<32x1xf32>
    scf.yield %18 : !phobos.tile<32x1xf32>
  }
  %10 = phobos.reshape %9 : !phobos.tile<32x1xf32> -> !phobos.tile<32xf32>
  phobos.store %10, %Y[%1] : !phobos.tile<32xf32>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// A loop over blocks of rows for one block of columns (attention's dK/dV):
// `col + arange(16) <= r0 + arange(32)` holds everywhere from
// r0 >= col + 15, a suffix from start + ceil((col + 15 - start) / 32) * 32.
// The mask stays in the first loop; `and` keeps its other operand.
// CHECK-LABEL: phobos.kernel @suffix
// CHECK: %[[START:.*]] = arith.muli %{{.*}}, %c32_i32{{.*}} : i32
// CHECK: %[[M:.*]] = phobos.dim %{{.*}}[0]
// CHECK: arith.ceildivsi
// CHECK: %[[MIN:.*]] = arith.minsi %[[M]], %{{.*}} : i32
// CHECK-NEXT: %[[SPLIT:.*]] = arith.maxsi %[[START]], %[[MIN]] : i32
// CHECK-NEXT: %[[EDGE:.*]] = scf.for %{{.*}} = %[[START]] to %[[SPLIT]]
// CHECK: phobos.cmp le
// CHECK: scf.for %{{.*}} = %[[SPLIT]] to %[[M]] step %{{.*}} iter_args(%{{.*}} = %[[EDGE]])
// CHECK-NOT: phobos.cmp le
// CHECK: %[[ALL:.*]] = phobos.fill %{{.*}} : !phobos.tile<32x16xi1>
// CHECK: phobos.cmp lt
// CHECK: phobos.and %[[ALL]]
phobos.kernel @suffix(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %Y: !phobos.tensor<?xf32> {phobos.dims = ["N"]}) {
  %0 = phobos.block_id x
  %c16_i32 = arith.constant 16 : i32
  %1 = arith.muli %0, %c16_i32 : i32
  %2 = phobos.arange : !phobos.tile<16xi32>
  %3 = phobos.add %1, %2 : i32, !phobos.tile<16xi32>
  %cst = arith.constant 0.000000e+00 : f32
  %4 = phobos.fill %cst : !phobos.tile<1x16xf32>
  %c32_i32 = arith.constant 32 : i32
  %5 = arith.divsi %1, %c32_i32 : i32
  %c32_i32_0 = arith.constant 32 : i32
  %6 = arith.muli %5, %c32_i32_0 : i32
  %7 = phobos.dim %X[0] : !phobos.tensor<?x?xf32>
  %c32_i32_1 = arith.constant 32 : i32
  %8 = scf.for %arg0 = %6 to %7 step %c32_i32_1 iter_args(%arg1 = %4) -> (!phobos.tile<1x16xf32>)  : i32 {
    %10 = phobos.arange : !phobos.tile<32xi32>
    %11 = phobos.add %arg0, %10 : i32, !phobos.tile<32xi32>
    %12 = phobos.reshape %11 : !phobos.tile<32xi32> -> !phobos.tile<32x1xi32>
    %13 = phobos.cmp le, %3, %12 : !phobos.tile<16xi32>, !phobos.tile<32x1xi32>
    %14 = phobos.dim %X[0] : !phobos.tensor<?x?xf32>
    %15 = phobos.cmp lt, %12, %14 : !phobos.tile<32x1xi32>, i32
    %16 = phobos.and %13, %15 : !phobos.tile<32x16xi1>, !phobos.tile<32x1xi1>
    %17 = phobos.load %X[%arg0, %1] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %18 = phobos.select %16, %17, %cst_2 : !phobos.tile<32x16xi1>, !phobos.tile<32x16xf32>, f32
    %19 = phobos.reduce sum %18 along 0 : !phobos.tile<32x16xf32> -> !phobos.tile<1x16xf32>
    %20 = phobos.reshape %19 : !phobos.tile<1x16xf32> -> !phobos.tile<1x16xf32>
    %21 = phobos.add %arg1, %20 : !phobos.tile<1x16xf32>, !phobos.tile<1x16xf32>
    scf.yield %21 : !phobos.tile<1x16xf32>
  }
  %9 = phobos.reshape %8 : !phobos.tile<1x16xf32> -> !phobos.tile<16xf32>
  phobos.store %9, %Y[%1] : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// Both blocks move with the loop (a band): no iteration is whole, nothing
// is split.
// CHECK-LABEL: phobos.kernel @band
// CHECK-COUNT-1: scf.for
// CHECK-NOT: scf.for
phobos.kernel @band(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}, %Y: !phobos.tensor<?xf32> {phobos.dims = ["M"]}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = phobos.fill %cst : !phobos.tile<32x1xf32>
  %c0_i32 = arith.constant 0 : i32
  %1 = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %c16_i32 = arith.constant 16 : i32
  %2 = scf.for %arg0 = %c0_i32 to %1 step %c16_i32 iter_args(%arg1 = %0) -> (!phobos.tile<32x1xf32>)  : i32 {
    %4 = phobos.arange : !phobos.tile<16xi32>
    %5 = phobos.add %arg0, %4 : i32, !phobos.tile<16xi32>
    %6 = phobos.arange : !phobos.tile<32xi32>
    %7 = phobos.add %arg0, %6 : i32, !phobos.tile<32xi32>
    %8 = phobos.reshape %7 : !phobos.tile<32xi32> -> !phobos.tile<32x1xi32>
    %9 = phobos.cmp lt, %5, %8 : !phobos.tile<16xi32>, !phobos.tile<32x1xi32>
    %c0_i32_1 = arith.constant 0 : i32
    %10 = phobos.load %X[%c0_i32_1, %arg0] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %11 = phobos.select %9, %10, %cst_2 : !phobos.tile<32x16xi1>, !phobos.tile<32x16xf32>, f32
    %12 = phobos.reduce sum %11 along 1 : !phobos.tile<32x16xf32> -> !phobos.tile<32x1xf32>
    %13 = phobos.reshape %12 : !phobos.tile<32x1xf32> -> !phobos.tile<32x1xf32>
    %14 = phobos.add %arg1, %13 : !phobos.tile<32x1xf32>, !phobos.tile<32x1xf32>
    scf.yield %14 : !phobos.tile<32x1xf32>
  }
  %3 = phobos.reshape %2 : !phobos.tile<32x1xf32> -> !phobos.tile<32xf32>
  %c0_i32_0 = arith.constant 0 : i32
  phobos.store %3, %Y[%c0_i32_0] : !phobos.tile<32xf32>, !phobos.tensor<?xf32>
  phobos.return
}
