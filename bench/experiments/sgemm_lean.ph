// The FMA SGEMM with few threads per tile (64 or 128), one to three stages: where 128 accumulators a thread meet a lean loop (issue 8).
@autotune(TILE_M in [64, 128], TILE_N in [128, 256], TILE_K in [8, 16, 32], STAGES in [1, 2, 3], THREADS in [64, 128])
@launch(THREADS)
@pipeline(STAGES)
kernel sgemm(A: tensor<f32>[M, K],
             B: tensor<f32>[K, N],
             C: tensor<f32>[M, N],
             alpha: f32,
             beta: f32) {
    let m0 = ctx.block.x * TILE_M
    let n0 = ctx.block.y * TILE_N
    var acc: tile<f32>[TILE_M, TILE_N] = 0.0
    for kt in range(0, K, TILE_K) {
        let a = A[m0 :+ TILE_M, kt :+ TILE_K]
        let b = B[kt :+ TILE_K, n0 :+ TILE_N]
        acc += dot(a, b)
    }
    let c_old = C[m0 :+ TILE_M, n0 :+ TILE_N]
    C[m0 :+ TILE_M, n0 :+ TILE_N] = alpha * acc + beta * c_old
}
