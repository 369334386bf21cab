// flash_attention: O[bh] = softmax(scale * Q[bh] @ K[bh]^T) @ V[bh] for each batch*head bh, non-causal;
// Q, O: [BH, Nq, D], K, V: [BH, Nk, D] in f16. Scores, softmax state and accumulator are f32; P is
// rounded to f16 for the P @ V tensor-core MMA. Nq and Nk may be ragged (keys past Nk get weight 0,
// rows past Nq are not stored). D must be 64 or 128. Grid: x = query blocks, y = BH.
// Reference (float64): from the f16 inputs, P = exp(S - S.max(-1)), O = (P @ V) / P.sum(-1); rtol ~ 2e-3.
// @warp_specialize(D / 128): a producer warpgroup issues the K and V copies at D 128 only (on sm_90a,
// measured 5 to 11 % faster there; at D 64 it costs the second CTA per SM and was 25 % slower).
@autotune(D in [64, 128], BR in [64, 32, 128], BC in [64, 32, 128])
@pipeline
@warp_specialize(D / 128)
@tensorcore
kernel flash_attention(Q: tensor<f16>[BH, Nq, D],
                       K: tensor<f16>[BH, Nk, D],
                       V: tensor<f16>[BH, Nk, D],
                       O: tensor<f16>[BH, Nq, D],
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
        // dot_t of f16 tiles accumulates in f32; the f32 scale keeps s in f32.
        let s = where(cols < Nk, qk_scale * dot_t(q, k), -1.0e30)
        let m_new = tmax(m, rowmax(s))
        let corr = exp2(m - m_new)
        let p = exp2(s - m_new)
        l = corr * l + rowsum(p)
        acc = corr * acc + dot(f16(p), v)
        m = m_new
    }
    // The f32 result rounds to f16 on the store.
    O[bh, row :+ BR, :] = acc / l
}
