// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-split-ragged-loops))' --split-input-file | FileCheck %s

// `for k in range(0, K, S)` slicing `k :+ E` (E <= S) along K becomes a
// mask-free loop up to (K / S) * S and a remainder loop (at most one ragged
// step) that keeps the masks and carries on from the first loop's results.

// CHECK-LABEL: phobos.kernel @split
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[B:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[C:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[M:[^:]*]]: i32)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[INIT:.*]] = phobos.fill
// CHECK: %[[K:.*]] = phobos.dim %[[A]][1]
// CHECK-NEXT: %[[Q:.*]] = arith.divsi %[[K]], %[[C16]] : i32
// CHECK-NEXT: %[[FULL:.*]] = arith.muli %[[Q]], %[[C16]] : i32
// CHECK-NEXT: %[[MAIN:.*]] = scf.for %[[K1:[^ ]*]] = %[[C0]] to %[[FULL]] step %[[C16]] iter_args(%[[ACC1:[^ ]*]] = %[[INIT]])
// CHECK-NEXT: %[[A1:.*]] = phobos.load %[[A]][%[[M]], %[[K1]]] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
// CHECK-NEXT: %[[B1:.*]] = phobos.load %[[B]][%[[K1]], %[[M]]] {in_bounds = array<i1: true, false>} : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
// CHECK-NEXT: %[[D1:.*]] = phobos.dot %[[A1]], %[[B1]], %[[ACC1]]
// CHECK-NEXT: scf.yield %[[D1]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[REST:.*]] = scf.for %[[K2:[^ ]*]] = %[[FULL]] to %[[K]] step %[[C16]] iter_args(%[[ACC2:[^ ]*]] = %[[MAIN]])
// CHECK-NEXT: %[[A2:.*]] = phobos.load %[[A]][%[[M]], %[[K2]]] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
// CHECK-NEXT: %[[B2:.*]] = phobos.load %[[B]][%[[K2]], %[[M]]] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
// CHECK-NEXT: %[[D2:.*]] = phobos.dot %[[A2]], %[[B2]], %[[ACC2]]
// CHECK-NEXT: scf.yield %[[D2]]
// CHECK-NEXT: } {phobos.ragged_remainder}
// CHECK-NEXT: phobos.store %[[REST]], %[[C]]
phobos.kernel @split(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]},
                     %B: !phobos.tensor<?x?xf32> {phobos.dims = ["K", "N"]},
                     %C: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                     %m: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<32x32xf32>
  %kdim = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  %r = scf.for %k = %c0 to %kdim step %c16 iter_args(%acc = %init) -> (!phobos.tile<32x32xf32>) : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
    %b = phobos.load %B[%k, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
    %d = phobos.dot %a, %b, %acc : !phobos.tile<32x16xf32>, !phobos.tile<16x32xf32>, !phobos.tile<32x32xf32> -> !phobos.tile<32x32xf32>
    scf.yield %d : !phobos.tile<32x32xf32>
  }
  phobos.store %r, %C[%m, %m] : !phobos.tile<32x32xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// Stores lose their mask in the first loop as loads do (X and Y both
// slice N at k); a slice longer than the step (128 > 64) may leave N even in
// a whole step and keeps its mask in both loops. A loop without results
// splits as well.
// CHECK-LABEL: phobos.kernel @split_store
// CHECK: %[[FULL:.*]] = arith.muli
// CHECK-NEXT: scf.for %[[K1:[^ ]*]] = %{{.*}} to %[[FULL]] step
// CHECK-NEXT: %[[X1:.*]] = phobos.load %{{.*}}[%[[K1]]] {in_bounds = array<i1: true>} : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
// CHECK-NEXT: %[[W1:.*]] = phobos.load %{{.*}}[%[[K1]]] : !phobos.tensor<?xf32> -> !phobos.tile<128xf32>
// CHECK-NEXT: phobos.store %[[X1]], %{{.*}}[%[[K1]]] {in_bounds = array<i1: true>} : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %[[K2:[^ ]*]] = %[[FULL]] to
// CHECK-NEXT: phobos.load %{{.*}}[%[[K2]]] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
// CHECK-NEXT: phobos.load %{{.*}}[%[[K2]]] : !phobos.tensor<?xf32> -> !phobos.tile<128xf32>
// CHECK-NEXT: phobos.store %{{.*}}[%[[K2]]] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
// CHECK-NEXT: }
phobos.kernel @split_store(%X: !phobos.tensor<?xf32> {phobos.dims = ["N"]},
                           %Y: !phobos.tensor<?xf32> {phobos.dims = ["N"]}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %n = phobos.dim %Y[0] : !phobos.tensor<?xf32>
  scf.for %k = %c0 to %n step %c64 : i32 {
    %x = phobos.load %X[%k] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
    %w = phobos.load %X[%k] : !phobos.tensor<?xf32> -> !phobos.tile<128xf32>
    phobos.store %x, %Y[%k] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
  }
  phobos.return
}

