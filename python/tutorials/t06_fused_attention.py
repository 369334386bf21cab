"""Tutorial 06: fused attention (FlashAttention-2), forward and backward,
causal and not.

O = softmax(scale * Q K^T + mask) V for every batch-head, without ever
writing the N x N score matrix to memory. It shows

- the online softmax: each CTA owns BR query rows and streams K and V in BC
  blocks, rescaling its running sum and accumulator when the row maximum
  grows. Scores are kept in log2 units (scaled by ``scale * log2 e``) so
  that ``ph.exp2`` needs no multiply per element, as Triton's tutorial does;
- causal masking from absolute positions: ``row + ph.arange(BR)`` (reshaped to
  a column) against ``k0 + ph.arange(BC)``, and a loop that stops at the
  diagonal, so a causal CTA does about half the work;
- the backward pass as two kernels that never need atomics: one CTA per key
  block accumulates dK and dV over the query blocks that see it, one CTA per
  query block accumulates dQ; both recompute P from the log-sum-exp the
  forward saved, and use Delta = rowsum(O * dO) from a small preprocessing
  kernel.
"""

from __future__ import annotations

import math
from typing import Any

import phobos.lang as ph

from _common import cdiv, empty

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


@ph.kernel
@ph.autotune(D=[64, 128], BR=[128, 64], BC=[64, 32, 128])
@ph.pipeline
@ph.warp_specialize("D / 128")
@ph.tensorcore
def attn_fwd(q: ph.tensor[ph.f16][BH, N, D], k: ph.tensor[ph.f16][BH, N, D],
             v: ph.tensor[ph.f16][BH, N, D], o: ph.tensor[ph.f16][BH, N, D],
             lse: ph.tensor[ph.f32][BH, N], scale: ph.f32, causal: ph.bool):
    row: ph.let = ph.ctx.block.x * BR
    bh: ph.let = ph.ctx.block.y
    qt: ph.let = q[bh, row:+BR, :]
    rows: ph.let = ph.reshape(row + ph.arange(BR), BR, 1)
    qk_scale: ph.let = scale * LOG2E
    m: ph.var[ph.tile[ph.f32][BR, 1]] = -1.0e30
    l: ph.var[ph.tile[ph.f32][BR, 1]] = 0.0
    acc: ph.var[ph.tile[ph.f32][BR, D]] = 0.0
    # A causal row block sees the keys up to its last row.
    end: ph.let = ph.where(causal, ph.tmin(N, row + BR), N)
    for k0 in range(0, end, BC):
        # K and V of the step first, as the example does: with V sliced
        # after the softmax, the ragged last step's copy of V spills at
        # D 128 unless the compiler stages it asynchronously, a spill relief
        # it has to try first (docs/benchmarks-log.md).
        kt: ph.let = k[bh, k0:+BC, :]
        vt: ph.let = v[bh, k0:+BC, :]
        cols: ph.let = k0 + ph.arange(BC)
        keep: ph.let = ph.where(causal, cols <= rows, cols < N)
        s: ph.let = ph.where(keep, qk_scale * ph.dot_t(qt, kt), -1.0e30)
        m_new: ph.let = ph.tmax(m, ph.rowmax(s))
        correction: ph.let = ph.exp2(m - m_new)
        p: ph.let = ph.exp2(s - m_new)
        l = correction * l + ph.rowsum(p)
        acc = correction * acc + ph.dot(ph.f16(p), vt)
        m = m_new
    o[bh, row:+BR, :] = acc / l
    # The log-sum-exp of each row (natural units, as SDPA's): the backward
    # recomputes P from it.
    lse[bh, row:+BR] = ph.reshape(m * LN2 + ph.log(l), BR)


@ph.kernel
@ph.autotune(D=[64, 128], BR=[64, 128])
def attn_bwd_delta(o: ph.tensor[ph.f16][BH, N, D], dout_all: ph.tensor[ph.f16][BH, N, D],
                   delta: ph.tensor[ph.f32][BH, N]):
    row: ph.let = ph.ctx.block.x * BR
    bh: ph.let = ph.ctx.block.y
    product: ph.let = ph.f32(o[bh, row:+BR, :]) * ph.f32(dout_all[bh, row:+BR, :])
    delta[bh, row:+BR] = ph.reshape(ph.rowsum(product), BR)


