// RUN: phobos-translate --import-phobos %s --cluster | phobos-opt --phobos-cluster-split | FileCheck %s
// RUN: phobos-translate --import-phobos %s --cluster | phobos-opt --phobos-cluster-split --verify-roundtrip > /dev/null

// The minimal kernel of seed 003, without a cluster loop: one leaf, the
// kernel itself with @cluster removed, and one unit of work per point of the
// super-tile grid, each reading a and b and writing c at its super-tile.

// CHECK-LABEL: phobos_cluster.program @add
// CHECK-SAME: cluster = [#phobos.tune_dim<"BLOCK", [1048576, 2097152, 4194304, 8388608, 16777216]>]
// CHECK-NEXT: phobos_cluster.tensor @a read dims ["N"] split ["BLOCK"] : !phobos.tensor<?xf32>
// CHECK-NEXT: phobos_cluster.tensor @b read dims ["N"] split ["BLOCK"] : !phobos.tensor<?xf32>
// CHECK-NEXT: phobos_cluster.tensor @c write dims ["N"] split ["BLOCK"] : !phobos.tensor<?xf32>
// CHECK-NEXT: phobos_cluster.units (%[[X:.*]]) in ["N" / "BLOCK"] {
// CHECK-NEXT: %[[A:.*]] = phobos_cluster.ref read @a [%[[X]]]
// CHECK-NEXT: %[[B:.*]] = phobos_cluster.ref read @b [%[[X]]]
// CHECK-NEXT: %[[C:.*]] = phobos_cluster.ref write @c [%[[X]]]
// CHECK-NEXT: phobos_cluster.apply @add(%[[A]], %[[B]], %[[C]])
// CHECK-NEXT: }
// The leaf: the @autotune value (BLOCK = 16), no @cluster, no marks.
// CHECK-NEXT: phobos.kernel @add
// CHECK-NOT: cluster
// CHECK-SAME: variant = {BLOCK = 16 : i64}
// CHECK: arith.constant 16 : i32
// CHECK: phobos.load
// CHECK: phobos.load
// CHECK: phobos.add
// CHECK: phobos.store
// CHECK-NOT: phobos_cluster
@cluster(BLOCK in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel add(a: tensor<f32>[N], b: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  c[base :+ BLOCK] = a[base :+ BLOCK] + b[base :+ BLOCK]
}
