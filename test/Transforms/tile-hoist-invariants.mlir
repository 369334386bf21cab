// RUN: phobos-opt %s --pass-pipeline='builtin.module(phobos.kernel(tile-hoist-invariants))' --split-input-file | FileCheck %s

// Loop-invariant code motion that also moves tile loads whose tensor no
// store in the loop writes (masking makes them safe when the loop runs zero
// times); scalar loads stay.

// A load of a tensor the loop only reads leaves the loop; the load that
// depends on the induction variable stays.
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

// A store nested deeper in the loop (in an scf.if) counts as well.
// CHECK-LABEL: phobos.kernel @no_hoist_nested_store
// CHECK: scf.for
// CHECK-NEXT: phobos.load
// CHECK: scf.if
// CHECK: phobos.store
phobos.kernel @no_hoist_nested_store(%X: !phobos.tensor<?xf32>, %Y: !phobos.tensor<?xf32>, %flag: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    %t = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<64xf32>
    phobos.store %t, %Y[%c0] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
    scf.if %flag {
      phobos.store %t, %X[%c0] : !phobos.tile<64xf32>, !phobos.tensor<?xf32>
    }
  }
  phobos.return
}

// -----

// A scalar load stays: out of range it is an error in the interpreter, and
// the loop may run zero times.
// CHECK-LABEL: phobos.kernel @no_hoist_scalar
// CHECK-SAME: (%[[S:[^:]*]]: !phobos.tensor<?xf32>, %[[O:[^:]*]]: !phobos.tensor<?xf32>)
// CHECK-NOT: phobos.load_scalar
// CHECK: scf.for
// CHECK-NEXT: phobos.load_scalar %[[S]]
phobos.kernel @no_hoist_scalar(%S: !phobos.tensor<?xf32>, %O: !phobos.tensor<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = phobos.dim %O[0] : !phobos.tensor<?xf32>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %s = phobos.load_scalar %S[%c0] : !phobos.tensor<?xf32>
    phobos.store_scalar %s, %O[%i] : !phobos.tensor<?xf32>
  }
  phobos.return
}

// -----

// Pure arithmetic on loop-invariant values leaves the loop, tile and scalar
// alike; what uses the induction variable stays.
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

// Through two levels: the load (and the product of it) depends on neither
// loop's induction variable and leaves both; the load that depends on the
// outer variable, and the sum that uses it, leave only the inner loop.
// CHECK-LABEL: phobos.kernel @hoist_nested
// CHECK-SAME: (%[[W:[^:]*]]: !phobos.tensor<?x?xf32>, %[[X:[^:]*]]: !phobos.tensor<?x?xf32>, %[[O:[^:]*]]: !phobos.tensor<?x?xf32>)
// CHECK: %[[WT:.*]] = phobos.load %[[W]][%{{.*}}, %{{.*}}]
// CHECK-NEXT: %[[W2:.*]] = phobos.mul %[[WT]], %[[WT]]
// CHECK-NEXT: scf.for %[[I:[^ ]*]] =
// CHECK-NEXT: %[[XT:.*]] = phobos.load %[[X]][%[[I]], %{{.*}}]
// CHECK-NEXT: %[[S:.*]] = phobos.add %[[XT]], %[[W2]]
// CHECK-NEXT: scf.for %[[J:[^ ]*]] =
// CHECK-NEXT: phobos.store %[[S]], %[[O]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
phobos.kernel @hoist_nested(%W: !phobos.tensor<?x?xf32>, %X: !phobos.tensor<?x?xf32>,
                            %O: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %m = phobos.dim %O[0] : !phobos.tensor<?x?xf32>
  %n = phobos.dim %O[1] : !phobos.tensor<?x?xf32>
  scf.for %i = %c0 to %m step %c16 : i32 {
    scf.for %j = %c0 to %n step %c16 : i32 {
      %w = phobos.load %W[%c0, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
      %w2 = phobos.mul %w, %w : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
      %x = phobos.load %X[%i, %c0] : !phobos.tensor<?x?xf32> -> !phobos.tile<16x16xf32>
      %s = phobos.add %x, %w2 : !phobos.tile<16x16xf32>, !phobos.tile<16x16xf32>
      phobos.store %s, %O[%i, %j] : !phobos.tile<16x16xf32>, !phobos.tensor<?x?xf32>
    }
  }
  phobos.return
}

// -----

// The outer loop writes the tensor the inner loop reads: the load leaves the
// inner loop (which does not write it) but stays in the outer one, after
// the store that precedes it.
// CHECK-LABEL: phobos.kernel @hoist_one_level
// CHECK-SAME: (%[[X:[^:]*]]: !phobos.tensor<?xf32>, %[[O:[^:]*]]: !phobos.tensor<?x?xf32>)
// CHECK: scf.for %[[I:[^ ]*]] =
// CHECK-NEXT: phobos.store %{{.*}}, %[[X]]
// CHECK-NEXT: %[[XT:.*]] = phobos.load %[[X]]
// CHECK-NEXT: scf.for %[[J:[^ ]*]] =
// CHECK-NEXT: phobos.store %[[XT]], %[[O]][%[[I]], %[[J]]]
phobos.kernel @hoist_one_level(%X: !phobos.tensor<?xf32>, %O: !phobos.tensor<?x?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %c16 = arith.constant 16 : i32
  %one = arith.constant 1.0 : f32
  %f = phobos.fill %one : !phobos.tile<16xf32>
  scf.for %i = %c0 to %c4 step %c1 : i32 {
    phobos.store %f, %X[%i] : !phobos.tile<16xf32>, !phobos.tensor<?xf32>
    scf.for %j = %c0 to %c4 step %c1 : i32 {
      %x = phobos.load %X[%c0] : !phobos.tensor<?xf32> -> !phobos.tile<16xf32>
      phobos.store %x, %O[%i, %j] {point_axes = array<i64: 0>} : !phobos.tile<16xf32>, !phobos.tensor<?x?xf32>
    }
  }
  phobos.return
}
