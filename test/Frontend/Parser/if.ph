// RUN: phobos-translate --import-phobos %s | FileCheck %s

// if / else if / else: an scf.if per 'if'; 'else if' nests one in the else
// region. Vars assigned in a branch are the results of the scf.if; a branch
// that does not assign one yields its value from before.
kernel chain(o: tensor<f32>[N], x: f32) {
    var v = 0.0
    if x > 0.0 {
        v = 1.0
    } else if x < 0.0 {
        v = 2.0
    } else {
        v -= 3.0
    }
    o[0] = v
}
// CHECK-LABEL: phobos.kernel @chain
// CHECK-SAME: %[[X:[^:]*]]: f32
// CHECK: %[[V0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[C1:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : f32
// CHECK-NEXT: %[[R:.*]] = scf.if %[[C1]] -> (f32) {
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: scf.yield %[[ONE]] : f32
// CHECK-NEXT: } else {
// CHECK: %[[C2:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK-NEXT: %[[R2:.*]] = scf.if %[[C2]] -> (f32) {
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: scf.yield %[[TWO]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[SUB:.*]] = arith.subf %[[V0]], %[[THREE]] : f32
// CHECK-NEXT: scf.yield %[[SUB]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[R2]] : f32
// CHECK-NEXT: }
// CHECK: phobos.store_scalar %[[R]]

// Without 'else', the else region yields the old values; a var assigned in
// neither branch is not a result.
kernel no_else(o: tensor<i32>[N], c: bool) {
    var a = 1
    var b = 2
    if c {
        a = 10
    }
    o[0] = a
    o[1] = b
}
// CHECK-LABEL: phobos.kernel @no_else
// CHECK-SAME: %[[C:[^:]*]]: i1
// CHECK: %[[A0:.*]] = arith.constant 1 : i32
// CHECK: %[[B0:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[A:.*]] = scf.if %[[C]] -> (i32) {
// CHECK-NEXT: %[[TEN:.*]] = arith.constant 10 : i32
// CHECK-NEXT: scf.yield %[[TEN]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[A0]] : i32
// CHECK-NEXT: }
// CHECK: phobos.store_scalar %[[A]]
// CHECK: phobos.store_scalar %[[B0]]

// An 'if' that assigns no outer var has no results; stores inside it stay
// inside it. Conditions combine with && and ||.
kernel effects(o: tensor<i32>[N], p: bool, q: bool) {
    if p && q || !p {
        o[0] = 1
    }
}
// CHECK-LABEL: phobos.kernel @effects
// CHECK: %[[COND:.*]] = arith.ori
// CHECK-NEXT: scf.if %[[COND]] {
// CHECK: phobos.store_scalar
// CHECK: }

// A tile var assigned in an 'if' inside a loop is carried by both.
kernel nested(A: tensor<f32>[M, 16], n: i32) {
    var t: tile<f32>[4, 16] = 0.0
    for i in range(0, n) {
        if i % 2 == 0 {
            t += A[i :+ 4, :]
        }
    }
    A[0 :+ 4, :] = t
}
// CHECK-LABEL: phobos.kernel @nested
// CHECK: %[[T0:.*]] = phobos.fill
// CHECK: %[[LOOP:.*]] = scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:[^ ]*]] = %[[T0]]) -> (!phobos.tile<4x16xf32>)
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (!phobos.tile<4x16xf32>) {
// CHECK: %[[L:.*]] = phobos.load %{{.*}}[%[[I]], %{{.*}}]
// CHECK-NEXT: %[[ADD:.*]] = phobos.add %[[T]], %[[L]]
// CHECK-NEXT: scf.yield %[[ADD]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[T]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[IF]]
// CHECK: phobos.store %[[LOOP]]
