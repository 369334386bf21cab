// An attention backward in one kernel (FlashAttention-2 style): dK, dV per
// key block, dQ = dS K added atomically to an f32 buffer; dQ takes the
// transposed dS^T the key loop holds.
@autotune(D in [64, 128], BC in [64, 128, 32], BR in [64, 32, 128])
@pipeline
@tensorcore
kernel attn_bwd_fused(q: tensor<f16>[BH, N, D], k: tensor<f16>[BH, N, D], v: tensor<f16>[BH, N, D], dout_all: tensor<f16>[BH, N, D], lse: tensor<f32>[BH, N], delta: tensor<f32>[BH, N], dk: tensor<f16>[BH, N, D], dv: tensor<f16>[BH, N, D], dq_acc: tensor<f32>[BH, N, D], scale: f32, causal: bool) {
    let col = ctx.block.x * BC
    let bh = ctx.block.y
    let kt = k[bh, col :+ BC, :]
    let vt = v[bh, col :+ BC, :]
    let cols = reshape(col + arange(BC), BC, 1)
    var dk_acc: tile<f32>[BC, D] = 0.0
    var dv_acc: tile<f32>[BC, D] = 0.0
    let start = where(causal, col / BR * BR, 0)
    for r0 in range(start, N, BR) {
        let qt = q[bh, r0 :+ BR, :]
        let dout = dout_all[bh, r0 :+ BR, :]
        let rows = r0 + arange(BR)
        let keep = where(causal, cols <= rows, cols < N) && rows < N
        let pt = where(keep, exp(scale * dot_t(kt, qt) - reshape(lse[bh, r0 :+ BR], 1, BR)), 0.0)
        dv_acc += dot(f16(pt), dout)
        let dpt = dot_t(vt, dout)
        let dst = f16(pt * (dpt - reshape(delta[bh, r0 :+ BR], 1, BR)))
        dk_acc += dot(dst, qt)
        atomic_add(dq_acc[bh, r0 :+ BR, :], dot(transpose(dst), kt))
    }
    dk[bh, col :+ BC, :] = dk_acc * scale
    dv[bh, col :+ BC, :] = dv_acc
}
