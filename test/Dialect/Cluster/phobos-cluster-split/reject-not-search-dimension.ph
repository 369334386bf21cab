// RUN: not phobos-translate --import-phobos %s --cluster 2>&1 | FileCheck %s

// Seed 003: every @cluster argument is a search dimension (the front end).

// CHECK: reject-not-search-dimension.ph:[[# @LINE + 1]]:10: error: @cluster arguments have the form 'NAME in [a, b, ...]'
@cluster(BLOCK = 1048576)
@autotune(BLOCK in [16, 4096])
kernel add(a: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  c[base :+ BLOCK] = a[base :+ BLOCK]
}
