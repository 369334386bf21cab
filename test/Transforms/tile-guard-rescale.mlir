// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-guard-rescale))' --split-input-file | FileCheck %s

// An online softmax's rescale, corr = exp(m - tmax(m, x)), times the
// running accumulator in a loop: marked, whichever side the factor is on.
// CHECK-LABEL: phobos.kernel @online_softmax
// CHECK: scf.for
// CHECK: %[[MN:.*]] = phobos.max %{{.*}}, %{{.*}} : !phobos.tile<64x1xf32>
// CHECK: %[[D:.*]] = phobos.sub %{{.*}}, %[[MN]]
// CHECK: %[[C:.*]] = phobos.exp %[[D]]
// CHECK: phobos.mul %[[C]], %{{.*}} {phobos.skip_unit_factor} : !phobos.tile<64x1xf32>, !phobos.tile<64x32xf32>
// CHECK: phobos.mul %{{.*}}, %[[C]] {phobos.skip_unit_factor} : !phobos.tile<64x32xf32>, !phobos.tile<64x1xf32>
// The running sum's rescale is [R, 1] by [R, 1]: nothing to skip.
// CHECK: phobos.mul %[[C]], %{{.*}} : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
// CHECK-NOT: skip_unit_factor
// CHECK: scf.yield
phobos.kernel @online_softmax(%X: !phobos.tensor<?x?xf32>, %O: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %neg = arith.constant -1.0e30 : f32
  %zero = arith.constant 0.0 : f32
  %n = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %m0 = phobos.fill %neg : !phobos.tile<64x1xf32>
  %l0 = phobos.fill %zero : !phobos.tile<64x1xf32>
  %a0 = phobos.fill %zero : !phobos.tile<64x32xf32>
  %r:4 = scf.for %i = %c0 to %n step %c32 iter_args(%m = %m0, %l = %l0, %acc = %a0, %acc2 = %a0)
      -> (!phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>, !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>) : i32 {
    %x = phobos.load %X[%c0, %i] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32>
    %rowmax = phobos.reduce max %x along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
    %mn = phobos.max %m, %rowmax : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
    %d = phobos.sub %m, %mn : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
    %corr = phobos.exp %d : !phobos.tile<64x1xf32>
    %scaled = phobos.mul %corr, %acc : !phobos.tile<64x1xf32>, !phobos.tile<64x32xf32>
    %scaled2 = phobos.mul %acc2, %corr : !phobos.tile<64x32xf32>, !phobos.tile<64x1xf32>
    %ls = phobos.mul %corr, %l : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
    %acc1 = phobos.add %scaled, %x : !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
    scf.yield %mn, %ls, %acc1, %scaled2 : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>, !phobos.tile<64x32xf32>, !phobos.tile<64x32xf32>
  }
  phobos.store %r#2, %O[%c0, %c0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Not a running maximum's correction (exp(m - x) may exceed 1 and is
// rarely 1), and the correction outside a loop: left alone.
// CHECK-LABEL: phobos.kernel @not_a_correction
// CHECK-NOT: skip_unit_factor
// CHECK: phobos.return
phobos.kernel @not_a_correction(%X: !phobos.tensor<?x?xf32>, %O: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %n = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %a0 = phobos.fill %zero : !phobos.tile<64x32xf32>
  %m = phobos.fill %zero : !phobos.tile<64x1xf32>
  %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %a0) -> (!phobos.tile<64x32xf32>) : i32 {
    %x = phobos.load %X[%c0, %i] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32>
    %rowmax = phobos.reduce max %x along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
    %d = phobos.sub %m, %rowmax : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
    %f = phobos.exp %d : !phobos.tile<64x1xf32>
    %scaled = phobos.mul %f, %acc : !phobos.tile<64x1xf32>, !phobos.tile<64x32xf32>
    scf.yield %scaled : !phobos.tile<64x32xf32>
  }
  %x0 = phobos.load %X[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32>
  %rm = phobos.reduce max %x0 along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
  %mn = phobos.max %m, %rm : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
  %d2 = phobos.sub %m, %mn : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
  %c = phobos.exp %d2 : !phobos.tile<64x1xf32>
  %out = phobos.mul %c, %r : !phobos.tile<64x1xf32>, !phobos.tile<64x32xf32>
  phobos.store %out, %O[%c0, %c0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