// -----

// A lower bound other than 0 is left alone.
// CHECK-LABEL: phobos.kernel @nonzero_lower
// CHECK-NOT: arith.divsi
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK-NOT: in_bounds
phobos.kernel @nonzero_lower(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]}, %m: i32) {
  %c16 = arith.constant 16 : i32
  %kdim = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  scf.for %k = %c16 to %kdim step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
    phobos.store %a, %A[%m, %k] : !phobos.tile<32x16xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}

// -----

// No access slices the bound's dim at the induction variable (here k slices
// M while the loop runs to K, a slice at `k + 1` is not `k`, and a slice
// longer than the step may leave K even in a whole step): no split.
// CHECK-LABEL: phobos.kernel @no_access_on_bound
// CHECK-NOT: arith.divsi
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK-NOT: in_bounds
phobos.kernel @no_access_on_bound(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]}, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  %kdim = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  scf.for %k = %c0 to %kdim step %c16 : i32 {
    %a = phobos.load %A[%k, %m] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
    %k1 = arith.addi %k, %c1 : i32
    %b = phobos.load %A[%m, %k1] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
    %c = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x32xf32>
  }
  phobos.return
}

// -----

// A bound that is not a tensor's dim (a scalar argument) is left alone, and
// so is a loop whose accesses are already proven in bounds.
// CHECK-LABEL: phobos.kernel @not_a_dim
// CHECK-NOT: arith.divsi
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.for
phobos.kernel @not_a_dim(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]}, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %kdim = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  scf.for %k = %c0 to %n step %c16 : i32 {
    %a = phobos.load %A[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
  }
  scf.for %k = %c0 to %kdim step %c16 : i32 {
    %a = phobos.load %A[%m, %k] {in_bounds = array<i1: false, true>} : !phobos.tensor<?x?xf32> -> !phobos.tile<32x16xf32>
  }
  phobos.return
}

// -----

