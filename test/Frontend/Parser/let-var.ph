// RUN: phobos-translate --import-phobos %s | FileCheck %s

// let and var, with and without a declared type. Without a type the name
// takes the initialiser's type; with one, the initialiser is converted
// (filled into a tile, widened, broadcast).
kernel bindings(A: tensor<f32>[M, 32], x: f32, n: i32) {
    let a = n
    var b = x
    let c: f64 = x
    var d: i64 = n
    let t = A[0 :+ 4, :]
    var u: tile<f32>[4, 32] = t
    var z: tile<f32>[4, 32] = 0.0
    let r: tile<f32>[4, 32] = A[0 :+ 4, 0 :+ 1]
    let h: tile<f16>[4, 32] = t
    b = b + 1.0
    A[0, 0] = b
}
// CHECK-LABEL: phobos.kernel @bindings
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tensor<?x32xf32> {{.*}}, %[[X:[^:]*]]: f32{{.*}}, %[[N:[^:]*]]: i32
// CHECK-NEXT: arith.extf %[[X]] : f32 to f64
// CHECK-NEXT: arith.extsi %[[N]] : i32 to i64
// CHECK: %[[T:.*]] = phobos.load %[[A]][{{.*}}] : !phobos.tensor<?x32xf32> -> !phobos.tile<4x32xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: phobos.fill %[[ZERO]] : !phobos.tile<4x32xf32>
// CHECK: %[[COL:.*]] = phobos.load %[[A]][{{.*}}] : !phobos.tensor<?x32xf32> -> !phobos.tile<4x1xf32>
// CHECK-NEXT: phobos.broadcast %[[COL]] : !phobos.tile<4x1xf32> -> !phobos.tile<4x32xf32>
// CHECK-NEXT: phobos.cast %[[T]] : !phobos.tile<4x32xf32> to !phobos.tile<4x32xf16>
// CHECK: %[[B:.*]] = arith.addf %[[X]], %{{.*}} : f32
// CHECK: phobos.store_scalar %[[B]], %[[A]]
