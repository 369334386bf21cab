// Variants that are right (S=1, D=1), off by one (D=2) or negated (S=2),
// for the checks against expected outputs that hold infinities and NaNs.
@autotune(S in [1, 2], D in [1, 2])
kernel signs(x: tensor<f32>[N], y: tensor<f32>[N]) {
    let base = ctx.block.x * 8
    y[base :+ 8] = f32(3 - 2 * S) * x[base :+ 8] + f32(D - 1)
}