// Nested loops: the inner loop (over K) is split first, then the outer one
// (over M, which the store slices at its variable) is split with the split
// inner loop in both copies. Only each loop's own accesses are proven.
// CHECK-LABEL: phobos.kernel @nested
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[O:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}})
// CHECK: %[[MD:.*]] = phobos.dim %[[A]][0]
// CHECK: %[[KD:.*]] = phobos.dim %[[A]][1]
// CHECK: %[[MQ:.*]] = arith.divsi %[[MD]]
// CHECK-NEXT: %[[MFULL:.*]] = arith.muli %[[MQ]]
// CHECK-NEXT: scf.for %[[I1:[^ ]*]] = %{{.*}} to %[[MFULL]] step
// CHECK-NEXT: %[[KQ:.*]] = arith.divsi %[[KD]]
// CHECK-NEXT: %[[KFULL:.*]] = arith.muli %[[KQ]]
// CHECK-NEXT: %[[MAIN:.*]] = scf.for %[[K1:[^ ]*]] = %{{.*}} to %[[KFULL]]
// CHECK-NEXT: phobos.load %[[A]][%[[I1]], %[[K1]]] {in_bounds = array<i1: false, true>}
// CHECK: %[[REST:.*]] = scf.for %[[K2:[^ ]*]] = %[[KFULL]] to %[[KD]] {{.*}} iter_args(%{{.*}} = %[[MAIN]])
// CHECK-NEXT: phobos.load %[[A]][%[[I1]], %[[K2]]] :
// CHECK: phobos.store %[[REST]], %[[O]][%[[I1]], %{{.*}}] {in_bounds = array<i1: true, false>}
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %[[I2:[^ ]*]] = %[[MFULL]] to %[[MD]] step
// CHECK-NEXT: %[[KQ2:.*]] = arith.divsi %[[KD]]
// CHECK-NEXT: %[[KFULL2:.*]] = arith.muli %[[KQ2]]
// CHECK-NEXT: %[[MAIN2:.*]] = scf.for %[[K3:[^ ]*]] = %{{.*}} to %[[KFULL2]]
// CHECK-NEXT: phobos.load %[[A]][%[[I2]], %[[K3]]] {in_bounds = array<i1: false, true>}
// CHECK: %[[REST2:.*]] = scf.for %[[K4:[^ ]*]] = %[[KFULL2]] to %[[KD]] {{.*}} iter_args(%{{.*}} = %[[MAIN2]])
// CHECK-NEXT: phobos.load %[[A]][%[[I2]], %[[K4]]] :
// CHECK: phobos.store %[[REST2]], %[[O]][%[[I2]], %{{.*}}] :
// CHECK-NEXT: }
// CHECK-NEXT: phobos.return
phobos.kernel @nested(%A: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "K"]},
                      %O: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]}) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %init = phobos.fill %zero : !phobos.tile<16x16xf32>
  %mdim = phobos.dim %A[0] : !phobos.tensor<?x?xf32>
  %kdim = phobos.dim %A[1] : !phobos.tensor<?x?xf32>
  scf.for %i = %c0 to %mdim step %c16 : i32 {
    %r = scf.for %k = %c0 to %kdim step %c16 iter_args(%acc = %init) -> (!phobos.tile<16x16xf32>) : i32 {
      %a = phobos.load %A[%i, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
      %s = phobos.add %acc, %a : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
      scf.yield %s : !phobos.tile<16x16xf32>
    }
    phobos.store %r, %O[%i, %c0] : !phobos.tile<16x16xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}

// -----

// The kernel's own check of the columns against the bound folds in the main
// loop (every column of a whole step is inside): the `where` there is its
// first value. The remainder keeps both, and is not marked as differing
// only by in-bounds promises.
// CHECK-LABEL: phobos.kernel @row_checks
// CHECK: %[[N:.*]] = phobos.dim
// CHECK: scf.for %[[K1:[^ ]*]] =
// CHECK-NEXT: %[[X1:.*]] = phobos.load
// CHECK-NOT: phobos.cmp
// CHECK-NOT: phobos.select
// CHECK: phobos.reduce max %[[X1]]
// CHECK: scf.for %[[K2:[^ ]*]] =
// CHECK: %[[IN:.*]] = phobos.cmp lt, %{{.*}}, %[[N]]
// CHECK-NEXT: %[[S2:.*]] = phobos.select %[[IN]]
// CHECK-NEXT: phobos.reduce max %[[S2]]
// CHECK-NOT: ragged_remainder
// CHECK: phobos.return
phobos.kernel @row_checks(%X: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"]},
                          %m: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %low = arith.constant -3.0e38 : f32
  %init = phobos.fill %low : !phobos.tile<1x1xf32>
  %n = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %init) -> (!phobos.tile<1x1xf32>) : i32 {
    %x = phobos.load %X[%m, %k] : !phobos.tensor<?x?xf32> -> !phobos.tile<1x64xf32>
    %range = phobos.arange : !phobos.tile<64xi32>
    %cols = phobos.add %k, %range : i32, !phobos.tile<64xi32>
    %in = phobos.cmp lt, %cols, %n : !phobos.tile<64xi32>, i32
    %s = phobos.select %in, %x, %low : !phobos.tile<64xi1>, !phobos.tile<1x64xf32>, f32
    %mx = phobos.reduce max %s along 1 : !phobos.tile<1x64xf32> -> !phobos.tile<1x1xf32>
    %next = phobos.max %acc, %mx : !phobos.tile<1x1xf32>, !phobos.tile<1x1xf32>
    scf.yield %next : !phobos.tile<1x1xf32>
  }
  phobos.store %r, %X[%m, %c0] : !phobos.tile<1x1xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}
