// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-bulk-atomics{chip=sm_90a}))' | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-bulk-atomics{chip=sm_80}))' | FileCheck %s --check-prefix=SM80
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-bulk-atomics{chip=sm_90a max-bytes=30000}))' | FileCheck %s --check-prefix=SMALL

// An attention backward in one kernel adds a [64, 128] f32 block of dQ in
// every iteration of its loop: bulk on sm_90a. Left alone: a block added
// once, after no loop (the staging would not pay); one row a time (layer
// norm's partial sums); a point on the tensor's last axis (the rows would
// not be contiguous); rows of 6 floats (24 bytes: not a multiple of 16);
// f64; a tensor the kernel also loads from (the bulk reductions complete
// asynchronously). On sm_80 (no bulk reductions) nothing is marked, nor
// where the block's scratch (64 rows of 128 + 4 floats: 33,792 bytes)
// would not fit in the shared memory allowed.

// CHECK-LABEL: phobos.kernel @loop_block
// CHECK: phobos.atomic_add {{.*}} {bulk, in_bounds
// CHECK-LABEL: phobos.kernel @once
// CHECK-NOT: bulk
// CHECK-LABEL: phobos.kernel @one_row
// CHECK-NOT: bulk
// CHECK-LABEL: phobos.kernel @column
// CHECK-NOT: bulk
// CHECK-LABEL: phobos.kernel @narrow
// CHECK-NOT: bulk
// CHECK-LABEL: phobos.kernel @double
// CHECK-NOT: bulk
// CHECK-LABEL: phobos.kernel @read_back
// CHECK-NOT: bulk
// CHECK: phobos.return
// SM80-NOT: bulk
// SMALL-NOT: bulk
phobos.kernel @loop_block(%DQ: !phobos.tensor<?x?x128xf32>, %x: f32, %bh: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t = phobos.fill %x : !phobos.tile<64x128xf32>
  scf.for %r0 = %c0 to %n step %c64 : i32 {
    phobos.atomic_add %t, %DQ[%bh, %r0, %c0] {in_bounds = array<i1: false, false, true>, point_axes = array<i64: 0>} : !phobos.tile<64x128xf32>, !phobos.tensor<?x?x128xf32>
  }
  phobos.return
}
phobos.kernel @once(%DQ: !phobos.tensor<?x?x128xf32>, %x: f32, %bh: i32, %r0: i32) {
  %c0 = arith.constant 0 : i32
  %t = phobos.fill %x : !phobos.tile<64x128xf32>
  phobos.atomic_add %t, %DQ[%bh, %r0, %c0] {point_axes = array<i64: 0>} : !phobos.tile<64x128xf32>, !phobos.tensor<?x?x128xf32>
  phobos.return
}
phobos.kernel @one_row(%DW: !phobos.tensor<?x?xf32>, %x: f32, %g: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %t = phobos.fill %x : !phobos.tile<1x128xf32>
  scf.for %c = %c0 to %n step %c128 : i32 {
    phobos.atomic_add %t, %DW[%g, %c] : !phobos.tile<1x128xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}
phobos.kernel @column(%X: !phobos.tensor<?x?xf32>, %x: f32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t = phobos.fill %x : !phobos.tile<64xf32>
  scf.for %r = %c0 to %n step %c64 : i32 {
    phobos.atomic_add %t, %X[%r, %c0] {point_axes = array<i64: 1>} : !phobos.tile<64xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}
phobos.kernel @narrow(%X: !phobos.tensor<?x?xf32>, %x: f32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t = phobos.fill %x : !phobos.tile<64x6xf32>
  scf.for %r = %c0 to %n step %c64 : i32 {
    phobos.atomic_add %t, %X[%r, %c0] : !phobos.tile<64x6xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}
phobos.kernel @double(%X: !phobos.tensor<?x?xf64>, %x: f64, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t = phobos.fill %x : !phobos.tile<64x32xf64>
  scf.for %r = %c0 to %n step %c64 : i32 {
    phobos.atomic_add %t, %X[%r, %c0] : !phobos.tile<64x32xf64>, !phobos.tensor<?x?xf64>
  }
  phobos.return
}
phobos.kernel @read_back(%DQ: !phobos.tensor<?x?xf32>, %O: !phobos.tensor<?x?xf32>, %x: f32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t = phobos.fill %x : !phobos.tile<64x32xf32>
  scf.for %r = %c0 to %n step %c64 : i32 {
    phobos.atomic_add %t, %DQ[%r, %c0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
  }
  %back = phobos.load %DQ[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<64x32xf32>
  phobos.store %back, %O[%c0, %c0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
