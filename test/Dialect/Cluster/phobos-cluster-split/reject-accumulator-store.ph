// RUN: phobos-translate --import-phobos %s --cluster --mlir-print-debuginfo | not phobos-opt --phobos-cluster-split --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// The accumulator is stored as C[..] = acc or alpha * acc + beta * c_old;
// a bias in the epilogue would be added once per chunk.

// CHECK: reject-accumulator-store.ph:[[# @LINE + 7]]:3: error: a cluster loop (its step TILE_K is an @cluster name) must carry only an accumulator: {{.*}}; its result must be stored once as C[..] = acc or C[..] = alpha * acc + beta * c_old
@cluster(TILE_M in [4096, 16384], TILE_N in [4096, 16384], TILE_K in [4096, 16384])
@autotune(TILE_M in [32, 256], TILE_N in [32, 256], TILE_K in [4, 32])
kernel matmul(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N], bias: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[TILE_M, TILE_N] = 0.0
  for kt in range(0, K, TILE_K) {
    acc += dot(A[pm * TILE_M :+ TILE_M, kt :+ TILE_K], B[kt :+ TILE_K, pn * TILE_N :+ TILE_N])
  }
  C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N] = acc + bias[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N]
}
