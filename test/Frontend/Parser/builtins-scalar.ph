// RUN: phobos-translate --import-phobos %s | FileCheck %s

// On scalars the element-wise built-ins are math and arith ops.
kernel scalar_builtins(o: tensor<f32>[N], x: f32, n: i32, p: bool) {
    let a = exp(x)
    let b = log(x)
    let c = sqrt(x)
    let d = rsqrt(x)
    let e = abs(x)
    let f = abs(n)
    let g = tmax(x, 1.0)
    let h = tmin(x, 1.0)
    let k = tmax(n, 3)
    let m = tmin(n, 3)
    let w = where(p, x, 2.0)
    let v = where(p, n, 0.5)
}
// CHECK-LABEL: phobos.kernel @scalar_builtins
// CHECK-SAME: %[[X:[^:]*]]: f32{{.*}}, %[[N:[^:]*]]: i32{{.*}}, %[[P:[^:]*]]: i1
// CHECK: math.exp %[[X]] : f32
// CHECK-NEXT: math.log %[[X]] : f32
// CHECK-NEXT: math.sqrt %[[X]] : f32
// CHECK-NEXT: math.rsqrt %[[X]] : f32
// CHECK-NEXT: math.absf %[[X]] : f32
// CHECK-NEXT: math.absi %[[N]] : i32
// CHECK: arith.maximumf %[[X]], %{{.*}} : f32
// CHECK: arith.minimumf %[[X]], %{{.*}} : f32
// CHECK: arith.maxsi %[[N]], %{{.*}} : i32
// CHECK: arith.minsi %[[N]], %{{.*}} : i32
// CHECK: arith.select %[[P]], %[[X]], %{{.*}} : f32
// CHECK: %[[NF:.*]] = arith.sitofp %[[N]] : i32 to f32
// CHECK: arith.select %[[P]], %[[NF]], %{{.*}} : f32
