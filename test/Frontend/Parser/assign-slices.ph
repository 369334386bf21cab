// RUN: phobos-translate --import-phobos %s | FileCheck %s

// `T[subscripts] = tile` stores; `T[subscripts] op= v` is a read-modify-write:
// load the slice, apply the operator, store the result back.
kernel stores(A: tensor<f32>[M, N], s: tensor<f32>[M, N], x: f32) {
    let i = ctx.block.x
    let t = s[i :+ 8, 0 :+ 16]
    A[i :+ 8, 0 :+ 16] = t
    A[i :+ 8, 0 :+ 16] += t
    A[i :+ 8, 0 :+ 16] -= x
    A[i :+ 8, 0 :+ 16] *= t
    A[i :+ 8, 0 :+ 16] /= 2.0
}
// CHECK-LABEL: phobos.kernel @stores
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[S:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[X:[^:]*]]: f32
// CHECK: %[[I:.*]] = phobos.block_id x
// CHECK: %[[T:.*]] = phobos.load %[[S]][%[[I]], %{{.*}}] : !phobos.tensor<?x?xf32> -> !phobos.tile<8x16xf32>
// CHECK: phobos.store %[[T]], %[[A]][%[[I]], %{{.*}}] : !phobos.tile<8x16xf32>, !phobos.tensor<?x?xf32>
// `+=`: load, add, store.
// CHECK: %[[L1:.*]] = phobos.load %[[A]][%[[I]], %{{.*}}] : !phobos.tensor<?x?xf32> -> !phobos.tile<8x16xf32>
// CHECK-NEXT: %[[S1:.*]] = phobos.add %[[L1]], %[[T]] : !phobos.tile<8x16xf32>, !phobos.tile<8x16xf32>
// CHECK: phobos.store %[[S1]], %[[A]][%[[I]], %{{.*}}]
// CHECK: %[[L2:.*]] = phobos.load %[[A]]
// CHECK-NEXT: %[[S2:.*]] = phobos.sub %[[L2]], %[[X]] : !phobos.tile<8x16xf32>, f32
// CHECK: phobos.store %[[S2]], %[[A]]
// CHECK: %[[L3:.*]] = phobos.load %[[A]]
// CHECK-NEXT: %[[S3:.*]] = phobos.mul %[[L3]], %[[T]]
// CHECK: phobos.store %[[S3]], %[[A]]
// CHECK: %[[L4:.*]] = phobos.load %[[A]]
// CHECK-NEXT: %[[S4:.*]] = phobos.div %[[L4]], %{{.*}} : !phobos.tile<8x16xf32>, f32
// CHECK: phobos.store %[[S4]], %[[A]]

// What a store converts: a scalar fills the slice's tile, an [R, 1] tile is
// broadcast to [R, C], an f32 tile stored into an f16 tensor is rounded by a
// phobos.cast, and an integer tile into an f32 tensor is converted.
kernel conversions(F: tensor<f32>[M, 64], H: tensor<f16>[M, 64], I: tensor<i32>[M, 64]) {
    let f = F[0 :+ 16, :]
    F[0 :+ 16, :] = 1.0
    F[0 :+ 16, :] = rowsum(f)
    H[0 :+ 16, :] = f
    F[0 :+ 16, :] = I[0 :+ 16, :]
    H[0 :+ 16, :] += f
}
// CHECK-LABEL: phobos.kernel @conversions
// CHECK-SAME: (%[[F:[^:]*]]: !phobos.tensor<?x64xf32> {{.*}}, %[[H:[^:]*]]: !phobos.tensor<?x64xf16> {{.*}}, %[[I:[^:]*]]: !phobos.tensor<?x64xi32> {{.*}})
// CHECK: %[[FT:.*]] = phobos.load %[[F]]
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[FILL:.*]] = phobos.fill %[[ONE]] : !phobos.tile<16x64xf32>
// CHECK: phobos.store %[[FILL]], %[[F]]
// CHECK: %[[ROW:.*]] = phobos.reduce sum %[[FT]] along 1 : !phobos.tile<16x64xf32> -> !phobos.tile<16x1xf32>
// CHECK-NEXT: %[[BC:.*]] = phobos.broadcast %[[ROW]] : !phobos.tile<16x1xf32> -> !phobos.tile<16x64xf32>
// CHECK: phobos.store %[[BC]], %[[F]]
// CHECK: %[[ROUND:.*]] = phobos.cast %[[FT]] : !phobos.tile<16x64xf32> to !phobos.tile<16x64xf16>
// CHECK: phobos.store %[[ROUND]], %[[H]]{{.*}} : !phobos.tile<16x64xf16>, !phobos.tensor<?x64xf16>
// CHECK: %[[IT:.*]] = phobos.load %[[I]]{{.*}} -> !phobos.tile<16x64xi32>
// CHECK-NEXT: %[[ITF:.*]] = phobos.cast %[[IT]] : !phobos.tile<16x64xi32> to !phobos.tile<16x64xf32>
// CHECK: phobos.store %[[ITF]], %[[F]]
// `H[...] += f` computes in f32 (f16 + f32) and rounds on the store.
// CHECK: %[[HL:.*]] = phobos.load %[[H]]{{.*}} -> !phobos.tile<16x64xf16>
// CHECK-NEXT: %[[HW:.*]] = phobos.cast %[[HL]] : !phobos.tile<16x64xf16> to !phobos.tile<16x64xf32>
// CHECK-NEXT: %[[HS:.*]] = phobos.add %[[HW]], %[[FT]] : !phobos.tile<16x64xf32>, !phobos.tile<16x64xf32>
// CHECK-NEXT: %[[HN:.*]] = phobos.cast %[[HS]] : !phobos.tile<16x64xf32> to !phobos.tile<16x64xf16>
// CHECK: phobos.store %[[HN]], %[[H]]

// Single elements: a point on every axis reads and writes a scalar.
kernel elements(A: tensor<f32>[M, N], i: i32, j: i32) {
    A[i, j] = 1.0
    A[i, j] += 2.0
}
// CHECK-LABEL: phobos.kernel @elements
// CHECK-SAME: (%[[EA:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[EI:[^:]*]]: i32{{.*}}, %[[EJ:[^:]*]]: i32
// CHECK: phobos.store_scalar %{{.*}}, %[[EA]][%[[EI]], %[[EJ]]] : !phobos.tensor<?x?xf32>
// CHECK: %[[E:.*]] = phobos.load_scalar %[[EA]][%[[EI]], %[[EJ]]] : !phobos.tensor<?x?xf32>
// CHECK-NEXT: %[[E2:.*]] = arith.addf %[[E]], %{{.*}} : f32
// CHECK: phobos.store_scalar %[[E2]], %[[EA]][%[[EI]], %[[EJ]]]
