// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A dim cut into super-tiles by one slice and read whole by another is a
// halo too: a unit would read the super-tiles other nodes own.

// CHECK: reject-halo-whole.ph:[[# @LINE + 5]]:15: error: tensor 'b' is read at two different super-tile coordinates in one unit of work (a halo, which would need an exchange between nodes): its axis 0 (dim 'N') is cut into BLOCK super-tiles at reject-halo-whole.ph:[[# @LINE + 6]]:23, so a slice of it must start exactly at the unit's super-tile
@cluster(BLOCK in [1048576, 16777216])
@autotune(BLOCK in [16, 4096])
kernel firsts(a: tensor<f32>[N], b: tensor<f32>[N], c: tensor<f32>[N]) {
  let base = ctx.block.x * BLOCK
  let head = b[0 :+ 16]
  c[base :+ BLOCK] = a[base :+ BLOCK]
}
