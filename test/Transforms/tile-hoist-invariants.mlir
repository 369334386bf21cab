// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-hoist-invariants))' --split-input-file | FileCheck %s

// Loop-invariant code motion that also moves tile loads out of loops that
// do not write their tensor (masking makes them safe when the loop runs
// zero times; distinct tensor arguments are distinct memory, so a store to
// another tensor does not keep them in); scalar loads stay.

// In a loop that stores nothing, a load with invariant offsets leaves the
// loop; the load that depends on the induction variable stays.
// CHECK-LABEL: phobos.kernel @hoist_load
// CHECK-SAME: (%[[Q:[^:]*]]: !phobos.tensor<?x?xf32>, %[[K:[^:]*]]: !phobos.tensor<?x?xf32>, %[[O:[^:]*]]: !phobos.tensor<?x?xf32>)
// CHECK: %[[Q0:.*]] = phobos.load %[[Q]][%{{.*}}, %{{.*}}] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
// CHECK: scf.for %[[I:[^ ]*]] =
// CHECK-NOT: phobos.load %[[Q]]
// CHECK: %[[KT:.*]] = phobos.load %[[K]][%[[I]], %{{.*}}]
// CHECK: phobos.add %{{.*}}, %[[Q0]]
// CHECK: scf.yield
phobos.kernel @hoist_load(%Q: !phobos.tensor<?x?xf32>, %K: !phobos.tensor<?x?xf32>,
                          %O: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %n = phobos.dim %K[0] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<16x16xf32>
  %r = scf.for %i = %c0 to %n step %c16 iter_args(%acc = %init) -> (!phobos.tile<16x16xf32>) : i32 {
    %q = phobos.load %Q[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
    %k = phobos.load %K[%i, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
    %s = phobos.add %acc, %k : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
    %t = phobos.add %s, %q : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
    scf.yield %t : !phobos.tile<16x16xf32>
  }
  phobos.store %r, %O[%c0, %c0] : !phobos.tile<16x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// The loop stores to the tensor it loads from: the load must see the
// previous iteration's store, so it stays (even though its offsets are
// invariant).
// CHECK-LABEL: phobos.kernel @no_hoist_written
// CHECK-SAME: (%[[X:[^:]*]]: !phobos.tensor<?xf32>)
// CHECK: scf.for
// CHECK-NEXT: %[[T:.*]] = phobos.load %[[X]]
// CHECK-NEXT: %[[U:.*]] = phobos.add %[[T]], %{{.*}}
// CHECK-NEXT: phobos.store %[[U]], %[[X]]
// CHECK-NEXT: }
phobos.kernel @no_hoist_written(%X: !phobos.tensor<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %t = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
    %u = phobos.add %t, %one : !phobos.tile<64xf32>, f32
    phobos.store %u, %X[%c0] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
  }
  phobos.return
}

// -----

// A store to another tensor does not keep the load in (X and Y are
// distinct memory); a store to X nested deeper in the loop (in an scf.if)
// does.
// CHECK-LABEL: phobos.kernel @hoist_other_store
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: phobos.load
// CHECK-NEXT: scf.for
// CHECK-NEXT: phobos.store
// CHECK: scf.for
// CHECK-NEXT: phobos.load
// CHECK: scf.if
// CHECK: phobos.store
phobos.kernel @hoist_other_store(%X: !phobos.tensor<?xf32>, %Y: !phobos.tensor<?xf32>, %flag: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %t = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
    phobos.store %t, %Y[%i] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %t = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
    scf.if %flag {
      phobos.store %t, %X[%i] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
    }
  }
  phobos.return
}

// -----

// A scalar load stays: out of range it is an error in the interpreter, and
// the loop may run zero times. The tile load beside it, in a loop that
// stores nothing, leaves.
// CHECK-LABEL: phobos.kernel @no_hoist_scalar
// CHECK-SAME: (%[[S:[^:]*]]: !phobos.tensor<?xf32>, %[[O:[^:]*]]: !phobos.tensor<?xf32>)
// CHECK-NOT: phobos.load_scalar
// CHECK: %[[T:.*]] = phobos.load %[[S]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[X:.*]] = phobos.load_scalar %[[S]]
// CHECK-NEXT: arith.addf %{{.*}}, %[[X]]
// CHECK-NEXT: phobos.add %{{.*}}, %[[T]]
phobos.kernel @no_hoist_scalar(%S: !phobos.tensor<?xf32>, %O: !phobos.tensor<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %n = phobos.dim %O[0] : !phobos.tensor<?xf32>
  %f = phobos.fill %zero : !phobos.tile<16xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %b = %f) -> (f32, !phobos.tile<16xf32>) : i32 {
    %x = phobos.load_scalar %S[%c0] : !phobos.tensor<?xf32>
    %y = arith.addf %a, %x : f32
    %t = phobos.load %S[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
    %u = phobos.add %b, %t : !phobos.tile<16xf32>, !phobos.tile<16xf32>
    scf.yield %y, %u : f32, !phobos.tile<16xf32>
  }
  phobos.store_scalar %r#0, %O[%c0] : !phobos.tensor<?xf32>
  phobos.store %r#1, %O[%c1] : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
  phobos.return
}

// -----

// Pure arithmetic on loop-invariant values leaves the loop, tile and scalar
// alike, even from a loop that stores; what uses the induction variable
// stays.
// CHECK-LABEL: phobos.kernel @hoist_arith
// CHECK-SAME: (%[[O:[^:]*]]: !phobos.tensor<?xf32>, %[[A:[^:]*]]: f32)
// CHECK: %[[A2:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK: %[[F:.*]] = phobos.fill %[[A2]] : !phobos.tile<64xf32>
// CHECK: %[[E:.*]] = phobos.exp %[[F]] : !phobos.tile<64xf32>
// CHECK: scf.for %[[I:[^ ]*]] =
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[I]]
// CHECK-NEXT: phobos.store %[[E]], %[[O]][%[[OFF]]]
// CHECK-NEXT: }
phobos.kernel @hoist_arith(%O: !phobos.tensor<?xf32>, %a: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c64 = arith.constant 64 : i32
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %a2 = arith.mulf %a, %a : f32
    %f = phobos.fill %a2 : !phobos.tile<64xf32>
    %e = phobos.exp %f : !phobos.tile<64xf32>
    %off = arith.muli %i, %c64 : i32
    phobos.store %e, %O[%off] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
  }
  phobos.return
}

