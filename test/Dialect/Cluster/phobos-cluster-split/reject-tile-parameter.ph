// RUN: not phobos-translate --import-phobos %s --cluster 2>&1 | FileCheck %s

// Seed 003: a tile parameter (the front end rejects it for every kernel).

// CHECK: reject-tile-parameter.ph:[[# @LINE + 3]]:34: error: a kernel parameter cannot be a tile; pass a tensor and slice it
@cluster(BLOCK in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel add(a: tensor<f32>[N], t: tile<f32>[16], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  c[base :+ BLOCK] = a[base :+ BLOCK]
}
