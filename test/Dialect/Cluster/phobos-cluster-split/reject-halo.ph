// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Seed 003: a tensor read at two different super-tile coordinates in one
// unit of work would need an exchange of halos between nodes.

// CHECK: reject-halo.ph:[[# @LINE + 5]]:42: error: tensor 'a' is read at two different super-tile coordinates in one unit of work (a halo, which would need an exchange between nodes): along axis 0 a slice must start exactly at the unit's super-tile, ctx.block.<axis> * S or the cluster loop's variable
@cluster(BLOCK in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel shift(a: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  c[base :+ BLOCK] = a[base :+ BLOCK] + a[base + BLOCK :+ BLOCK]
}
