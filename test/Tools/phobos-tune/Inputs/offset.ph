// y = s - 9223372036854775000 for an i64 scalar s near 2^63: exact only if
// the scalar keeps all 64 bits (a double keeps 53).
@autotune(B in [8, 16])
kernel offset(y: tensor<f32>[N], s: i64) {
    let base = ctx.block.x * B
    y[base :+ B] = f32(s - 9223372036854775000) + 0.0 * f32(arange(B))
}
