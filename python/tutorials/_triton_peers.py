"""Triton kernels for the same jobs as the tutorials, the peers of the GPU
benchmarks. They follow the algorithms of Triton's own tutorials (one row
per program for softmax and layer norm, grouped ordering and the tutorial's
autotune configurations for matmul, FlashAttention-2 for attention), written
here for this comparison. GPU only; imported by the tutorials' main() and
by bench/tune_tutorials_gpu.sh (Triton's autotune timed on a fresh cache).

Why bench/triton_peers.py holds Triton kernels for matmul, attention and
layer norm as well: they are not the same kernels, and their harnesses
differ. Here the kernels are Triton's tutorials' (matmul through
@triton.autotune over tutorial 03's f16 configs, always writing f16; causal
attention in f16 that saves the softmax statistics for the backward; a
layer norm that loops over a row in blocks and saves mean and rstd), with
the backward kernels the tutorials time. The GPU suite's peers time each of
a list of configs with the suite's timer to name the fastest, and take the
f32 examples' inputs (matmul with tf32 dots, attention exact or tf32). A
change of algorithm in one file may belong in the other: check both.
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl


# -- 01 vector add ---------------------------------------------------------------------------

@triton.jit
def _add(x, y, out, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    tl.store(out + offsets, tl.load(x + offsets, mask=inside) + tl.load(y + offsets, mask=inside),
             mask=inside)


def triton_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


# -- 02 softmax ------------------------------------------------------------------------------

@triton.jit
def _softmax(out, inp, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(inp + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


def triton_softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    out = torch.empty_like(x)
    block = triton.next_power_of_2(cols)
    warps = 4 if block < 2048 else 8 if block < 4096 else 16
    _softmax[(rows,)](out, x, cols, x.stride(0), BLOCK=block, num_warps=warps)
    return out


# -- 03 matmul -------------------------------------------------------------------------------

def _config(bm, bn, bk, group, stages, warps):
    return triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": group},
                         num_stages=stages, num_warps=warps)


# The f16 configurations of Triton's tutorial 03.
_MATMUL_CONFIGS = [
    _config(128, 256, 64, 8, 3, 8), _config(64, 256, 32, 8, 4, 4),
    _config(128, 128, 32, 8, 4, 4), _config(128, 64, 32, 8, 4, 4),
    _config(64, 128, 32, 8, 4, 4), _config(128, 32, 32, 8, 4, 4),
    _config(64, 32, 32, 8, 5, 2), _config(32, 64, 32, 8, 5, 2),
]


@triton.autotune(configs=_MATMUL_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    rows_here = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % rows_here
    tile_n = (pid % per_group) // rows_here
    rm = tile_m * BM + tl.arange(0, BM)
    rn = tile_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BK)):
        kk = k0 * BK + rk
        av = tl.load(a + rm[:, None] * sam + kk[None, :] * sak,
                     mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        bv = tl.load(b + kk[:, None] * sbk + rn[None, :] * sbn,
                     mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(av, bv, acc)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def triton_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), device=a.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
    _matmul[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                  c.stride(0), c.stride(1))
    return c


# -- 05 layer norm ---------------------------------------------------------------------------

@triton.jit
def _ln_fwd(x, w, b, y, mean, rstd, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x += row * n
    y += row * n
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, n, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        total += tl.load(x + cols, mask=cols < n, other=0.0).to(tl.float32)
    mu = tl.sum(total, axis=0) / n
    squares = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, n, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        d = tl.where(cols < n, tl.load(x + cols, mask=cols < n, other=0.0).to(tl.float32) - mu,
                     0.0)
        squares += d * d
    r = 1 / tl.sqrt(tl.sum(squares, axis=0) / n + eps)
    tl.store(mean + row, mu)
    tl.store(rstd + row, r)
    for c0 in range(0, n, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        inside = cols < n
        xv = tl.load(x + cols, mask=inside, other=0.0).to(tl.float32)
        out = (xv - mu) * r * tl.load(w + cols, mask=inside) + tl.load(b + cols, mask=inside)
        tl.store(y + cols, out, mask=inside)


def _ln_block(n: int) -> int:
    return min(65536 // 2, triton.next_power_of_2(n))


def triton_layer_norm(x, w, b, eps=1e-5):
    m, n = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(m, device=x.device, dtype=torch.float32)
    rstd = torch.empty(m, device=x.device, dtype=torch.float32)
    block = _ln_block(n)
    _ln_fwd[(m,)](x, w, b, y, mean, rstd, n, eps, BLOCK=block,
                  num_warps=min(max(block // 256, 1), 8))
    return y, mean, rstd


@triton.jit
def _ln_bwd_dx(dx, dy, dw_part, db_part, x, w, mean, rstd, locks, n, groups,
               BLOCK: tl.constexpr):
    # One row per program, the whole row in one block; partial dw, db rows
    # updated under a spin lock per group, as Triton's tutorial does.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n
    xv = tl.load(x + row * n + cols, mask=inside, other=0.0).to(tl.float32)
    g = tl.load(dy + row * n + cols, mask=inside, other=0.0).to(tl.float32)
    wv = tl.load(w + cols, mask=inside).to(tl.float32)
    xhat = tl.where(inside, (xv - tl.load(mean + row)) * tl.load(rstd + row), 0.0)
    wdy = tl.where(inside, wv * g, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / n
    c2 = tl.sum(wdy, axis=0) / n
    tl.store(dx + row * n + cols, ((wdy - (xhat * c1 + c2)) * tl.load(rstd + row)).to(tl.float16),
             mask=inside)
    group = row % groups
    lock = locks + group
    count = locks + groups + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    seen = tl.load(count)
    part_w = (g * xhat).to(tl.float32)
    part_b = g
    if seen == 0:
        tl.atomic_xchg(count, 1)
    else:
        part_w += tl.load(dw_part + group * n + cols, mask=inside)
        part_b += tl.load(db_part + group * n + cols, mask=inside)
    tl.store(dw_part + group * n + cols, part_w, mask=inside)
    tl.store(db_part + group * n + cols, part_b, mask=inside)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def _ln_bwd_dwdb(dw_part, db_part, dw, db, groups, n, BG: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    sum_w = tl.zeros((BG, BN), dtype=tl.float32)
    sum_b = tl.zeros((BG, BN), dtype=tl.float32)
    for g0 in range(0, groups, BG):
        rows = g0 + tl.arange(0, BG)
        mask = (rows[:, None] < groups) & (cols[None, :] < n)
        sum_w += tl.load(dw_part + rows[:, None] * n + cols[None, :], mask=mask, other=0.0)
        sum_b += tl.load(db_part + rows[:, None] * n + cols[None, :], mask=mask, other=0.0)
    tl.store(dw + cols, tl.sum(sum_w, axis=0).to(tl.float16), mask=cols < n)
    tl.store(db + cols, tl.sum(sum_b, axis=0).to(tl.float16), mask=cols < n)


def triton_layer_norm_backward(x, w, dy, mean, rstd):
    m, n = x.shape
    groups = 256 if n <= 1024 else 128 if n <= 4096 else 64
    locks = torch.zeros(2 * groups, dtype=torch.int32, device=x.device)
    dw_part = torch.zeros((groups, n), dtype=torch.float32, device=x.device)
    db_part = torch.zeros((groups, n), dtype=torch.float32, device=x.device)
    dx = torch.empty_like(dy)
    block = triton.next_power_of_2(n)
    _ln_bwd_dx[(m,)](dx, dy, dw_part, db_part, x, w, mean, rstd, locks, n, groups,
                     BLOCK=block, num_warps=min(max(block // 256, 1), 8))
    dw = torch.empty(n, dtype=w.dtype, device=w.device)
    db = torch.empty(n, dtype=w.dtype, device=w.device)
    _ln_bwd_dwdb[(triton.cdiv(n, 128),)](dw_part, db_part, dw, db, groups, n, BG=32, BN=128)
    return dx, dw, db


# -- 06 attention ----------------------------------------------------------------------------

@triton.jit
def _attn_fwd_blocks(acc, l, m, qt, k, v, base, rows, dims, lo, hi, scale, n,
                     MASK: tl.constexpr, CAUSAL: tl.constexpr, D: tl.constexpr,
                     BC: tl.constexpr):
    # The key blocks [lo, hi); MASK: the ones that need the causal mask or
    # the ragged end (Triton's tutorial runs the blocks below the diagonal
    # band without it, then the band with it).
    for k0 in range(lo, hi, BC):
        cols = k0 + tl.arange(0, BC)
        if MASK:
            kt = tl.load(k + base + cols[:, None] * D + dims[None, :], mask=cols[:, None] < n,
                         other=0.0)
            vt = tl.load(v + base + cols[:, None] * D + dims[None, :], mask=cols[:, None] < n,
                         other=0.0)
        else:
            kt = tl.load(k + base + cols[:, None] * D + dims[None, :])
            vt = tl.load(v + base + cols[:, None] * D + dims[None, :])
        s = tl.dot(qt, tl.trans(kt)) * scale
        if MASK:
            keep = (cols[None, :] <= rows[:, None]) if CAUSAL else (cols[None, :] < n)
            s = tl.where(keep, s, -1.0e30)
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        correction = tl.exp(m - m_new)
        l = l * correction + tl.sum(p, 1)
        acc = acc * correction[:, None] + tl.dot(p.to(tl.float16), vt)
        m = m_new
    return acc, l, m


@triton.jit
def _attn_fwd(q, k, v, o, lse, scale, n, CAUSAL: tl.constexpr, D: tl.constexpr,
              BR: tl.constexpr, BC: tl.constexpr):
    row0 = tl.program_id(0) * BR
    base = tl.program_id(1).to(tl.int64) * n * D
    rows = row0 + tl.arange(0, BR)
    dims = tl.arange(0, D)
    qt = tl.load(q + base + rows[:, None] * D + dims[None, :], mask=rows[:, None] < n, other=0.0)
    m = tl.full((BR,), -1.0e30, tl.float32)
    l = tl.zeros((BR,), tl.float32)
    acc = tl.zeros((BR, D), tl.float32)
    if CAUSAL:
        # Below the band (keys before row0, BR a multiple of BC): no mask.
        acc, l, m = _attn_fwd_blocks(acc, l, m, qt, k, v, base, rows, dims, 0, row0, scale, n,
                                     False, CAUSAL, D, BC)
        acc, l, m = _attn_fwd_blocks(acc, l, m, qt, k, v, base, rows, dims, row0,
                                     tl.minimum(n, row0 + BR), scale, n, True, CAUSAL, D, BC)
    else:
        acc, l, m = _attn_fwd_blocks(acc, l, m, qt, k, v, base, rows, dims, 0, n, scale, n,
                                     True, CAUSAL, D, BC)
    tl.store(o + base + rows[:, None] * D + dims[None, :], (acc / l[:, None]).to(tl.float16),
             mask=rows[:, None] < n)
    tl.store(lse + tl.program_id(1) * n + rows, m + tl.log(l), mask=rows < n)


def triton_attention(q, k, v, causal):
    b, h, n, d = q.shape
    o = torch.empty_like(q)
    lse = torch.empty((b * h, n), device=q.device, dtype=torch.float32)
    _attn_fwd[(triton.cdiv(n, 128), b * h)](q, k, v, o, lse, 1 / math.sqrt(d), n, CAUSAL=causal,
                                             D=d, BR=128, BC=64, num_warps=8, num_stages=3)
    return o, lse


@triton.jit
def _attn_delta(o, do, delta, n, D: tl.constexpr, BR: tl.constexpr):
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    base = tl.program_id(1).to(tl.int64) * n * D
    dims = tl.arange(0, D)
    ptr = base + rows[:, None] * D + dims[None, :]
    ov = tl.load(o + ptr, mask=rows[:, None] < n, other=0.0).to(tl.float32)
    dov = tl.load(do + ptr, mask=rows[:, None] < n, other=0.0).to(tl.float32)
    tl.store(delta + tl.program_id(1) * n + rows, tl.sum(ov * dov, 1), mask=rows < n)


@triton.jit
def _attn_dkdv(q, k, v, do, lse, delta, dk, dv, scale, n, CAUSAL: tl.constexpr,
               D: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    col0 = tl.program_id(0) * BC
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * n * D
    cols = col0 + tl.arange(0, BC)
    dims = tl.arange(0, D)
    kt = tl.load(k + base + cols[:, None] * D + dims[None, :], mask=cols[:, None] < n, other=0.0)
    vt = tl.load(v + base + cols[:, None] * D + dims[None, :], mask=cols[:, None] < n, other=0.0)
    dk_acc = tl.zeros((BC, D), tl.float32)
    dv_acc = tl.zeros((BC, D), tl.float32)
    start = (col0 // BR) * BR if CAUSAL else 0
    for r0 in range(start, n, BR):
        rows = r0 + tl.arange(0, BR)
        qt = tl.load(q + base + rows[:, None] * D + dims[None, :], mask=rows[:, None] < n,
                     other=0.0)
        dot = tl.load(do + base + rows[:, None] * D + dims[None, :], mask=rows[:, None] < n,
                      other=0.0)
        row_lse = tl.load(lse + bh * n + rows, mask=rows < n, other=0.0)
        row_delta = tl.load(delta + bh * n + rows, mask=rows < n, other=0.0)
        s = tl.dot(qt, tl.trans(kt)) * scale
        keep = (rows[:, None] < n) & (cols[None, :] < n)
        if CAUSAL:
            keep = keep & (cols[None, :] <= rows[:, None])
        p = tl.where(keep, tl.exp(s - row_lse[:, None]), 0.0)
        dv_acc += tl.dot(tl.trans(p.to(tl.float16)), dot)
        ds = p * (tl.dot(dot, tl.trans(vt)) - row_delta[:, None])
        dk_acc += tl.dot(tl.trans(ds.to(tl.float16)), qt)
    ptr = base + cols[:, None] * D + dims[None, :]
    tl.store(dk + ptr, (dk_acc * scale).to(tl.float16), mask=cols[:, None] < n)
    tl.store(dv + ptr, dv_acc.to(tl.float16), mask=cols[:, None] < n)


@triton.jit
def _attn_dq(q, k, v, do, lse, delta, dq, scale, n, CAUSAL: tl.constexpr,
             D: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    row0 = tl.program_id(0) * BR
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * n * D
    rows = row0 + tl.arange(0, BR)
    dims = tl.arange(0, D)
    qt = tl.load(q + base + rows[:, None] * D + dims[None, :], mask=rows[:, None] < n, other=0.0)
    dot = tl.load(do + base + rows[:, None] * D + dims[None, :], mask=rows[:, None] < n,
                  other=0.0)
    row_lse = tl.load(lse + bh * n + rows, mask=rows < n, other=0.0)
    row_delta = tl.load(delta + bh * n + rows, mask=rows < n, other=0.0)
    acc = tl.zeros((BR, D), tl.float32)
    end = tl.minimum(n, row0 + BR) if CAUSAL else n
    for k0 in range(0, end, BC):
        cols = k0 + tl.arange(0, BC)
        kt = tl.load(k + base + cols[:, None] * D + dims[None, :], mask=cols[:, None] < n,
                     other=0.0)
        vt = tl.load(v + base + cols[:, None] * D + dims[None, :], mask=cols[:, None] < n,
                     other=0.0)
        keep = cols[None, :] < n
        if CAUSAL:
            keep = keep & (cols[None, :] <= rows[:, None])
        p = tl.where(keep, tl.exp(tl.dot(qt, tl.trans(kt)) * scale - row_lse[:, None]), 0.0)
        ds = p * (tl.dot(dot, tl.trans(vt)) - row_delta[:, None])
        acc += tl.dot(ds.to(tl.float16), kt)
    tl.store(dq + base + rows[:, None] * D + dims[None, :], (acc * scale).to(tl.float16),
             mask=rows[:, None] < n)


def triton_attention_backward(q, k, v, o, lse, do, causal):
    b, h, n, d = q.shape
    scale = 1 / math.sqrt(d)
    delta = torch.empty((b * h, n), device=q.device, dtype=torch.float32)
    _attn_delta[(triton.cdiv(n, 128), b * h)](o, do, delta, n, D=d, BR=128)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    _attn_dkdv[(triton.cdiv(n, 64), b * h)](q, k, v, do, lse, delta, dk, dv, scale, n,
                                            CAUSAL=causal, D=d, BR=64, BC=64, num_warps=4,
                                            num_stages=2)
    _attn_dq[(triton.cdiv(n, 64), b * h)](q, k, v, do, lse, delta, dq, scale, n, CAUSAL=causal,
                                          D=d, BR=64, BC=64, num_warps=4, num_stages=2)
    return dq, dk, dv
