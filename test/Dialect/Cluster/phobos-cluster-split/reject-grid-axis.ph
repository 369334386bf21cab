// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Seed 003: a grid axis comes from a slice offset ctx.block.<axis> * S with
// extent S, where S is an @cluster name.

// CHECK: reject-grid-axis.ph:[[# @LINE + 4]]:32: error: a grid axis comes from a slice offset ctx.block.<axis> * S with extent S, where S is an @cluster name; axis 0 of 'a' uses ctx.block otherwise
@cluster(BLOCK in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel add(a: tensor<f32>[N], c: tensor<f32>[N]) {
  c[ctx.block.x * 64 :+ 64] = a[ctx.block.x * 64 :+ 64]
}
