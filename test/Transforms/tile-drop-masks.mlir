// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-drop-masks))' --split-input-file | FileCheck %s

// in_bounds is set on the slice axes that are proven inside their tensor:
// constant offsets whose slice fits a static extent, and loop induction
// variables stepping over a dim that is a multiple of the step (static, or
// promised by @aligned). Everything else keeps its mask.

// Static extents: a whole-axis slice (`:`), a constant offset whose slice
// fits, and a point inside a static axis are in bounds; a dynamic axis, a
// constant slice that runs past the extent and a point past its axis are
// not (the point's row slice, `0 :+ 64` of 64, still is).
// CHECK-LABEL: phobos.kernel @static_extents
// CHECK: phobos.load %{{.*}} {in_bounds = array<i1: false, true>} : !phobos.tensor<?x64xf32> -> !phobos.tile<16x64xf32>
// CHECK: phobos.load %{{.*}} {in_bounds = array<i1: true>} : !phobos.tensor<128xf32> -> !phobos.tile<64xf32>
// CHECK: phobos.load %{{.*}} {in_bounds = array<i1: true>} : !phobos.tensor<128xf32> -> !phobos.tile<32xf32>
// CHECK: phobos.load %{{.*}} : !phobos.tensor<128xf32> -> !phobos.tile<64xf32>
// CHECK: phobos.load %{{.*}} {in_bounds = array<i1: true, true>, point_axes = array<i64: 0>} : !phobos.tensor<4x64xf32> -> !phobos.tile<64xf32>
// CHECK: phobos.load %{{.*}} {in_bounds = array<i1: false, true>, point_axes = array<i64: 0>} : !phobos.tensor<4x64xf32> -> !phobos.tile<64xf32>
// CHECK: phobos.store %{{.*}} {in_bounds = array<i1: false, true>} : !phobos.tile<16x64xf32>, !phobos.tensor<?x64xf32>
phobos.kernel @static_extents(%A: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "D"]},
                              %B: !phobos.tensor<128xf32> {phobos.dims = ["L"]},
                              %P: !phobos.tensor<4x64xf32> {phobos.dims = ["R", "D"]},
                              %m: i32) {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  %c96 = arith.constant 96 : i32
  %a = phobos.load %A[%m, %c0] : !phobos.tensor<?x64xf32> -> !phobos.tile<16x64xf32>
  // [64, 128) fits exactly.
  %b0 = phobos.load %B[%c64] : !phobos.tensor<128xf32> -> !phobos.tile<64xf32>
  // [96, 128) fits exactly.
  %b1 = phobos.load %B[%c96] : !phobos.tensor<128xf32> -> !phobos.tile<32xf32>
  // [96, 160) runs past 128.
  %b2 = phobos.load %B[%c96] : !phobos.tensor<128xf32> -> !phobos.tile<64xf32>
  // Row 3 of 4, and row 4 of 4 (past the end).
  %p0 = phobos.load %P[%c3, %c0] {point_axes = array<i64: 0>} : !phobos.tensor<4x64xf32> -> !phobos.tile<64xf32>
  %p1 = phobos.load %P[%c4, %c0] {point_axes = array<i64: 0>} : !phobos.tensor<4x64xf32> -> !phobos.tile<64xf32>
  phobos.store %a, %A[%m, %c0] : !phobos.tile<16x64xf32>, !phobos.tensor<?x64xf32>
  phobos.return
}

// -----

// A negative constant offset is outside even when the slice is short.
// CHECK-LABEL: phobos.kernel @negative_offset
// CHECK: phobos.load %{{.*}} : !phobos.tensor<128xf32> -> !phobos.tile<16xf32>
// CHECK-NOT: in_bounds
phobos.kernel @negative_offset(%B: !phobos.tensor<128xf32> {phobos.dims = ["L"]}) {
  %cm8 = arith.constant -8 : i32
  %b = phobos.load %B[%cm8] : !phobos.tensor<128xf32> -> !phobos.tile<16xf32>
  phobos.store %b, %B[%cm8] : !phobos.tile<16xf32>, !phobos.tensor<128xf32>
  phobos.return
}

// -----

