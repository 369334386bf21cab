// RUN: phobos-translate --import-phobos %s | FileCheck %s

// for i in range(start, end): step 1; the end is exclusive (scf.for's upper
// bound). A var assigned in the body is loop-carried (iter_args), and the
// loop's result replaces it afterwards.
kernel two_args(o: tensor<f32>[N], n: i32, x: f32) {
    var acc = 0.0
    for i in range(0, n) {
        acc += x
    }
    o[0] = acc
}
// CHECK-LABEL: phobos.kernel @two_args
// CHECK-SAME: %[[N:[^:]*]]: i32{{.*}}, %[[X:[^:]*]]: f32
// CHECK: %[[INIT:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[LB:.*]] = arith.constant 0 : i32
// CHECK: %[[STEP:.*]] = arith.constant 1 : i32
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %[[LB]] to %[[N]] step %[[STEP]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) : i32 {
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: scf.yield %[[NEXT]] : f32
// CHECK-NEXT: }
// CHECK: phobos.store_scalar %[[R]]

// With a step: a positive compile-time constant (a literal, an @autotune
// name or arithmetic on them). The induction variable is usable in the body.
@autotune(S in [4, 8])
kernel three_args(o: tensor<i32>[N], n: i32) {
    var k = 0
    for j in range(1, n, S) {
        k = k + j
    }
    for j in range(0, n, 2 * S) {
    }
    o[0] = k
}
// CHECK-LABEL: phobos.kernel @three_args
// CHECK: %[[K0:.*]] = arith.constant 0 : i32
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[S:.*]] = arith.constant 4 : i32
// CHECK: %[[K:.*]] = scf.for %[[J:[^ ]*]] = %[[ONE]] to %{{.*}} step %[[S]] iter_args(%[[KI:[^ ]*]] = %[[K0]]) -> (i32) : i32 {
// CHECK-NEXT: %[[KN:.*]] = arith.addi %[[KI]], %[[J]] : i32
// CHECK-NEXT: scf.yield %[[KN]] : i32
// CHECK: %[[S8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S8]] : i32 {
// CHECK: phobos.store_scalar %[[K]]

// Several carried vars, in the order the body first assigns them; a var
// only read in the body is not carried; a var declared in the body is local.
// Nested loops carry the outer var through both.
kernel carried(o: tensor<f32>[N], n: i32, x: f32) {
    var a = 0.0
    var b = 1.0
    let c = 2.0
    for i in range(0, n) {
        var local = c
        b = b * x
        a = a + local
        for j in range(0, 4) {
            a += 1.0
        }
    }
    o[0] = a
    o[1] = b
}
// CHECK-LABEL: phobos.kernel @carried
// CHECK: %[[A0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[B0:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[OUT:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[B0]], %[[A:.*]] = %[[A0]]) -> (f32, f32) : i32 {
// CHECK: %[[BN:.*]] = arith.mulf %[[B]], %{{.*}} : f32
// CHECK: %[[AN:.*]] = arith.addf %[[A]], %[[C]] : f32
// CHECK: %[[INNER:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[AI:.*]] = %[[AN]]) -> (f32) : i32 {
// CHECK: arith.addf %[[AI]], %{{.*}} : f32
// CHECK: scf.yield %[[BN]], %[[INNER]] : f32, f32
// CHECK: phobos.store_scalar %[[OUT]]#1
// CHECK: phobos.store_scalar %[[OUT]]#0

// A tile accumulator is carried like a scalar.
kernel tile_acc(A: tensor<f32>[M, K], B: tensor<f32>[K, 16], C: tensor<f32>[M, 16]) {
    var acc: tile<f32>[16, 16] = 0.0
    for k in range(0, K, 8) {
        acc += dot(A[0 :+ 16, k :+ 8], B[k :+ 8, :])
    }
    C[0 :+ 16, :] = acc
}
// CHECK-LABEL: phobos.kernel @tile_acc
// CHECK: %[[Z:.*]] = phobos.fill %{{.*}} : !phobos.tile<16x16xf32>
// CHECK: %[[KDIM:.*]] = phobos.dim %{{.*}}[1] : !phobos.tensor<?x?xf32>
// CHECK: %[[RES:.*]] = scf.for %{{.*}} = %{{.*}} to %[[KDIM]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (!phobos.tile<16x16xf32>) : i32 {
// CHECK: %[[D:.*]] = phobos.dot {{.*}} -> !phobos.tile<16x16xf32>
// CHECK-NEXT: %[[SUM:.*]] = phobos.add %[[ACC]], %[[D]]
// CHECK-NEXT: scf.yield %[[SUM]] : !phobos.tile<16x16xf32>
// CHECK: phobos.store %[[RES]]

// An i64 bound makes the induction variable i64.
kernel wide(n: i64) {
    for i in range(0, n) {
    }
}
// CHECK-LABEL: phobos.kernel @wide
// CHECK-SAME: (%[[W:[^:]*]]: i64
// CHECK: %[[WLB:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: scf.for %{{.*}} = %[[WLB]] to %[[W]] step %{{.*}} : i64 {
