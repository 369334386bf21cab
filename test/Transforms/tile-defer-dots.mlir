// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-defer-dots{min-columns=16 min-depth=32}))' --split-input-file | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-defer-dots))' --split-input-file | FileCheck %s --check-prefix=DEFAULT

// By default a 16-column accumulator (and a 32-deep P) is too small to
// hide a softmax behind: left alone.
// DEFAULT-LABEL: phobos.kernel @attention
// DEFAULT-NOT: in_flight
// DEFAULT: phobos.return

// Attention's key loop on wgmma. The loop carries P in f32 (zero at first)
// and the rescaled accumulator. Each iteration issues S = Q K^T and the
// previous iteration's P @ V (on V one block back, masked on the key axis,
// P cast to f16 at the top) back to back, both in flight; waits for S with
// one group pending; runs the softmax; then waits for P @ V, holding the
// f16 P, and rescales it last. After the loop, the last block's P @ V on
// V where the loop's deferred dot reads it one step past the last
// iteration: end - step, end = lb + max(0, ceil((ub - lb) / step)) * step
// (the form tile-pipeline stages as one more fill of its ring).
// CHECK-LABEL: phobos.kernel @attention
// CHECK: %[[P0:.*]] = phobos.fill %{{.*}} : !phobos.tile<64x32xf32>
// CHECK: %[[LOOP:.*]]:3 = scf.for %[[KB:.*]] = %[[LB:.*]] to %[[UB:.*]] step %[[STEP:.*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[M:.*]] = %{{.*}}, %[[P:.*]] = %[[P0]])
// CHECK-NEXT: %[[PH:.*]] = phobos.cast %[[P]] : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
// CHECK-NEXT: %[[K:.*]] = phobos.load %[[KT:.*]][%{{.*}}, %[[KB]], %{{.*}}]
// CHECK-NEXT: %[[S0:.*]] = phobos.dot %{{.*}}, %[[K]] transpose_b kind(wgmma) {in_flight = 1 : i32}
// CHECK-NEXT: %[[BACK:.*]] = arith.subi %[[KB]], %[[STEP]] : i32
// CHECK-NEXT: %[[V:.*]] = phobos.load %[[VT:.*]][%{{.*}}, %[[BACK]], %{{.*}}] {in_bounds = array<i1: false, false, true>, point_axes = array<i64: 0>}
// CHECK-NEXT: %[[D0:.*]] = phobos.dot %[[PH]], %[[V]], %[[ACC]] kind(wgmma) {in_flight = 1 : i32}
// CHECK-NEXT: %[[S:.*]] = phobos.wgmma_wait %[[S0]] {pending = 1 : i32}
// CHECK-NEXT: %[[MAX:.*]] = phobos.reduce max %[[S]]
// CHECK: %[[P1:.*]] = phobos.exp %{{.*}} : !phobos.tile<64x32xf32>
// CHECK-NOT: phobos.dot
// CHECK: %[[D:.*]] = phobos.wgmma_wait %[[D0]] holding %[[PH]] : !phobos.tile<64x32xf16> {pending = 0 : i32}
// CHECK-NEXT: %[[R:.*]] = phobos.mul %{{.*}}, %[[D]]
// CHECK-NEXT: scf.yield %[[R]], %{{.*}}, %[[P1]]
// CHECK: %[[SPAN:.*]] = arith.subi %[[UB]], %[[LB]]
// CHECK-NEXT: %[[CEIL:.*]] = arith.ceildivsi %[[SPAN]], %[[STEP]]
// CHECK-NEXT: %[[TRIPS:.*]] = arith.maxsi %{{.*}}, %[[CEIL]]
// CHECK-NEXT: %[[WHOLE:.*]] = arith.muli %[[TRIPS]], %[[STEP]]
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[LB]], %[[WHOLE]] : i32
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[END]], %[[STEP]] : i32
// CHECK-NEXT: %[[VL:.*]] = phobos.load %[[VT]][%{{.*}}, %[[LAST]], %{{.*}}] {in_bounds = array<i1: false, false, true>, point_axes = array<i64: 0>}
// CHECK-NEXT: %[[PL:.*]] = phobos.cast %[[LOOP]]#2 : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
// CHECK-NEXT: %[[OUT:.*]] = phobos.dot %[[PL]], %[[VL]], %[[LOOP]]#0 kind(wgmma) :
// CHECK-NEXT: phobos.store %[[OUT]]
phobos.kernel @attention(%Q: !phobos.tensor<?x?x16xf16>, %K: !phobos.tensor<?x?x16xf16>, %V: !phobos.tensor<?x?x16xf16>, %O: !phobos.tensor<?x?x16xf32>, %bh: i32, %n: i32)
    attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -1.0e30 : f32
  %q = phobos.load %Q[%bh, %c0, %c0] {point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<64x16xf16>
  %init = phobos.fill %zero : !phobos.tile<64x16xf32>
  %m0 = phobos.fill %low : !phobos.tile<64x1xf32>
  %r:2 = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %init, %m = %m0) -> (!phobos.tile<64x16xf32>, !phobos.tile<64x1xf32>) : i32 {
    %k = phobos.load %K[%bh, %kb, %c0] {in_bounds = array<i1: false, true, true>, point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<32x16xf16>
    %v = phobos.load %V[%bh, %kb, %c0] {in_bounds = array<i1: false, true, true>, point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %q, %k transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %mx = phobos.reduce max %s along 1 : !phobos.tile<64x32xf32> -> !phobos.tile<64x1xf32>
    %mn = phobos.max %m, %mx : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
    %dm = phobos.sub %m, %mn : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
    %corr = phobos.exp %dm : !phobos.tile<64x1xf32>
    %x = phobos.sub %s, %mn : !phobos.tile<64x32xf32>, !phobos.tile<64x1xf32>
    %p = phobos.exp %x : !phobos.tile<64x32xf32>
    %scaled = phobos.mul %corr, %acc : !phobos.tile<64x1xf32>, !phobos.tile<64x16xf32>
    %ph = phobos.cast %p : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %ph, %v, %scaled kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d, %mn : !phobos.tile<64x16xf32>, !phobos.tile<64x1xf32>
  }
  phobos.store %r#0, %O[%bh, %c0, %c0] {point_axes = array<i64: 0>} : !phobos.tile<64x16xf32>, !phobos.tensor<?x?x16xf32>
  phobos.return
}

// -----

// Left alone: a loop that does not start at 0 (V one block back may be
// inside the tensor), a loop that stores to the tensor of V (reading late
// could see its writes), a first dot on mma.sync, an accumulator read by something other
// than its rescale, the remainder loop tile-split-ragged-loops leaves (it
// runs at most once), and a B read a block ahead of the induction variable
// (one step before the start would be inside the tensor).
// CHECK-LABEL: phobos.kernel @left_alone
// CHECK-NOT: in_flight
// CHECK-NOT: wgmma_wait
// CHECK: phobos.return
phobos.kernel @left_alone(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %lb: i32, %n: i32)
    attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16>
  %init = phobos.fill %zero : !phobos.tile<64x16xf32>
  %r1 = scf.for %kb = %lb to %n step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %b2 = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b2, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  %r2 = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %r1) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %b2 = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    phobos.store %sh, %B[%kb, %c0] : !phobos.tile<64x32xf16>, !phobos.tensor<?x?xf16>
    %d = phobos.dot %sh, %b2, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  %r3 = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %r2) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %b2 = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(mma_sync) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b2, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  %r4 = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %r3) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %b2 = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b2, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    %e = phobos.add %d, %acc : !phobos.tile<64x16xf32>, !phobos.tile<64x16xf32>
    scf.yield %e : !phobos.tile<64x16xf32>
  }
  %t = arith.divsi %n, %c32 : i32
  %rem = arith.muli %t, %c32 : i32
  %r5 = scf.for %kb = %rem to %n step %c32 iter_args(%acc = %r4) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %b2 = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b2, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  %r6 = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %r5) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %ahead = arith.addi %kb, %c32 : i32
    %b2 = phobos.load %B[%ahead, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b2, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  phobos.store %r6, %C[%c0, %c0] : !phobos.tile<64x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A store to another tensor leaves V's reads alone (distinct tensor
// arguments are distinct memory): the dot is deferred, the store stays.
// CHECK-LABEL: phobos.kernel @beside_store
// CHECK: scf.for
// CHECK: phobos.dot {{.*}} {in_flight = 1 : i32}
// CHECK: phobos.store
// CHECK: phobos.wgmma_wait
phobos.kernel @beside_store(%A: !phobos.tensor<?x?xf16>, %B: !phobos.tensor<?x?xf16>, %C: !phobos.tensor<?x?xf32>, %n: i32)
    attributes {max_threads = 128 : i32, tensorcore = "f16"} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %a = phobos.load %A[%c0, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<64x16xf16>
  %init = phobos.fill %zero : !phobos.tile<64x16xf32>
  %r = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x16xf32>) : i32 {
    %b = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %b2 = phobos.load %B[%kb, %c0] : !phobos.tensor<?x?xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %a, %b transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    phobos.store %s, %C[%kb, %c0] : !phobos.tile<64x32xf32>, !phobos.tensor<?x?xf32>
    %sh = phobos.cast %s : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %sh, %b2, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  phobos.store %r, %C[%c0, %c0] : !phobos.tile<64x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// A kernel that asks for a producer warpgroup (@warp_specialize) runs one
// CTA per SM with registers to spare: its narrow accumulator (16 columns,
// under the default 128) is deferred all the same; the depth still counts
// (a 32-deep P stays below the default 64; at min-depth=32 it is deferred).
// CHECK-LABEL: phobos.kernel @specialized_narrow
// CHECK: phobos.dot {{.*}} {in_flight = 1 : i32}
// DEFAULT-LABEL: phobos.kernel @specialized_narrow
// DEFAULT: scf.for
// DEFAULT: phobos.dot {{.*}} transpose_b kind(wgmma) {in_flight = 1 : i32}
// DEFAULT: phobos.dot {{.*}} kind(wgmma) {in_flight = 1 : i32}
// DEFAULT: phobos.wgmma_wait {{.*}} {pending = 1 : i32}
// CHECK-LABEL: phobos.kernel @specialized_shallow
// CHECK: phobos.dot {{.*}} {in_flight = 1 : i32}
// DEFAULT-LABEL: phobos.kernel @specialized_shallow
// DEFAULT-NOT: in_flight
// DEFAULT: phobos.return
phobos.kernel @specialized_narrow(%Q: !phobos.tensor<?x?x16xf16>, %K: !phobos.tensor<?x?x16xf16>, %V: !phobos.tensor<?x?x16xf16>, %O: !phobos.tensor<?x?x16xf32>, %bh: i32, %n: i32)
    attributes {max_threads = 128 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -1.0e30 : f32
  %q = phobos.load %Q[%bh, %c0, %c0] {point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<64x16xf16>
  %init = phobos.fill %zero : !phobos.tile<64x16xf32>
  %m0 = phobos.fill %low : !phobos.tile<64x1xf32>
  %r:2 = scf.for %kb = %c0 to %n step %c64 iter_args(%acc = %init, %m = %m0) -> (!phobos.tile<64x16xf32>, !phobos.tile<64x1xf32>) : i32 {
    %k = phobos.load %K[%bh, %kb, %c0] {in_bounds = array<i1: false, true, true>, point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<64x16xf16>
    %v = phobos.load %V[%bh, %kb, %c0] {in_bounds = array<i1: false, true, true>, point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<64x16xf16>
    %s = phobos.dot %q, %k transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<64x16xf16> -> !phobos.tile<64x64xf32>
    %mx = phobos.reduce max %s along 1 : !phobos.tile<64x64xf32> -> !phobos.tile<64x1xf32>
    %mn = phobos.max %m, %mx : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
    %dm = phobos.sub %m, %mn : !phobos.tile<64x1xf32>, !phobos.tile<64x1xf32>
    %corr = phobos.exp %dm : !phobos.tile<64x1xf32>
    %x = phobos.sub %s, %mn : !phobos.tile<64x64xf32>, !phobos.tile<64x1xf32>
    %p = phobos.exp %x : !phobos.tile<64x64xf32>
    %scaled = phobos.mul %corr, %acc : !phobos.tile<64x1xf32>, !phobos.tile<64x16xf32>
    %ph = phobos.cast %p : !phobos.tile<64x64xf32> to !phobos.tile<64x64xf16>
    %d = phobos.dot %ph, %v, %scaled kind(wgmma) : !phobos.tile<64x64xf16>, !phobos.tile<64x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d, %mn : !phobos.tile<64x16xf32>, !phobos.tile<64x1xf32>
  }
  phobos.store %r#0, %O[%bh, %c0, %c0] {point_axes = array<i64: 0>} : !phobos.tile<64x16xf32>, !phobos.tensor<?x?x16xf32>
  phobos.return
}

phobos.kernel @specialized_shallow(%Q: !phobos.tensor<?x?x16xf16>, %K: !phobos.tensor<?x?x16xf16>, %V: !phobos.tensor<?x?x16xf16>, %O: !phobos.tensor<?x?x16xf32>, %bh: i32, %n: i32)
    attributes {max_threads = 128 : i32, tensorcore = "f16", warp_specialize} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  %q = phobos.load %Q[%bh, %c0, %c0] {point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<64x16xf16>
  %init = phobos.fill %zero : !phobos.tile<64x16xf32>
  %r = scf.for %kb = %c0 to %n step %c32 iter_args(%acc = %init) -> (!phobos.tile<64x16xf32>) : i32 {
    %k = phobos.load %K[%bh, %kb, %c0] {in_bounds = array<i1: false, true, true>, point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<32x16xf16>
    %v = phobos.load %V[%bh, %kb, %c0] {in_bounds = array<i1: false, true, true>, point_axes = array<i64: 0>} : !phobos.tensor<?x?x16xf16> -> !phobos.tile<32x16xf16>
    %s = phobos.dot %q, %k transpose_b kind(wgmma) : !phobos.tile<64x16xf16>, !phobos.tile<32x16xf16> -> !phobos.tile<64x32xf32>
    %p = phobos.exp %s : !phobos.tile<64x32xf32>
    %ph = phobos.cast %p : !phobos.tile<64x32xf32> to !phobos.tile<64x32xf16>
    %d = phobos.dot %ph, %v, %acc kind(wgmma) : !phobos.tile<64x32xf16>, !phobos.tile<32x16xf16>, !phobos.tile<64x16xf32> -> !phobos.tile<64x16xf32>
    scf.yield %d : !phobos.tile<64x16xf32>
  }
  phobos.store %r, %O[%bh, %c0, %c0] {point_axes = array<i64: 0>} : !phobos.tile<64x16xf32>, !phobos.tensor<?x?x16xf32>
  phobos.return
}
