// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A slice that uses an @cluster name but is not the unit's super-tile would
// mean different things at the two levels (BR rows of the tensor at the
// cluster level, BR rows of the super-tile in the leaf).

// CHECK: reject-cluster-name-in-leaf-slice.ph:[[# @LINE + 5]]:16: error: axis 0 of 'b' is sliced with an @cluster name away from a super-tile (ctx.block.<axis> * S :+ S or the cluster loop's chunk); the leaf, where the name is the CTA's tile, would read a different slice than the cluster level
@cluster(BR in [1024, 4096])
@autotune(BR in [32, 128])
kernel head(a: tensor<f32>[M], b: tensor<f32>[K], c: tensor<f32>[M]) {
  let row = ctx.block.x * BR
  let first = b[0 :+ BR]
  c[row :+ BR] = a[row :+ BR] + first
}
