// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Seed 003: a loop inside the leaf must start at 0.

// CHECK: reject-loop-start.ph:[[# @LINE + 6]]:18: error: a loop inside the leaf must start at 0: the leaf's tensors are one super-tile each, and a loop over a dim covers it from 0
@cluster(BM in [1024, 4096])
@autotune(BM in [4, 16], BN in [128])
kernel rowsum(x: tensor<f32>[M, N], out: tensor<f32>[M, 1]) {
  let row = ctx.block.x * BM
  var acc: tile<f32>[BM, 1] = 0.0
  for j in range(BN, N, BN) {
    acc = acc + rowsum(x[row :+ BM, j :+ BN])
  }
  out[row :+ BM, :] = acc
}
