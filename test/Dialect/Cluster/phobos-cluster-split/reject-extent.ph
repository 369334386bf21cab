// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// The super-tile slice ctx.block.x * S must have extent S.

// CHECK: reject-extent.ph:[[# @LINE + 5]]:20: error: a super-tile slice of 'a' (axis 0) at ctx.block.x * BLOCK must have extent BLOCK; write [ctx.block.x * BLOCK :+ BLOCK]
@cluster(BLOCK in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel add(a: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  c[base :+ 16] = a[base :+ 16]
}
