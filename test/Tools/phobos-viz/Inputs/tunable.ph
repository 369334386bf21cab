// Two variants to search on the interpreter (json-tuning.test).
@autotune(BLOCK in [64, 128])
kernel scale(x: tensor<f32>[N], out: tensor<f32>[N]) {
    let base = ctx.block.x * BLOCK
    out[base :+ BLOCK] = 2.0 * x[base :+ BLOCK]
}