@ph.kernel
@ph.autotune(D=[64, 128], BC=[64, 128, 32], BR=[64, 32, 128])
@ph.pipeline
@ph.tensorcore
def attn_bwd_dkdv(q: ph.tensor[ph.f16][BH, N, D], k: ph.tensor[ph.f16][BH, N, D],
                  v: ph.tensor[ph.f16][BH, N, D], dout_all: ph.tensor[ph.f16][BH, N, D],
                  lse: ph.tensor[ph.f32][BH, N], delta: ph.tensor[ph.f32][BH, N],
                  dk: ph.tensor[ph.f16][BH, N, D], dv: ph.tensor[ph.f16][BH, N, D],
                  scale: ph.f32, causal: ph.bool):
    col: ph.let = ph.ctx.block.x * BC
    bh: ph.let = ph.ctx.block.y
    kt: ph.let = k[bh, col:+BC, :]
    vt: ph.let = v[bh, col:+BC, :]
    cols: ph.let = ph.reshape(col + ph.arange(BC), BC, 1)
    qk_scale: ph.let = scale * LOG2E
    dk_acc: ph.var[ph.tile[ph.f32][BC, D]] = 0.0
    dv_acc: ph.var[ph.tile[ph.f32][BC, D]] = 0.0
    # Causal: the query blocks before this key block do not see it.
    start: ph.let = ph.where(causal, col / BR * BR, 0)
    for r0 in range(start, N, BR):
        qt: ph.let = q[bh, r0:+BR, :]
        dout: ph.let = dout_all[bh, r0:+BR, :]
        rows: ph.let = r0 + ph.arange(BR)
        keep: ph.let = ph.where(causal, cols <= rows, cols < N) and rows < N
        # P transposed (keys x queries), as Triton's tutorial computes it:
        # every product then has this CTA's BC keys as its rows, and none
        # needs a transposed operand.
        pt: ph.let = ph.where(keep, ph.exp2(qk_scale * ph.dot_t(kt, qt) -
                                            ph.reshape(lse[bh, r0:+BR], 1, BR) * LOG2E), 0.0)
        dv_acc += ph.dot(ph.f16(pt), dout)
        dpt: ph.let = ph.dot_t(vt, dout)
        dst: ph.let = pt * (dpt - ph.reshape(delta[bh, r0:+BR], 1, BR))
        dk_acc += ph.dot(ph.f16(dst), qt)
    dk[bh, col:+BC, :] = dk_acc * scale
    dv[bh, col:+BC, :] = dv_acc


@ph.kernel
@ph.autotune(D=[64, 128], BR=[64, 128, 32], BC=[64, 32, 128])
@ph.pipeline
@ph.tensorcore
def attn_bwd_dq(q: ph.tensor[ph.f16][BH, N, D], k: ph.tensor[ph.f16][BH, N, D],
                v: ph.tensor[ph.f16][BH, N, D], dout_all: ph.tensor[ph.f16][BH, N, D],
                lse: ph.tensor[ph.f32][BH, N], delta: ph.tensor[ph.f32][BH, N],
                dq: ph.tensor[ph.f16][BH, N, D], scale: ph.f32, causal: ph.bool):
    row: ph.let = ph.ctx.block.x * BR
    bh: ph.let = ph.ctx.block.y
    qt: ph.let = q[bh, row:+BR, :]
    dout: ph.let = dout_all[bh, row:+BR, :]
    qk_scale: ph.let = scale * LOG2E
    row_lse: ph.let = ph.reshape(lse[bh, row:+BR], BR, 1) * LOG2E
    row_delta: ph.let = ph.reshape(delta[bh, row:+BR], BR, 1)
    rows: ph.let = ph.reshape(row + ph.arange(BR), BR, 1)
    acc: ph.var[ph.tile[ph.f32][BR, D]] = 0.0
    end: ph.let = ph.where(causal, ph.tmin(N, row + BR), N)
    for k0 in range(0, end, BC):
        kt: ph.let = k[bh, k0:+BC, :]
        cols: ph.let = k0 + ph.arange(BC)
        keep: ph.let = ph.where(causal, cols <= rows, cols < N)
        p: ph.let = ph.where(keep, ph.exp2(qk_scale * ph.dot_t(qt, kt) - row_lse), 0.0)
        ds: ph.let = p * (ph.dot_t(dout, v[bh, k0:+BC, :]) - row_delta)
        acc += ph.dot(ph.f16(ds), kt)
    dq[bh, row:+BR, :] = acc * scale


#: Block sizes by head dim where others than the first values of the
#: @autotune lists are faster (bench/experiments/attention_bwd_variants.py
#: timed every pair at B*H 128, N 4096: docs/tutorials.md): at D 128 wider
#: blocks everywhere; at D 64 dK/dV over 128 query rows a step.
BLOCKS = {64: {"dkdv": {"BC": 64, "BR": 128}},
          128: {"fwd": {"BR": 128, "BC": 128}, "dkdv": {"BC": 128, "BR": 64},
                "dq": {"BR": 128, "BC": 128}}}


def _blocks(kernel: str, d: int, given: dict[str, int]) -> dict[str, int]:
    """The variant keywords for `kernel` at head dim `d`: those given, the
    rest from BLOCKS."""
    return {**BLOCKS.get(d, {}).get(kernel, {}), **given}


def _flat(t: Any) -> Any:
    """[B, H, N, D] -> [B*H, N, D] (a view)."""
    return t.reshape((-1,) + tuple(t.shape[-2:]))


