// RUN: phobos-translate --import-phobos %s | FileCheck %s

// while cond { body }: an scf.while whose 'before' region computes the
// condition from the carried vars and whose 'after' region is the body.
kernel doubling(o: tensor<i32>[N], n: i32) {
    var k = 1
    var steps = 0
    while k < n {
        k *= 2
        steps += 1
    }
    o[0] = k
    o[1] = steps
}
// CHECK-LABEL: phobos.kernel @doubling
// CHECK-SAME: %[[N:[^:]*]]: i32
// CHECK: %[[K0:.*]] = arith.constant 1 : i32
// CHECK: %[[S0:.*]] = arith.constant 0 : i32
// CHECK: %[[W:.*]]:2 = scf.while (%[[K:.*]] = %[[K0]], %[[S:.*]] = %[[S0]]) : (i32, i32) -> (i32, i32) {
// CHECK-NEXT: %[[C:.*]] = arith.cmpi slt, %[[K]], %[[N]] : i32
// CHECK-NEXT: scf.condition(%[[C]]) %[[K]], %[[S]] : i32, i32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[KB:.*]]: i32, %[[SB:.*]]: i32):
// CHECK: %[[KN:.*]] = arith.muli %[[KB]], %{{.*}} : i32
// CHECK: %[[SN:.*]] = arith.addi %[[SB]], %{{.*}} : i32
// CHECK-NEXT: scf.yield %[[KN]], %[[SN]] : i32, i32
// CHECK: phobos.store_scalar %[[W]]#0
// CHECK: phobos.store_scalar %[[W]]#1

// A loop that carries nothing, with a constant condition.
kernel nothing(c: bool) {
    while c {
        let x = 1
    }
}
// CHECK-LABEL: phobos.kernel @nothing
// CHECK-SAME: (%[[CB:[^:]*]]: i1
// CHECK: scf.while : () -> () {
// CHECK-NEXT: scf.condition(%[[CB]])
// CHECK-NEXT: } do {
