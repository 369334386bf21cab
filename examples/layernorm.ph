// layernorm: Y[i, :] = (X[i, :] - mean_i) * rstd_i * W + B, mean_i = sum_j X[i, j] / N,
// var_i = sum_j X[i, j]^2 / N - mean_i^2, rstd_i = 1 / sqrt(var_i + eps); X, Y: [M, N], W, B: [N], f16,
// statistics in f32. M and N may be ragged: masked loads read 0, which adds nothing to the sums.
// Reference (float64): x = X.f64; mu, v = x.mean(1, keepdims=True), x.var(1, keepdims=True); Y = (x - mu) / sqrt(v + eps) * W + B.
@autotune(BM in [1, 4, 16], BN in [1024, 4096, 256])
kernel layernorm(X: tensor<f16>[M, N],
                 W: tensor<f16>[N],
                 B: tensor<f16>[N],
                 Y: tensor<f16>[M, N],
                 eps: f32) {
    let row = ctx.block.x * BM
    var s: tile<f32>[BM, 1] = 0.0
    var ss: tile<f32>[BM, 1] = 0.0
    for cb in range(0, N, BN) {
        let x = f32(X[row :+ BM, cb :+ BN])
        s += rowsum(x)
        ss += rowsum(x * x)
    }
    let n = f32(N)
    let mean = s / n
    // E[x^2] - E[x]^2 can come out slightly negative from rounding; clamp it at 0.
    let variance = tmax(ss / n - mean * mean, 0.0)
    let rstd = rsqrt(variance + eps)
    for cb in range(0, N, BN) {
        let x = f32(X[row :+ BM, cb :+ BN])
        let w = W[cb :+ BN]
        let b = B[cb :+ BN]
        Y[row :+ BM, cb :+ BN] = (x - mean) * rstd * w + b
    }
}
