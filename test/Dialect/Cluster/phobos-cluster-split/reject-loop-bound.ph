// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Seed 003: a loop inside the leaf must run to a symbolic dim.

// CHECK: reject-loop-bound.ph:[[# @LINE + 6]]:21: error: a loop inside the leaf must run to a symbolic dim (a tensor extent such as N): in the leaf, dims are the super-tile's extents
@cluster(BM in [1024, 4096])
@autotune(BM in [4, 16], BN in [128])
kernel rowsum(x: tensor<f32>[M, N], out: tensor<f32>[M, 1]) {
  let row = ctx.block.x * BM
  var acc: tile<f32>[BM, 1] = 0.0
  for j in range(0, 1024, BN) {
    acc = acc + rowsum(x[row :+ BM, j :+ BN])
  }
  out[row :+ BM, :] = acc
}
