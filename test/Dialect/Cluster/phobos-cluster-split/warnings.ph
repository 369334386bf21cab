// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s

// Accepted, with warnings: an @cluster name that cuts nothing, and a
// ctx.block used other than as a super-tile offset, which in the leaf counts
// CTAs inside the super-tile (no ctx field names the super-tile).

// CHECK: warnings.ph:[[# @LINE + 4]]:8: warning: @cluster name 'SPARE' cuts nothing: no super-tile slice or cluster loop uses it
// CHECK: warnings.ph:[[# @LINE + 5]]:15: warning: ctx.block.x is used here other than as a super-tile offset; in the leaf it counts CTAs inside the super-tile, not super-tiles
@cluster(BLOCK in [1048576, 16777216], SPARE in [64])
@autotune(BLOCK in [16, 4096], SPARE in [8])
kernel positions(a: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  let index = f32(ctx.block.x)
  c[base :+ BLOCK] = a[base :+ BLOCK] + index
}
