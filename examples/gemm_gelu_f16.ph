// hgemm_gelu: C = gelu(alpha * (A @ B) + bias) + R, the feed-forward projection of a transformer
// block with its bias, activation and residual fused into the GEMM's epilogue. A: [M, K],
// B: [K, N], bias: [N], R and C: [M, N], all f16, row-major. GELU is the tanh approximation
// (PyTorch's gelu(approximate="tanh")): gelu(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3).
// The epilogue runs in f32 and rounds once, when stored to C; the GPU's tanh is tanh.approx.f32.
// M, N and K may all be ragged (masked loads read 0, edges are not stored).
// Reference (float64): C = f16(gelu_tanh(alpha * (A.f64 @ B.f64) + bias.f64) + R.f64); expect f16
// rounding of the result plus f32 accumulation error (rtol ~ 1e-3).
@autotune(TILE_M in [128, 64], TILE_N in [128, 192, 256], TILE_K in [32, 64])
@launch(256)
@pipeline
@tensorcore
kernel hgemm_gelu(A: tensor<f16>[M, K],
                  B: tensor<f16>[K, N],
                  bias: tensor<f16>[N],
                  R: tensor<f16>[M, N],
                  C: tensor<f16>[M, N],
                  alpha: f32) {
    let m0 = ctx.block.x * TILE_M
    let n0 = ctx.block.y * TILE_N
    var acc: tile<f32>[TILE_M, TILE_N] = 0.0
    for kt in range(0, K, TILE_K) {
        acc += dot(A[m0 :+ TILE_M, kt :+ TILE_K], B[kt :+ TILE_K, n0 :+ TILE_N])
    }
    // The bias row broadcasts over the tile's rows.
    let x = alpha * acc + bias[n0 :+ TILE_N]
    let u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    let g = 0.5 * x * (1.0 + tanh(u))
    C[m0 :+ TILE_M, n0 :+ TILE_N] = g + R[m0 :+ TILE_M, n0 :+ TILE_N]
}
