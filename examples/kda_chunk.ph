// gla_chunk: chunkwise gated linear attention with per-channel log-gates G <= 0 (Kimi Delta Attention's
// gating, no delta rule). With g_t = G[bh, t, :] and Gc_t = sum_{r<=t} g_r the cumulative log gate:
//   o_t = sum_{s<=t} (q_t * exp(Gc_t - Gc_s)) . k_s v_s  (= q_t S_t, S_t = diag(exp(g_t)) S_{t-1} + k_t^T v_t)
// Q, K, G: [BH, T, DK], V, O: [BH, T, DV], f32; S: [DK, DV] carried across chunks. T may be ragged: rows
// past T read 0 (g = 0: no decay, k = v = 0: adds nothing), are not stored. Reference: the loop in float64.
@autotune(C in [64, 32], DK in [64], DV in [64])
kernel gla_chunk(Q: tensor<f32>[BH, T, DK],
                 K: tensor<f32>[BH, T, DK],
                 V: tensor<f32>[BH, T, DV],
                 G: tensor<f32>[BH, T, DK],
                 O: tensor<f32>[BH, T, DV]) {
    let bh = ctx.block.x
    var S: tile<f32>[DK, DV] = 0.0
    for t in range(0, T, C) {
        let q = Q[bh, t :+ C, :]
        let k = K[bh, t :+ C, :]
        let v = V[bh, t :+ C, :]
        let g = G[bh, t :+ C, :]
        let gc = cumsum(g)
        let gl = colsum(g)
        // exp(gc_i - gc_j) split into exp(gc_i) * exp(-gc_j): exp(-gc) must stay finite in f32,
        // so the log gates summed over one chunk should stay above about -80.
        let qg = q * exp(gc)
        let kg = k * exp(-gc)
        let a = tril(dot_t(qg, kg))
        O[bh, t :+ C, :] = dot(a, v) + dot(qg, S)
        S = transpose(exp(gl)) * S + dot(transpose(k * exp(gl - gc)), v)
    }
}
