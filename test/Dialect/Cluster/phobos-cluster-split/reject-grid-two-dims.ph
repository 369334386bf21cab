// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A grid axis cuts one dim.

// CHECK: reject-grid-two-dims.ph:[[# @LINE + 5]]:{{[0-9]+}}: error: ctx.block.x cuts dim 'N' here but dim 'M' elsewhere; a grid axis cuts one dim
@cluster(BLOCK in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel copy(a: tensor<f32>[M], b: tensor<f32>[N], c: tensor<f32>[M]) {
  let base = ctx.block.x * BLOCK
  c[base :+ BLOCK] = a[base :+ BLOCK] + b[base :+ BLOCK]
}
