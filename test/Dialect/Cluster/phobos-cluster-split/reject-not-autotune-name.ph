// RUN: not phobos-translate --import-phobos %s --cluster 2>&1 | FileCheck %s

// Seed 003: every @cluster name is also an @autotune name (the front end).

// CHECK: reject-not-autotune-name.ph:[[# @LINE + 1]]:10: error: @cluster dimension 'SUPER' is not an @autotune name
@cluster(SUPER in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel add(a: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  c[base :+ BLOCK] = a[base :+ BLOCK]
}
