// Loops whose masks tile-unswitch-loops and tile-skip-full-masks take
// apart: attention's forward with a run-time `causal` flag (the mask holds
// for a prefix of whole key blocks) and a backward-like loop over query
// blocks for one block of keys (a suffix of whole blocks).

kernel attention(Q: tensor<f32>[BH, N, 8], K: tensor<f32>[BH, N, 8], V: tensor<f32>[BH, N, 8],
                 O: tensor<f32>[BH, N, 8], scale: f32, causal: bool) {
    let row = ctx.block.x * 16
    let bh = ctx.block.y
    let q = Q[bh, row :+ 16, :]
    let rows = reshape(row + arange(16), 16, 1)
    var m: tile<f32>[16, 1] = -1.0e30
    var l: tile<f32>[16, 1] = 0.0
    var acc: tile<f32>[16, 8] = 0.0
    let end = where(causal, tmin(N, row + 16), N)
    for k0 in range(0, end, 8) {
        let cols = k0 + arange(8)
        let keep = where(causal, cols <= rows, cols < N)
        let s = where(keep, scale * dot_t(q, K[bh, k0 :+ 8, :]), -1.0e30)
        let m_new = tmax(m, rowmax(s))
        let correction = exp(m - m_new)
        let p = exp(s - m_new)
        l = correction * l + rowsum(p)
        acc = correction * acc + dot(p, V[bh, k0 :+ 8, :])
        m = m_new
    }
    O[bh, row :+ 16, :] = acc / l
}

kernel columns(X: tensor<f32>[M, N], Y: tensor<f32>[N], causal: bool) {
    let col = ctx.block.x * 8
    let cols = col + arange(8)
    var acc: tile<f32>[1, 8] = 0.0
    for r0 in range(where(causal, col / 16 * 16, 0), M, 16) {
        let rows = reshape(r0 + arange(16), 16, 1)
        let keep = where(causal, cols <= rows, cols < N) && rows < M
        acc = acc + colsum(where(keep, X[r0 :+ 16, col :+ 8], 0.0))
    }
    Y[col :+ 8] = reshape(acc, 8)
}
