// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A compile-time extent (a literal, or an @autotune name such as D) cannot be
// cut into super-tiles.

// CHECK: reject-static-dim.ph:[[# @LINE + 4]]:38: error: dim 'D' of 'q' has the compile-time extent 64 and cannot be cut into super-tiles
@cluster(D in [1024])
@autotune(D in [64])
kernel cols(q: tensor<f32>[N, D], o: tensor<f32>[N, D]) {
  o[0 :+ 4, ctx.block.x * D :+ D] = q[0 :+ 4, ctx.block.x * D :+ D]
}
