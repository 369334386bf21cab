// softmax: Y[i, :] = exp(X[i, :] - max_j X[i, j]) / sum_j exp(X[i, j] - max_j X[i, j]); X, Y: [M, N] f32.
// Two passes over column blocks: an online max/sum, then the normalised write. M and N may be ragged:
// columns past N are masked to -3e38 (weight 0), rows past M are never stored.
// Reference (float64): e = exp(X - X.max(1, keepdims=True)); Y = e / e.sum(1, keepdims=True).
@autotune(BM in [1, 4, 16], BN in [1024, 4096, 256])
kernel softmax(X: tensor<f32>[M, N], Y: tensor<f32>[M, N]) {
    let row = ctx.block.x * BM
    var m: tile<f32>[BM, 1] = -3.0e38
    var l: tile<f32>[BM, 1] = 0.0
    for cb in range(0, N, BN) {
        let cols = cb + arange(BN)
        let x = where(cols < N, X[row :+ BM, cb :+ BN], -3.0e38)
        let m_new = tmax(m, rowmax(x))
        l = l * exp(m - m_new) + rowsum(exp(x - m_new))
        m = m_new
    }
    for cb in range(0, N, BN) {
        let x = X[row :+ BM, cb :+ BN]
        Y[row :+ BM, cb :+ BN] = exp(x - m) / l
    }
}
