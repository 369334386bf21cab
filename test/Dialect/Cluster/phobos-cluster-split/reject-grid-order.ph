// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// The grid axes are used in order: ctx.block.y needs ctx.block.x.

// CHECK: reject-grid-order.ph:[[# @LINE + 3]]:8: error: the super-tile grid uses ctx.block.y without ctx.block.x; use the grid axes in order
@cluster(BLOCK in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel add(a: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.y * BLOCK
  c[base :+ BLOCK] = a[base :+ BLOCK]
}
