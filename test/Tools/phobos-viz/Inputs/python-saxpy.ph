@autotune(BLOCK in [64, 128])
@cluster(BLOCK in [128])
kernel saxpy(x: tensor<f32>[N], y: tensor<f32>[N], out: tensor<f32>[N], alpha: f32) {
    let base = program_id(0) * BLOCK
    out[base : base + BLOCK] = alpha * x[base : base + BLOCK] + y[base : base + BLOCK]
}
