@autotune(B in [128])
kernel lines(X: tensor<f32>[N], Y: tensor<f32>[N], i: i32) {
    let base = program_id(0) * B
    let t = X[base :+ B] * 2.0
    Y[base :+ B] = t
    Y[i] = 1.0
}