// `for k in range(0, K, 16)` with `@aligned(K = 16)`: `k :+ E` with E <= 16
// stays inside K on every iteration, for loads and stores; a slice longer
// than the step, an axis named differently and the other (unproven) axis
// keep their masks.
// CHECK-LABEL: phobos.kernel @aligned_loop
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[B:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[M:[^:]*]]: i32)
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK-NEXT: phobos.load %[[A]][%[[M]], %[[K]]] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
// CHECK-NEXT: phobos.load %[[A]][%[[M]], %[[K]]] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x8xf32>
// CHECK-NEXT: phobos.load %[[B]][%[[K]], %[[M]]] {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
// CHECK-NEXT: phobos.load %[[A]][%[[M]], %[[K]]] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x32xf32>
// CHECK-NEXT: phobos.load %[[A]][%[[K]], %[[M]]] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
// CHECK-NEXT: phobos.store %{{.*}}, %[[A]][%[[M]], %[[K]]] {in_bounds = array<i1: false, true>} : !phobos.tile<32x16xf32>, !phobos.tensor<?x?xf32>
phobos.kernel @aligned_loop(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]},
                            %B: !phobos.tensor<?x?xf32> {phobos.dims = ["K", "N"]},
                            %m: i32) attributes {aligned = {K = 16 : i64}} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %kdim = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  scf.for %k = %c0 to %kdim step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
    %a8 = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x8xf32>
    // B's K is its axis 0.
    %b = phobos.load %B[%k, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
    // Longer than the step.
    %a32 = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x32xf32>
    // k along A's axis 0, which is M, not K.
    %t = phobos.load %A[%k, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
    phobos.store %a, %A[%m, %k] : !phobos.tile<32x16xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}

// -----

// A promise that is not a multiple of the step proves nothing (K = 24 with
// step 16 leaves a ragged last step); a multiple of it does.
// CHECK-LABEL: phobos.kernel @aligned_multiple
// CHECK: scf.for
// CHECK-NEXT: phobos.load %{{.*}} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
// CHECK: scf.for
// CHECK-NEXT: phobos.load %{{.*}} {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x8xf32>
phobos.kernel @aligned_multiple(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]},
                                %m: i32) attributes {aligned = {K = 24 : i64}} {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %kdim = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  scf.for %k = %c0 to %kdim step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
  }
  scf.for %k = %c0 to %kdim step %c8 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x8xf32>
  }
  phobos.return
}

// -----

// Without @aligned the same loop keeps its masks: the last step may be
// ragged.
// CHECK-LABEL: phobos.kernel @unaligned_loop
// CHECK-NOT: in_bounds
phobos.kernel @unaligned_loop(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]},
                              %m: i32) attributes {aligned = {M = 16 : i64}} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %kdim = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  scf.for %k = %c0 to %kdim step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
    phobos.store %a, %A[%m, %k] : !phobos.tile<32x16xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}

// -----

// A loop over a static extent that is a multiple of the step, bounded by
// the dim or by a constant, needs no promise; one starting at a multiple of
// the step is fine too. A constant bound past the extent, or a lower bound
// that is not a multiple of the step, proves nothing.
// CHECK-LABEL: phobos.kernel @static_loop
// CHECK: scf.for
// CHECK-NEXT: phobos.load %{{.*}} {in_bounds = array<i1: false, true>}
// CHECK: scf.for
// CHECK-NEXT: phobos.load %{{.*}} {in_bounds = array<i1: false, true>}
// CHECK: scf.for
// CHECK-NEXT: phobos.load %{{.*}} {in_bounds = array<i1: false, true>}
// CHECK: scf.for
// CHECK-NEXT: phobos.load %{{.*}} : !phobos.tensor<?x64xf32>
// CHECK: scf.for
// CHECK-NEXT: phobos.load %{{.*}} : !phobos.tensor<?x64xf32>
phobos.kernel @static_loop(%A: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "D"]},
                           %m: i32) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %c80 = arith.constant 80 : i32
  %d = phobos.dim %A[1] : !phobos.tensor<?x64xf32>
  scf.for %k = %c0 to %d step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x64xf32> -> !phobos.tile<32x16xf32>
  }
  scf.for %k = %c0 to %c64 step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x64xf32> -> !phobos.tile<32x16xf32>
  }
  scf.for %k = %c32 to %c64 step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x64xf32> -> !phobos.tile<32x16xf32>
  }
  scf.for %k = %c0 to %c80 step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x64xf32> -> !phobos.tile<32x16xf32>
  }
  scf.for %k = %c8 to %c64 step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x64xf32> -> !phobos.tile<32x16xf32>
  }
  phobos.return
}

// -----

// Offsets from ctx.block stay masked, even on a static axis and with an
// @aligned promise: an explicit grid may be larger than the inferred one.
// The constant column slice of A (`0 :+ 16` of 64) is still proven.
// CHECK-LABEL: phobos.kernel @block_offsets
// CHECK: phobos.load %{{.*}} {in_bounds = array<i1: false, true>} : !phobos.tensor<?x64xf32> -> !phobos.tile<16x16xf32>
// CHECK-NEXT: phobos.load %{{.*}} : !phobos.tensor<256xf32> -> !phobos.tile<64xf32>
// CHECK-NEXT: phobos.store %{{.*}} : !phobos.tile<64xf32>, !phobos.tensor<256xf32>
phobos.kernel @block_offsets(%A: !phobos.tensor<?x64xf32> {phobos.dims = ["M", "D"]},
                             %B: !phobos.tensor<256xf32> {phobos.dims = ["L"]})
    attributes {aligned = {M = 16 : i64}} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c64 = arith.constant 64 : i32
  %bx = phobos.block_id x
  %row = arith.muli %bx, %c16 : i32
  %col = arith.muli %bx, %c64 : i32
  %a = phobos.load %A[%row, %c0] {in_bounds = array<i1: false, false>} : !phobos.tensor<?x64xf32> -> !phobos.tile<16x16xf32>
  %b = phobos.load %B[%col] : !phobos.tensor<256xf32> -> !phobos.tile<64xf32>
  phobos.store %b, %B[%col] : !phobos.tile<64xf32>, !phobos.tensor<256xf32>
  phobos.return
}

