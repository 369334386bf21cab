// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A dim is cut one way: here N by BLOCK along ctx.block.x and by BM along
// ctx.block.y.

// CHECK: reject-dim-cut-twice.ph:[[# @LINE + 6]]:17: error: dim 'N' is cut here by ctx.block.x into BLOCK super-tiles, but differently at reject-dim-cut-twice.ph:[[# @LINE + 6]]:20; a dim is cut one way
@cluster(BLOCK in [1048576, 16777216], BM in [1048576])
@autotune(BLOCK in [16, 4096], BM in [16])
kernel twice(a: tensor<f32>[N], c: tensor<f32>[N]) {
  let x = ctx.block.x * BLOCK
  let y = ctx.block.y * BM
  c[x :+ BLOCK] = a[y :+ BM]
}
