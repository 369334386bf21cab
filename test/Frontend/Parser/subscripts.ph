// RUN: phobos-translate --import-phobos %s | FileCheck %s

// Slices: `s : e` (length e - s, a compile-time constant), `s :+ n` (length
// n), `:` (the whole axis, of a static extent). The offsets of the load are
// the slice starts (0 for ':'); the tile's shape is the lengths.
@autotune(T in [16, 32])
kernel slices(A: tensor<f32>[M, 64], n: i32) {
    let i = ctx.block.x
    let s0 = A[i : i + 4, 0 :+ 8]
    let s1 = A[i * 8 : (i + 1) * 8, :]
    let s2 = A[n :+ T, 2 * T : 3 * T]
    let s3 = A[3 : 5, 10 : 42]
}
// CHECK-LABEL: phobos.kernel @slices
// CHECK-SAME: (%[[A:[^:]*]]: !phobos.tensor<?x64xf32> {{.*}}, %[[N:[^:]*]]: i32
// CHECK: %[[I:.*]] = phobos.block_id x
// CHECK: %[[Z0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: phobos.load %[[A]][%[[I]], %[[Z0]]] : !phobos.tensor<?x64xf32> -> !phobos.tile<4x8xf32>
// CHECK: %[[I8:.*]] = arith.muli %[[I]], %{{.*}} : i32
// CHECK-NEXT: %[[Z1:.*]] = arith.constant 0 : i32
// CHECK-NEXT: phobos.load %[[A]][%[[I8]], %[[Z1]]] : !phobos.tensor<?x64xf32> -> !phobos.tile<8x64xf32>
// CHECK: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[T:.*]] = arith.constant 16 : i32
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[C2]], %[[T]] : i32
// CHECK-NEXT: phobos.load %[[A]][%[[N]], %[[OFF]]] : !phobos.tensor<?x64xf32> -> !phobos.tile<16x16xf32>
// CHECK: phobos.load %[[A]][{{.*}}] : !phobos.tensor<?x64xf32> -> !phobos.tile<2x32xf32>

// A point on some axes and a slice on others: the point axes are listed in
// point_axes and dropped from the tile's shape, for loads and for stores.
kernel points(Q: tensor<f32>[B, M, 64], O: tensor<f32>[B, M, 64], b: i32) {
    let row = ctx.block.x * 16
    let q = Q[b, row :+ 16, :]
    O[b, row :+ 16, :] = q
    let col = Q[b, 0 :+ 4, 7]
    let one = Q[b, 3, 0 :+ 8]
}
// CHECK-LABEL: phobos.kernel @points
// CHECK-SAME: (%[[Q:[^:]*]]: !phobos.tensor<?x?x64xf32> {{.*}}, %[[O:[^:]*]]: !phobos.tensor<?x?x64xf32> {{.*}}, %[[B:[^:]*]]: i32
// CHECK: %[[ROW:.*]] = arith.muli
// CHECK: %[[QT:.*]] = phobos.load %[[Q]][%[[B]], %[[ROW]], %{{.*}}] {point_axes = array<i64: 0>} : !phobos.tensor<?x?x64xf32> -> !phobos.tile<16x64xf32>
// CHECK: phobos.store %[[QT]], %[[O]][%[[B]], %[[ROW]], %{{.*}}] {point_axes = array<i64: 0>} : !phobos.tile<16x64xf32>, !phobos.tensor<?x?x64xf32>
// CHECK: phobos.load %[[Q]][%[[B]], %{{.*}}, %{{.*}}] {point_axes = array<i64: 0, 2>} : !phobos.tensor<?x?x64xf32> -> !phobos.tile<4xf32>
// CHECK: phobos.load %[[Q]][%[[B]], %{{.*}}, %{{.*}}] {point_axes = array<i64: 0, 1>} : !phobos.tensor<?x?x64xf32> -> !phobos.tile<8xf32>

// A point on every axis is one element: phobos.load_scalar and
// phobos.store_scalar.
kernel scalars(A: tensor<i32>[M, N], i: i32, j: i32) {
    let e = A[i, j]
    A[j, i] = e * 2
    A[i + 1, 0] = A[0, j - 1]
}
// CHECK-LABEL: phobos.kernel @scalars
// CHECK-SAME: (%[[SA:[^:]*]]: !phobos.tensor<?x?xi32> {{.*}}, %[[SI:[^:]*]]: i32{{.*}}, %[[SJ:[^:]*]]: i32
// CHECK: %[[E:.*]] = phobos.load_scalar %[[SA]][%[[SI]], %[[SJ]]] : !phobos.tensor<?x?xi32>
// CHECK: %[[E2:.*]] = arith.muli %[[E]], %{{.*}} : i32
// CHECK-NEXT: phobos.store_scalar %[[E2]], %[[SA]][%[[SJ]], %[[SI]]] : !phobos.tensor<?x?xi32>
// CHECK: %[[JM1:.*]] = arith.subi %[[SJ]], %{{.*}} : i32
// CHECK-NEXT: %[[E3:.*]] = phobos.load_scalar %[[SA]][%{{.*}}, %[[JM1]]]
// CHECK: %[[I1:.*]] = arith.addi %[[SI]], %{{.*}} : i32
// CHECK: phobos.store_scalar %[[E3]], %[[SA]][%[[I1]], %{{.*}}]

// A tensor dim name used as a value reads the extent bound at launch.
kernel dims(A: tensor<f32>[M, N], o: tensor<i32>[K]) {
    o[0] = M + N
    o[1] = K
}
// CHECK-LABEL: phobos.kernel @dims
// CHECK-SAME: (%[[DA:[^:]*]]: !phobos.tensor<?x?xf32> {{.*}}, %[[DO:[^:]*]]: !phobos.tensor<?xi32> {{.*}})
// CHECK: %[[M:.*]] = phobos.dim %[[DA]][0] : !phobos.tensor<?x?xf32>
// CHECK-NEXT: %[[DN:.*]] = phobos.dim %[[DA]][1] : !phobos.tensor<?x?xf32>
// CHECK-NEXT: arith.addi %[[M]], %[[DN]] : i32
// CHECK: phobos.dim %[[DO]][0] : !phobos.tensor<?xi32>

// program_id(n) counts as ctx.block.<axis> when proving that e - s is a
// constant, so both spellings may be mixed in a slice.
kernel spelled(A: tensor<f32>[N]) {
    let t = A[program_id(0) * 4 : program_id(0) * 4 + 4]
    let u = A[ctx.block.x * 8 : program_id(0) * 8 + 8]
}
// CHECK-LABEL: phobos.kernel @spelled
// CHECK: phobos.load {{.*}} -> !phobos.tile<4xf32>
// CHECK: phobos.load {{.*}} -> !phobos.tile<8xf32>