// -----

// The loop runs over M (aligned), but k slices K: nothing is proven about K.
// CHECK-LABEL: phobos.kernel @other_bound
// CHECK-NOT: in_bounds
phobos.kernel @other_bound(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]},
                           %m: i32) attributes {aligned = {K = 16 : i64, M = 16 : i64}} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %mdim = phobos.dim %A[0] : !phobos.tensor<?x?xf32>
  scf.for %k = %c0 to %mdim step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
  }
  phobos.return
}

// -----

// The kernel's own column checks fold too where every step is whole
// (`@aligned(N = 64)`, step 64): `where(k + arange(64) < N, s, -3e38)` is `s`,
// and `N > k + arange(32)` likewise. A check against another bound and one
// whose columns outrun the step (128 > 64) stay; one a `where` cannot drop
// at once (its first value is a scalar) becomes a tile of true, which the
// canonicalizer folds.
// CHECK-LABEL: phobos.kernel @aligned_checks
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK-NEXT: %[[X:.*]] = phobos.load
// CHECK-NEXT: %[[X32:.*]] = phobos.load
// CHECK-COUNT-3: phobos.arange
// CHECK-NEXT: %[[C0:.*]] = phobos.add %[[K]]
// CHECK-NEXT: %[[C1:.*]] = phobos.add %{{.*}}, %[[K]]
// CHECK-NEXT: %[[C2:.*]] = phobos.add %[[K]]
// CHECK-NEXT: %[[OTHER:.*]] = phobos.cmp lt, %[[C0]], %{{.*}} : !phobos.tile<64xi32>, i32
// CHECK-NEXT: %[[LONG:.*]] = phobos.cmp lt, %[[C2]], %{{.*}} : !phobos.tile<128xi32>, i32
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[SCALAR:.*]] = phobos.fill %[[TRUE]] : !phobos.tile<64xi1>
// CHECK-NEXT: %[[S1:.*]] = phobos.select %[[OTHER]], %[[X]]
// CHECK-NEXT: %[[S2:.*]] = phobos.select %[[SCALAR]], %{{.*}}, %[[X]]
// CHECK-NEXT: phobos.store %[[X]]
// CHECK-NEXT: phobos.store %[[X32]]
// CHECK-NEXT: phobos.store %[[S1]]
// CHECK-NEXT: phobos.store %[[LONG]]
// CHECK-NEXT: phobos.store %[[S2]]
phobos.kernel @aligned_checks(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                              %B: !phobos.tensor<?xi1> {phobos.dims = ["L"]},
                              %m: i32, %other: i32) attributes {aligned = {N = 64 : i64}} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %low = arith.constant -3.0e38 : f32
  %n = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  scf.for %k = %c0 to %n step %c64 : i32 {
    %x = phobos.load %X[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<1x64xf32>
    %x32 = phobos.load %X[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<1x32xf32>
    %r64 = phobos.arange : !phobos.tile<64xi32>
    %r32 = phobos.arange : !phobos.tile<32xi32>
    %r128 = phobos.arange : !phobos.tile<128xi32>
    %cols = phobos.add %k, %r64 : i32, !phobos.tile<64xi32>
    %cols32 = phobos.add %r32, %k : !phobos.tile<32xi32>, i32
    %cols128 = phobos.add %k, %r128 : i32, !phobos.tile<128xi32>
    %in = phobos.cmp lt, %cols, %n : !phobos.tile<64xi32>, i32
    %in32 = phobos.cmp gt, %n, %cols32 : i32, !phobos.tile<32xi32>
    %other_in = phobos.cmp lt, %cols, %other : !phobos.tile<64xi32>, i32
    %long = phobos.cmp lt, %cols128, %n : !phobos.tile<128xi32>, i32
    %scalar_in = phobos.cmp lt, %cols, %n : !phobos.tile<64xi32>, i32
    %s0 = phobos.select %in, %x, %low : !phobos.tile<64xi1>, !phobos.tile<1x64xf32>, f32
    %s32 = phobos.select %in32, %x32, %low : !phobos.tile<32xi1>, !phobos.tile<1x32xf32>, f32
    %s1 = phobos.select %other_in, %x, %low : !phobos.tile<64xi1>, !phobos.tile<1x64xf32>, f32
    %s2 = phobos.select %scalar_in, %low, %x : !phobos.tile<64xi1>, f32, !phobos.tile<1x64xf32>
    phobos.store %s0, %X[%m, %k] : !phobos.tile<1x64xf32>, !phobos.tensor<?x?xf32>
    phobos.store %s32, %X[%m, %k] : !phobos.tile<1x32xf32>, !phobos.tensor<?x?xf32>
    phobos.store %s1, %X[%m, %k] : !phobos.tile<1x64xf32>, !phobos.tensor<?x?xf32>
    phobos.store %long, %B[%k] : !phobos.tile<128xi1>, !phobos.tensor<?xi1>
    phobos.store %s2, %X[%m, %k] : !phobos.tile<1x64xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}
