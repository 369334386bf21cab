// hgemm: C = alpha * (A @ B) + beta * C with A: [M, K], B: [K, N], C: [M, N] in f16, row-major.
// Tensor-core MMAs on f16 operands accumulate in an f32 tile; the epilogue runs in f32 and rounds
// once, when stored to C. M, N and K may all be ragged (masked loads read 0, edges are not stored).
// Reference (float64): C = f16(alpha * (A.f64 @ B.f64) + beta * C.f64); expect f16 rounding of the
// result plus f32 accumulation error (rtol ~ 1e-3). With beta = 0, C is only written.
// 192-row tiles take three warpgroups (384 threads), as cuBLAS's Hopper kernels do; they
// promise N and K multiples of 8 (rows start 16-byte aligned: TMA copies, no spills), and
// where mma.sync cannot hold them (sm_80), the compiler refuses them with the register count.
@autotune(TILE_M in [128, 192, 64], TILE_N in [128, 192, 256], TILE_K in [32, 64])
@launch(256 + 128 * (TILE_M / 192))
@aligned(N = 1 + 7 * (TILE_M / 192), K = 1 + 7 * (TILE_M / 192))
@pipeline
@tensorcore
kernel hgemm(A: tensor<f16>[M, K],
             B: tensor<f16>[K, N],
             C: tensor<f16>[M, N],
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
        // f32 * f32 + f32 * f16 widens to f32; the store into the f16 tensor rounds.
        C[m0 :+ TILE_M, n0 :+ TILE_N] = alpha * acc + beta * c_old
    }
}
