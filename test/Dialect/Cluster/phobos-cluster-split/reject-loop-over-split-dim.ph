// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A loop over a dim that is cut into super-tiles would cover one super-tile
// in the leaf.

// CHECK: reject-loop-over-split-dim.ph:[[# @LINE + 6]]:21: error: this loop runs over dim 'M', which is cut into BM super-tiles: in the leaf it would cover one super-tile only; loop over a dim that is read whole, or make the step an @cluster name (a cluster loop)
@cluster(BM in [1024, 4096])
@autotune(BM in [4, 16], BN in [128])
kernel count(x: tensor<f32>[M, N], out: tensor<f32>[M, 1]) {
  let row = ctx.block.x * BM
  var n: i32 = 0
  for i in range(0, M, 1) {
    n = n + 1
  }
  out[row :+ BM, :] = x[row :+ BM, 0 :+ 1]
}
