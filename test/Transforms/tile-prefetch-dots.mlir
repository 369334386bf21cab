// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-prefetch-dots))' --split-input-file | FileCheck %s

// Attention's key loop on wgmma: S = Q K^T for iteration 0 before the loop,
// carried in; each iteration starts the next block's S first (its K load
// masked on the key axis, which moves with the loop) and leaves it in
// flight; the softmax and P @ V use the carried S; a wgmma_wait before the
// yield hands the next S on. The original load and dot are gone.
// CHECK-LABEL: phobos.kernel @attention
// CHECK: %[[K0:.*]] = phobos.load %[[KT:.*]][%{{.*}}, %[[LB:.*]], %{{.*}}] {in_bounds = array<i1: false, false, true>, point_axes = array<i64: 0>}
// CHECK: %[[S0:.*]] = phobos.dot %[[Q:.*]], %[[K0]] transpose_b kind(wgmma)
// CHECK-NOT: in_flight
// CHECK: scf.for %[[KB:.*]] = %[[LB]] to %{{.*}} step %[[STEP:.*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[S:.*]] = %[[S0]])
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[KB]], %[[STEP]] : i32
// CHECK-NEXT: %[[K1:.*]] = phobos.load %[[KT]][%{{.*}}, %[[AHEAD]], %{{.*}}] {in_bounds = array<i1: false, false, true>, point_axes = array<i64: 0>}
// CHECK-NEXT: %[[NEXT:.*]] = phobos.dot %[[Q]], %[[K1]] transpose_b kind(wgmma) {in_flight = 1 : i32}
// CHECK-NEXT: phobos.load %{{.*}}[%{{.*}}, %[[KB]], %{{.*}}]
// CHECK-NEXT: phobos.exp %[[S]]
// CHECK: phobos.dot
// CHECK-NEXT: %[[DONE:.*]] = phobos.wgmma_wait %[[NEXT]] {pending = 0 : i32}
// CHECK-NEXT: scf.yield %{{.*}}, %[[DONE]]
phobos.kernel @attention(%Q: !phobos.tensor<?x?x16xf16>, %K: !phobos.tensor<?x?x16xf16>, %V: !phobos.tensor<?x?x16xf16>, %O: !phobos.tensor<?x?x16xf32>, %bh: i32, %n: i32)
    attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %q = phobos.load %Q[%bh, %c0, %c0] {point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<64x16xf16>
  %init = phobos.fill %zero : !phobos.tile<64x16xf32>
  %r = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x16xf32>) : i32 {
    %k = phobos.load %K[%bh, %kb, %c0] {in_bounds = array<i1: false, true, true>, point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<32x16xf16>
    %v = phobos.load %V[%bh, %kb, %c0] {point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %q, %k transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %p = phobos.exp %s : !phobos.tile<64x32xf32>
    %ph = phobos.cast %p : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %ph, %v, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  phobos.store %r, %O[%bh, %c0, %c0] {point_axes = array<i64: 0>} : !phobos.tile<64x16xf32>, !phobos.tensor<?x?x16xf32>
  phobos.return
}

// -----

// Left alone: a loop that stores (reading early could see its writes), a
// first dot on mma.sync (synchronous: nothing to overlap), a loop with only
// one dot (no later wait to retire it), and the remainder loop
// tile-split-ragged-loops leaves (it runs at most once).
// CHECK-LABEL: phobos.kernel @left_alone
// CHECK-NOT: in_flight
// CHECK-NOT: wgmma_wait
// CHECK: phobos.return
phobos.kernel @left_alone(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %n: i32)
    attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16>
  %init = phobos.fill %zero : !phobos.tile<64x16xf32>
  %r1 = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    phobos.store %s, %C[%kb, %c0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  %r2 = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %r1) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  %r3 = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %r2) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %e = phobos.exp %s : !phobos.tile<64x32xf32>
    %m = phobos.reduce max %e along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
    %x = phobos.broadcast %m : !phobos.tile<64x1xf32> -> !phobos.tile<64x16xf32>
    %y = phobos.add %acc, %x : !phobos.tile<64x16xf32>, !phobos.tile<64x16xf32>
    scf.yield %y : !phobos.tile<64x16xf32>
  }
  %full = arith.divsi %n, %c32 : i32
  %start = arith.muli %full, %c32 : i32
  %r4 = scf.for %kb = %start to %n step %c32 iter_args(%acc = %r3) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  phobos.store %r4, %C[%c0, %c0] : !phobos.tile<64x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
