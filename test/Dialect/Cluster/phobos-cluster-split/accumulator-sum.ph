// RUN: phobos-translate --import-phobos %s --cluster | phobos-opt --phobos-cluster-split | FileCheck %s

// The accumulator stored as C[..] = acc: the init leaf zeroes the output
// super-tile (C is write-only: nothing is read from storage) and the step
// leaf's '=' becomes '+=': C[..] = acc + C[..].

// CHECK-LABEL: phobos_cluster.program @sum
// CHECK: phobos_cluster.tensor @C write dims ["M", "N"] split ["TILE_M", "TILE_N"]
// CHECK: %[[C:.*]] = phobos_cluster.ref write @C [%{{.*}}, %{{.*}}]
// CHECK-NEXT: phobos_cluster.apply @sum_init(%[[C]])
// CHECK-NEXT: phobos_cluster.loop
// CHECK: phobos_cluster.apply @sum_step(%{{.*}}, %{{.*}}, %[[C]])

// CHECK: phobos.kernel @sum_init(%[[IC:.*]]: !phobos.tensor<?x?xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[FILL:.*]] = phobos.fill %[[ZERO]] : !phobos.tile<32x32xf32>
// CHECK-NEXT: phobos.store %[[FILL]], %[[IC]]

// CHECK: phobos.kernel @sum_step(
// CHECK-SAME: %[[SC:[^:]*]]: !phobos.tensor<?x?xf32> {phobos.dims = ["M", "N"], phobos.name = "C"})
// CHECK: %[[ACC:.*]] = scf.for
// CHECK: %[[OLD:.*]] = phobos.load %[[SC]]
// CHECK-NEXT: %[[NEW:.*]] = phobos.add %[[ACC]], %[[OLD]]
// CHECK-NEXT: phobos.store %[[NEW]], %[[SC]]
@cluster(TILE_M in [4096, 16384], TILE_N in [4096, 16384], TILE_K in [4096, 16384])
@autotune(TILE_M in [32, 256], TILE_N in [32, 256], TILE_K in [4, 32])
kernel sum(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TILE_M, TILE_N] = 0.0
  for kt in range(0, K, TILE_K) {
    acc += dot(A[pm * TILE_M :+ TILE_M, kt :+ TILE_K], B[kt :+ TILE_K, pn * TILE_N :+ TILE_N])
  }
  C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N] = acc
}
