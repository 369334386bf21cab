// RUN: phobos-translate --import-phobos %s | FileCheck %s

// `=` and the compound assignments on scalar vars: each is the operator on
// the current value, then the new value replaces the name's SSA value.
kernel scalars(o: tensor<f32>[N], x: f32) {
    var v = x
    v += 1.0
    v -= 2.0
    v *= 3.0
    v /= 4.0
    v = v + x
    o[0] = v
}
// CHECK-LABEL: phobos.kernel @scalars
// CHECK-SAME: %[[X:[^:]*]]: f32
// CHECK: %[[V1:.*]] = arith.addf %[[X]], %{{.*}} : f32
// CHECK: %[[V2:.*]] = arith.subf %[[V1]], %{{.*}} : f32
// CHECK: %[[V3:.*]] = arith.mulf %[[V2]], %{{.*}} : f32
// CHECK: %[[V4:.*]] = arith.divf %[[V3]], %{{.*}} : f32
// CHECK: %[[V5:.*]] = arith.addf %[[V4]], %[[X]] : f32
// CHECK: phobos.store_scalar %[[V5]]

// Integer vars use the integer ops; an int var += a float is an error (see
// Sema/assignment.ph), a float var += an int converts the int.
kernel ints(o: tensor<i32>[N], f: tensor<f32>[N], n: i32) {
    var k = n
    k += 1
    k -= 2
    k *= 3
    k /= 4
    var y = 0.5
    y += k
    o[0] = k
    f[0] = y
}
// CHECK-LABEL: phobos.kernel @ints
// CHECK-SAME: %[[N:[^:]*]]: i32
// CHECK: %[[K1:.*]] = arith.addi %[[N]], %{{.*}} : i32
// CHECK: %[[K2:.*]] = arith.subi %[[K1]], %{{.*}} : i32
// CHECK: %[[K3:.*]] = arith.muli %[[K2]], %{{.*}} : i32
// CHECK: %[[K4:.*]] = arith.divsi %[[K3]], %{{.*}} : i32
// CHECK: %[[KF:.*]] = arith.sitofp %[[K4]] : i32 to f32
// CHECK: %[[Y:.*]] = arith.addf %{{.*}}, %[[KF]] : f32
// CHECK: phobos.store_scalar %[[K4]]
// CHECK: phobos.store_scalar %[[Y]]

// Tile vars: the phobos element-wise ops, with broadcasting of scalars and
// of extent-1 axes; `=` of a scalar to a tile var fills it.
kernel tiles(A: tensor<f32>[M, 16], x: f32) {
    var t: tile<f32>[8, 16] = 0.0
    let r = A[0 :+ 8, 0 :+ 1]
    t += A[0 :+ 8, :]
    t -= r
    t *= x
    t /= 2.0
    t = 5.0
    A[0 :+ 8, :] = t
}
// CHECK-LABEL: phobos.kernel @tiles
// CHECK-SAME: %[[TA:[^:]*]]: !phobos.tensor<?x16xf32> {{.*}}, %[[TX:[^:]*]]: f32
// CHECK: %[[T0:.*]] = phobos.fill %{{.*}} : !phobos.tile<8x16xf32>
// CHECK: %[[R:.*]] = phobos.load {{.*}} -> !phobos.tile<8x1xf32>
// CHECK: %[[L:.*]] = phobos.load {{.*}} -> !phobos.tile<8x16xf32>
// CHECK: %[[T1:.*]] = phobos.add %[[T0]], %[[L]] : !phobos.tile<8x16xf32>, !phobos.tile<8x16xf32>
// CHECK: %[[T2:.*]] = phobos.sub %[[T1]], %[[R]] : !phobos.tile<8x16xf32>, !phobos.tile<8x1xf32>
// CHECK: %[[T3:.*]] = phobos.mul %[[T2]], %[[TX]] : !phobos.tile<8x16xf32>, f32
// CHECK: %[[T4:.*]] = phobos.div %[[T3]], %{{.*}} : !phobos.tile<8x16xf32>, f32
// CHECK: %[[FIVE:.*]] = arith.constant 5.000000e+00 : f32
// CHECK: %[[T5:.*]] = phobos.fill %[[FIVE]] : !phobos.tile<8x16xf32>
// CHECK: phobos.store %[[T5]], %[[TA]]
