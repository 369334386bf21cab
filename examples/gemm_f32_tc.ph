// sgemm_tc: C = alpha * (A @ B) + beta * C with A: [M, K], B: [K, N], C: [M, N] in f32, row-major,
// on tensor cores: the operands of each MMA are rounded to tf32 (10-bit mantissa), products are
// accumulated in f32. M, N and K may all be ragged (masked loads read 0, edges are not stored).
// Reference (float64): C = alpha * (A.f64 @ B.f64) + beta * C.f64 (C is not read when beta = 0); tf32
// rounding gives a relative error of about 2^-11 per product, so compare with rtol ~ 5e-3 against
// sum_k |A||B|.
// One warpgroup (128 threads) per 64 columns of the tile: on sm_90a each computes 64 columns of
// the transposed product (B^T A^T, so that B is read as it is stored); 128 x 256 runs four.
@autotune(TILE_M in [128, 256, 64], TILE_N in [128, 256], TILE_K in [32, 64, 16])
@launch(2 * TILE_N)
@pipeline
@tensorcore(tf32)
kernel sgemm_tc(A: tensor<f32>[M, K],
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
    // As in BLAS, beta = 0 means C is not read (a NaN there does not
    // propagate, and the epilogue saves a read of C).
    if beta == 0.0 {
        C[m0 :+ TILE_M, n0 :+ TILE_N] = alpha * acc
    } else {
        let c_old = C[m0 :+ TILE_M, n0 :+ TILE_N]
        C[m0 :+ TILE_M, n0 :+ TILE_N] = alpha * acc + beta * c_old
    }
}
