// A kernel with a scalar of every kind, for the option tests.
kernel scalars(out: tensor<f32>[N], a: f32, h: f16, i: i32, b: bool) {
    let base = ctx.block.x * 64
    out[base :+ 64] = where(b, a + f32(h), f32(i))
}
