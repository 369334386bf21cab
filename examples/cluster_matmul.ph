// matmul: C = alpha * (A @ B) + beta * C with A: [M, K], B: [K, N], C: [M, N], f32, row-major; the
// matmul of the @cluster spec. On a cluster each node owns TILE_M x TILE_N super-tiles of C and the K loop
// becomes a cluster loop; on one GPU @cluster is ignored. @aligned: M, N, K must be multiples of the tiles.
// Reference (float64): C = alpha * (A.astype(float64) @ B.astype(float64)) + beta * C.astype(float64).
// TILE_N stops at 128: a 256 x 256 f32 accumulator is all 65536 registers of an SM, which no thread
// count can hold (tile-check-registers refuses it).
@cluster(TILE_M in [4096, 16384], TILE_N in [4096, 16384], TILE_K in [4096, 16384])
@autotune(TILE_M in [32, 256], TILE_N in [32, 128], TILE_K in [4, 32])
@aligned(M = TILE_M, N = TILE_N, K = TILE_K)
kernel matmul(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N], alpha: f32, beta: f32) {
    let pm = ctx.block.x
    let pn = ctx.block.y
    var acc: tile<f32>[TILE_M, TILE_N] = 0.0
    for kt in range(0, K, TILE_K) {
        let a = A[pm * TILE_M :+ TILE_M, kt :+ TILE_K]
        let b = B[kt :+ TILE_K, pn * TILE_N :+ TILE_N]
        acc += dot(a, b)
    }
    let c_old = C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N]
    C[pm * TILE_M :+ TILE_M, pn * TILE_N :+ TILE_N] = alpha * acc + beta * c_old
}
