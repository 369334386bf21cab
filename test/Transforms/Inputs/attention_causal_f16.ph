// Tutorial 06's attention forward (python/tutorials/t06_fused_attention.py)
// as Phobos source: f16, a run-time `causal` flag, scores in log2 units,
// the log-sum-exp stored beside O. tile-unswitch-loops splits its key loop
// on `causal`, so each branch of one scf.if holds a TMA pipeline of its own.
@autotune(D in [128], BR in [128], BC in [128, 64])
@pipeline
@warp_specialize
@tensorcore
kernel attn_fwd(q: tensor<f16>[BH, N, D], k: tensor<f16>[BH, N, D], v: tensor<f16>[BH, N, D],
                o: tensor<f16>[BH, N, D], lse: tensor<f32>[BH, N], scale: f32, causal: bool) {
    let row = ctx.block.x * BR
    let bh = ctx.block.y
    let qt = q[bh, row :+ BR, :]
    let rows = reshape(row + arange(BR), BR, 1)
    let qk_scale = scale * 1.4426950408889634
    var m: tile<f32>[BR, 1] = -1.0e30
    var l: tile<f32>[BR, 1] = 0.0
    var acc: tile<f32>[BR, D] = 0.0
    let end = where(causal, tmin(N, row + BR), N)
    for k0 in range(0, end, BC) {
        let cols = k0 + arange(BC)
        let keep = where(causal, cols <= rows, cols < N)
        let s = where(keep, qk_scale * dot_t(qt, k[bh, k0 :+ BC, :]), -1.0e30)
        let m_new = tmax(m, rowmax(s))
        let correction = exp2(m - m_new)
        let p = exp2(s - m_new)
        l = correction * l + rowsum(p)
        acc = correction * acc + dot(f16(p), v[bh, k0 :+ BC, :])
        m = m_new
    }
    o[bh, row :+ BR, :] = acc / l
    lse[bh, row :+ BR] = reshape(m * 0.6931471805599453 + log(l), BR)
}
