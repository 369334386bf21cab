// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Every unit of work writes its own super-tile: an output is cut along every
// grid axis.

// CHECK: reject-output-not-split.ph:[[# @LINE + 7]]:16: error: tensor 'r' is written by every unit of work along ctx.block.y; each unit must write its own super-tile, so an output is cut along every grid axis
@cluster(BM in [1024, 4096], BN in [1024, 4096])
@autotune(BM in [16], BN in [16])
kernel rows(a: tensor<f32>[M, N], b: tensor<f32>[M], c: tensor<f32>[M, N], r: tensor<f32>[M]) {
  let row = ctx.block.x * BM
  let col = ctx.block.y * BN
  c[row :+ BM, col :+ BN] = a[row :+ BM, col :+ BN]
  r[row :+ BM] = b[row :+ BM]
}
