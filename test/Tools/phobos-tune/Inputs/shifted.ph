// A kernel whose variants differ in speed and, for BAD=2, in correctness:
// the autotuner must drop that one as wrong. With N = 512, @aligned(N = A)
// prunes every variant with A=3.
@autotune(B in [16, 64], BAD in [1, 2], A in [3, 1])
@aligned(N = A)
kernel shifted(x: tensor<f32>[N], y: tensor<f32>[N]) {
    let base = ctx.block.x * B
    y[base :+ B] = x[base :+ B] + f32(BAD - 1)
}
