// flash_attention: O[bh] = softmax(scale * Q[bh] @ K[bh]^T) @ V[bh] for each batch*head bh, non-causal;
// Q, O: [BH, Nq, D], K, V: [BH, Nk, D] in f32, both dots on tf32 tensor cores (operands rounded to
// tf32, products accumulated in f32); the online softmax and the accumulator stay f32. Nq and Nk may
// be ragged (keys past Nk get weight 0, rows past Nq are not stored). D must be 64 or 128.
// Grid: x = query blocks, y = BH.
// Reference (float64): P = exp(S - S.max(-1)), O = (P @ V) / P.sum(-1); tf32 rounding gives rtol ~ 1e-2.
@autotune(D in [64, 128], BR in [128, 64], BC in [64, 128, 32])
@pipeline
@tensorcore(tf32)
kernel flash_attention(Q: tensor<f32>[BH, Nq, D],
                       K: tensor<f32>[BH, Nk, D],
                       V: tensor<f32>[BH, Nk, D],
                       O: tensor<f32>[BH, Nq, D],
                       scale: f32) {
    let row = ctx.block.x * BR
    let bh = ctx.block.y
    let q = Q[bh, row :+ BR, :]
    // Scores in log2 units: exp2(x - m) is then e^(scale (qk - max)) with no
    // multiply by log2 e per element (as FlashAttention and Triton's tutorial).
    let qk_scale = scale * 1.4426950408889634
    var m: tile<f32>[BR, 1] = -1.0e30
    var l: tile<f32>[BR, 1] = 0.0
    var acc: tile<f32>[BR, D] = 0.0
    for kb in range(0, Nk, BC) {
        let k = K[bh, kb :+ BC, :]
        let v = V[bh, kb :+ BC, :]
        let cols = kb + arange(BC)
        let s = where(cols < Nk, qk_scale * dot_t(q, k), -1.0e30)
        let m_new = tmax(m, rowmax(s))
        let corr = exp2(m - m_new)
        let p = exp2(s - m_new)
        l = corr * l + rowsum(p)
        acc = corr * acc + dot(p, v)
        m = m_new
    }
    O[bh, row :+ BR, :] = acc / l
}
