// RUN: phobos-translate --import-phobos %s --cluster | phobos-opt --phobos-cluster-split | not phobos-opt --phobos-cluster-plan='dims=N=3000' 2>&1 | FileCheck %s

// The leaf runs as a grid over the super-tile with its first @autotune
// value: the super-tile must be a whole multiple of it.

// CHECK: error: cannot plan 'add': the super-tile BLOCK = 1000 is not a multiple of the leaf's tile BLOCK = 16 (its first @autotune value), so the leaf's grid does not divide the super-tile
@cluster(BLOCK in [1000])
@autotune(BLOCK in [16, 4096])
kernel add(a: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  c[base :+ BLOCK] = a[base :+ BLOCK]
}