def attention(q: Any, k: Any, v: Any, causal: bool, scale: float | None = None,
              **variant: int) -> tuple[Any, Any]:
    """(O, LSE) for f16 q, k, v of shape [B, H, N, D] (NumPy or torch CUDA)."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    o = empty(q, q.shape, "f16")
    lse = empty(q, q.shape[:-1], "f32")
    bh, n = math.prod(q.shape[:-2]), q.shape[-2]
    attn_fwd[lambda meta: (cdiv(n, meta["BR"]), bh)](
        _flat(q), _flat(k), _flat(v), _flat(o), lse.reshape(bh, n), scale, causal,
        **_blocks("fwd", q.shape[-1], variant))
    return o, lse


def attention_backward(q: Any, k: Any, v: Any, o: Any, lse: Any, do: Any, causal: bool,
                       scale: float | None = None) -> tuple[Any, Any, Any]:
    """(dQ, dK, dV) given the forward's O and LSE."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    bh, n = math.prod(q.shape[:-2]), q.shape[-2]
    delta = empty(q, (bh, n), "f32")
    attn_bwd_delta[lambda meta: (cdiv(n, meta["BR"]), bh)](_flat(o), _flat(do), delta)
    dq, dk, dv = (empty(q, q.shape, "f16") for _ in range(3))
    flat = [_flat(t) for t in (q, k, v, do)] + [lse.reshape(bh, n), delta]
    d = q.shape[-1]
    attn_bwd_dkdv[lambda meta: (cdiv(n, meta["BC"]), bh)](
        *flat, _flat(dk), _flat(dv), scale, causal, **_blocks("dkdv", d, {}))
    attn_bwd_dq[lambda meta: (cdiv(n, meta["BR"]), bh)](
        *flat, _flat(dq), scale, causal, **_blocks("dq", d, {}))
    return dq, dk, dv


def main() -> None:
    import torch

    from _common import bench_ms, quick, report
    from _triton_peers import triton_attention, triton_attention_backward

    torch.manual_seed(0)
    for causal in (False, True):
        q, k, v = (torch.randn(2, 3, 1000, 64, device="cuda", dtype=torch.float16,
                               requires_grad=True) for _ in range(3))
        do = torch.randn_like(q)
        expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        expected.backward(do)
        o, lse = attention(q.detach(), k.detach(), v.detach(), causal)
        dq, dk, dv = attention_backward(q.detach(), k.detach(), v.detach(), o, lse, do, causal)
        torch.testing.assert_close(o, expected, rtol=0, atol=1e-2)
        for got, want in ((dq, q.grad), (dk, k.grad), (dv, v.grad)):
            torch.testing.assert_close(got, want, rtol=0, atol=2e-2)
    print("t06: Phobos matches torch, forward and backward, causal and not")
    batch, heads, d = 4, 32, 64
    rows = []
    for n in ([1024, 2048, 4096] if quick() else [1024, 2048, 4096, 8192, 16384]):
        for causal in (False, True):
            q, k, v, do = (torch.randn(batch, heads, n, d, device="cuda", dtype=torch.float16)
                           for _ in range(4))
            flops = 4 * batch * heads * n * n * d * (0.5 if causal else 1.0)
            fwd = lambda ms: flops / ms * 1e-9
            bwd = lambda ms: 2.5 * flops / ms * 1e-9
            o, lse = attention(q, k, v, causal)
            t_o, t_lse = triton_attention(q, k, v, causal)
            # Both outputs checked before they are timed (the peer too).
            want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            torch.testing.assert_close(o, want, rtol=0, atol=1e-2)
            torch.testing.assert_close(t_o, want, rtol=0, atol=1e-2)
            rows.append({
                "N": n, "causal": causal,
                "phobos": fwd(bench_ms(lambda: attention(q, k, v, causal))),
                "triton": fwd(bench_ms(lambda: triton_attention(q, k, v, causal))),
                "torch": fwd(bench_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=causal))),
                "phobos_bwd": bwd(bench_ms(
                    lambda: attention_backward(q, k, v, o, lse, do, causal))),
                "triton_bwd": bwd(bench_ms(
                    lambda: triton_attention_backward(q, k, v, t_o, t_lse, do, causal))),
            })
    for causal in (False, True):
        part = [dict(r) for r in rows if r["causal"] == causal]
        for row in part:
            row["ratio_to_triton_bwd"] = row["phobos_bwd"] / row["triton_bwd"]
        name = "t06-fused-attention" + ("-causal" if causal else "")
        report(name, f"fused attention, f16, B={batch} H={heads} D={d}, "
               f"{'causal' if causal else 'non-causal'} (_bwd: backward)", "N", "TFLOP/s",
               part, ["phobos", "triton", "torch", "phobos_bwd", "triton_bwd"])


if __name__ == "__main__":
    main()
