// RUN: phobos-translate --import-phobos %s | FileCheck %s

// On tiles the operators are phobos element-wise ops, with NumPy
// broadcasting of extent-1 axes and of scalars on either side.
kernel elementwise(A: tensor<f32>[M, 32], I: tensor<i32>[M, 32], x: f32) {
    let a = A[0 :+ 8, :]
    let r = A[0 :+ 8, 0 :+ 1]
    let v = A[0, :]
    let i = I[0 :+ 8, :]
    let s0 = a + r
    let s1 = a - v
    let s2 = x * a
    let s3 = a / 2.0
    let s4 = i % 3
    let s5 = -a
    let c0 = a < r
    let c1 = a <= x
    let c2 = a > 0.0
    let c3 = a >= a
    let c4 = i == 1
    let c5 = i != i
    let b0 = c0 && c1
    let b1 = c2 || !c3
}
// CHECK-LABEL: phobos.kernel @elementwise
// CHECK-SAME: %[[X:[^:]*]]: f32
// CHECK: %[[A:.*]] = phobos.load {{.*}} -> !phobos.tile<8x32xf32>
// CHECK: %[[R:.*]] = phobos.load {{.*}} -> !phobos.tile<8x1xf32>
// CHECK: %[[V:.*]] = phobos.load {{.*}} {point_axes = array<i64: 0>} {{.*}} -> !phobos.tile<32xf32>
// CHECK: %[[I:.*]] = phobos.load {{.*}} -> !phobos.tile<8x32xi32>
// CHECK: phobos.add %[[A]], %[[R]] : !phobos.tile<8x32xf32>, !phobos.tile<8x1xf32>
// CHECK: phobos.sub %[[A]], %[[V]] : !phobos.tile<8x32xf32>, !phobos.tile<32xf32>
// CHECK: phobos.mul %[[X]], %[[A]] : f32, !phobos.tile<8x32xf32>
// CHECK: phobos.div %[[A]], %{{.*}} : !phobos.tile<8x32xf32>, f32
// CHECK: phobos.rem %[[I]], %{{.*}} : !phobos.tile<8x32xi32>, i32
// CHECK: phobos.neg %[[A]] : !phobos.tile<8x32xf32>
// CHECK: %[[C0:.*]] = phobos.cmp lt, %[[A]], %[[R]] : !phobos.tile<8x32xf32>, !phobos.tile<8x1xf32>
// CHECK: %[[C1:.*]] = phobos.cmp le, %[[A]], %[[X]] : !phobos.tile<8x32xf32>, f32
// CHECK: %[[C2:.*]] = phobos.cmp gt, %[[A]], %{{.*}} : !phobos.tile<8x32xf32>, f32
// CHECK: %[[C3:.*]] = phobos.cmp ge, %[[A]], %[[A]] : !phobos.tile<8x32xf32>, !phobos.tile<8x32xf32>
// CHECK: phobos.cmp eq, %[[I]], %{{.*}} : !phobos.tile<8x32xi32>, i32
// CHECK: phobos.cmp ne, %[[I]], %[[I]] : !phobos.tile<8x32xi32>, !phobos.tile<8x32xi32>
// CHECK: phobos.and %[[C0]], %[[C1]] : !phobos.tile<8x32xi1>, !phobos.tile<8x32xi1>
// CHECK: %[[N3:.*]] = phobos.not %[[C3]] : !phobos.tile<8x32xi1>
// CHECK-NEXT: phobos.or %[[C2]], %[[N3]] : !phobos.tile<8x32xi1>, !phobos.tile<8x32xi1>

// Mixed precision widens: f16 tile with f32 (tile, scalar or literal) is
// f32, through a phobos.cast of the f16 side; f16 with bf16 is f32; an int
// tile with a float scalar is a float tile.
kernel mixed(H: tensor<f16>[M, 16], G: tensor<bf16>[M, 16], F: tensor<f32>[M, 16], I: tensor<i32>[M, 16], x: f32) {
    let h = H[0 :+ 4, :]
    let g = G[0 :+ 4, :]
    let f = F[0 :+ 4, :]
    let i = I[0 :+ 4, :]
    let m0 = h + f
    let m1 = h * x
    let m2 = h - 1.0
    let m3 = h + g
    let m4 = i * 0.5
    let m5 = h + h
}
// CHECK-LABEL: phobos.kernel @mixed
// CHECK-SAME: %[[MX:[^:]*]]: f32
// CHECK: %[[H:.*]] = phobos.load {{.*}} -> !phobos.tile<4x16xf16>
// CHECK: %[[G:.*]] = phobos.load {{.*}} -> !phobos.tile<4x16xbf16>
// CHECK: %[[F:.*]] = phobos.load {{.*}} -> !phobos.tile<4x16xf32>
// CHECK: %[[I:.*]] = phobos.load {{.*}} -> !phobos.tile<4x16xi32>
// CHECK: %[[HW0:.*]] = phobos.cast %[[H]] : !phobos.tile<4x16xf16> to !phobos.tile<4x16xf32>
// CHECK-NEXT: phobos.add %[[HW0]], %[[F]] : !phobos.tile<4x16xf32>, !phobos.tile<4x16xf32>
// CHECK: %[[HW1:.*]] = phobos.cast %[[H]] : !phobos.tile<4x16xf16> to !phobos.tile<4x16xf32>
// CHECK-NEXT: phobos.mul %[[HW1]], %[[MX]] : !phobos.tile<4x16xf32>, f32
// CHECK: %[[HW2:.*]] = phobos.cast %[[H]] : !phobos.tile<4x16xf16> to !phobos.tile<4x16xf32>
// CHECK-NEXT: phobos.sub %[[HW2]], %{{.*}} : !phobos.tile<4x16xf32>, f32
// CHECK: %[[HW3:.*]] = phobos.cast %[[H]] : !phobos.tile<4x16xf16> to !phobos.tile<4x16xf32>
// CHECK-NEXT: %[[GW3:.*]] = phobos.cast %[[G]] : !phobos.tile<4x16xbf16> to !phobos.tile<4x16xf32>
// CHECK-NEXT: phobos.add %[[HW3]], %[[GW3]] : !phobos.tile<4x16xf32>, !phobos.tile<4x16xf32>
// CHECK: %[[IW:.*]] = phobos.cast %[[I]] : !phobos.tile<4x16xi32> to !phobos.tile<4x16xf32>
// CHECK-NEXT: phobos.mul %[[IW]], %{{.*}} : !phobos.tile<4x16xf32>, f32
// Same precision: no cast.
// CHECK-NEXT: phobos.add %[[H]], %[[H]] : !phobos.tile<4x16xf16>, !phobos.tile<4x16xf16>
