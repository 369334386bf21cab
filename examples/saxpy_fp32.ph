// saxpy: out[i] = alpha * x[i] + y[i] for i in [0, N); x, y, out: f32 vectors of length N.
// N may be ragged (not a multiple of BLOCK): the last block's slice is masked.
// Reference (float64): out = alpha * x.astype(float64) + y.astype(float64).
@autotune(BLOCK in [16, 8192])
kernel saxpy(x: tensor<f32>[N], y: tensor<f32>[N], out: tensor<f32>[N], alpha: f32) {
    let base = ctx.block.x * BLOCK
    out[base :+ BLOCK] = alpha * x[base :+ BLOCK] + y[base :+ BLOCK]
}