// -----

// Through two levels (loops that only read): the load (and the product of
// it) depends on neither loop's induction variable and leaves both; the
// load that depends on the outer variable leaves only the inner loop.
// CHECK-LABEL: phobos.kernel @hoist_nested
// CHECK-SAME: (%[[W:[^:]*]]: !phobos.tensor<?x?xf32>, %[[X:[^:]*]]: !phobos.tensor<?x?xf32>, %[[O:[^:]*]]: !phobos.tensor<?x?xf32>)
// CHECK: %[[WT:.*]] = phobos.load %[[W]][%{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[W2:.*]] = phobos.mul %[[WT]], %[[WT]]
// CHECK-NEXT: %[[R:.*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[A0:[^ ]*]] = %{{.*}})
// CHECK-NEXT: %[[XT:.*]] = phobos.load %[[X]][%[[I]], %{{.*}}]
// CHECK-NEXT: %[[R2:.*]] = scf.for %[[J:[^ ]*]] = {{.*}} iter_args(%[[A1:[^ ]*]] = %[[A0]])
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[A1]], %[[XT]]
// CHECK-NEXT: %[[T:.*]] = phobos.add %[[S]], %[[W2]]
// CHECK-NEXT: scf.yield %[[T]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[R2]]
// CHECK-NEXT: }
// CHECK-NEXT: phobos.store %[[R]], %[[O]]
phobos.kernel @hoist_nested(%W: !phobos.tensor<?x?xf32>, %X: !phobos.tensor<?x?xf32>,
                            %O: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %m = phobos.dim %X[0] : !phobos.tensor<?x?xf32>
  %n = phobos.dim %X[1] : !phobos.tensor<?x?xf32>
  %init = phobos.fill %zero : !phobos.tile<16x16xf32>
  %r = scf.for %i = %c0 to %m step %c16 iter_args(%a0 = %init) -> (!phobos.tile<16x16xf32>) : i32 {
    %r2 = scf.for %j = %c0 to %n step %c16 iter_args(%a1 = %a0) -> (!phobos.tile<16x16xf32>) : i32 {
      %w = phobos.load %W[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
      %w2 = phobos.mul %w, %w : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
      %x = phobos.load %X[%i, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
      %s = phobos.add %a1, %x : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
      %t = phobos.add %s, %w2 : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
      scf.yield %t : !phobos.tile<16x16xf32>
    }
    scf.yield %r2 : !phobos.tile<16x16xf32>
  }
  phobos.store %r, %O[%c0, %c0] : !phobos.tile<16x16xf32>, !phobos.tensor<?x?xf32>
  phobos.return
}

// -----

// The outer loop stores, the inner one only reads: the load leaves the
// inner loop but stays in the outer one, after the store that precedes it.
// CHECK-LABEL: phobos.kernel @hoist_one_level
// CHECK-SAME: (%[[X:[^:]*]]: !phobos.tensor<?xf32>, %[[O:[^:]*]]: !phobos.tensor<?x?xf32>)
// CHECK: scf.for %[[I:[^ ]*]] =
// CHECK-NEXT: phobos.store %{{.*}}, %[[X]][%[[I]]]
// CHECK-NEXT: %[[XT:.*]] = phobos.load %[[X]]
// CHECK-NEXT: %[[R:.*]] = scf.for
// CHECK-NEXT: phobos.add %{{.*}}, %[[XT]]
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: phobos.store %[[R]], %[[O]][%[[I]], %{{.*}}]
phobos.kernel @hoist_one_level(%X: !phobos.tensor<?xf32>, %O: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %one = arith.constant 1.0 : f32
  %f = phobos.fill %one : !phobos.tile<16xf32>
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    phobos.store %f, %X[%i] : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
    %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %f) -> (!phobos.tile<16xf32>) : i32 {
      %x = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
      %s = phobos.add %a, %x : !phobos.tile<16xf32>, !phobos.tile<16xf32>
      scf.yield %s : !phobos.tile<16xf32>
    }
    phobos.store %r, %O[%i, %c0] {point_axes = array<i64: 0>} : !phobos.tile<16xf32>, !phobos.tensor<?x?xf32>
  }
  phobos.return
}
