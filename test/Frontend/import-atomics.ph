// RUN: phobos-translate --import-phobos %s | FileCheck %s
// atomic_add on a slice, a broadcast value, a point axis and one element.

// CHECK-LABEL: phobos.kernel @partial_sums
kernel partial_sums(X: tensor<f32>[M, N], DW: tensor<f32>[G, N], Count: tensor<i32>[G]) {
    let row = ctx.block.x
    let g = row % G
    let x = X[row, 0 :+ 64]
    // CHECK: phobos.atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {point_axes = array<i64: 0>} : !phobos.tile<64xf32>, !phobos.tensor<?x?xf32>
    atomic_add(DW[g, 0 :+ 64], x * x)
    // CHECK: phobos.atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !phobos.tile<2x64xf32>, !phobos.tensor<?x?xf32>
    atomic_add(DW[0 :+ 2, 0 :+ 64], 1.0)
    // CHECK: phobos.atomic_add %{{.*}}, %{{.*}}[%{{.*}}] {point_axes = array<i64: 0>} : i32, !phobos.tensor<?xi32>
    atomic_add(Count[g], 1)
}
