"""Inputs and float64 references for every example, shared by the tests and
bench/python_gpu.py (which must not need pytest)."""

from __future__ import annotations

import numpy as np

rng = np.random.default_rng(1)


def uniform(*shape, dtype=np.float32, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape).astype(dtype)


def poison(*shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype)


def gemm(args):
    a, b, c, alpha, beta = args
    return {"C": alpha * (a.astype(np.float64) @ b.astype(np.float64)) + beta * c.astype(np.float64)}


def gemm_gelu(args):
    a, b, bias, r, c, alpha = args
    x = alpha * (a.astype(np.float64) @ b.astype(np.float64)) + bias.astype(np.float64)
    gelu = 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))
    return {"C": gelu + r.astype(np.float64)}


def attention(args):
    q, k, v, o, scale = args
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    s = scale * q @ np.swapaxes(k, -1, -2)
    p = np.exp(s - s.max(-1, keepdims=True))
    return {"O": (p @ v) / p.sum(-1, keepdims=True)}


def gla(args):
    q, k, v, g, o = (t.astype(np.float64) for t in args)
    out = np.zeros_like(o)
    for bh in range(q.shape[0]):
        state = np.zeros((q.shape[2], v.shape[2]))
        for t in range(q.shape[1]):
            state = np.exp(g[bh, t])[:, None] * state + np.outer(k[bh, t], v[bh, t])
            out[bh, t] = q[bh, t] @ state
    return {"O": out}


def softmax(args):
    x = args[0].astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    return {"Y": e / e.sum(1, keepdims=True)}


def layernorm(args):
    x, w, b, y, eps = args
    x = x.astype(np.float64)
    mu, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    return {"Y": (x - mu) / np.sqrt(var + eps) * w.astype(np.float64) + b.astype(np.float64)}


def outer_update(args):
    x, y, c, alpha = args
    m, n = c.shape
    lower = np.arange(n)[None, :] <= np.arange(m)[:, None]
    outer = alpha * np.outer(x.astype(np.float64), y.astype(np.float64))
    return {"C": c.astype(np.float64) + np.where(lower, outer, 0.0)}


CASES = {
    "saxpy_fp32": (lambda: [uniform(1000), uniform(1000), poison(1000), 1.5],
                   lambda a: {"out": a[3] * a[0].astype(np.float64) + a[1]}, 1e-6, {}),
    "vector_add": (lambda: [uniform(3000), uniform(3000), poison(3000)],
                   lambda a: {"c": a[0].astype(np.float64) + a[1]}, 1e-6, {}),
    "sgemm_fp32": (lambda: [uniform(70, 33), uniform(33, 65), uniform(70, 65), 1.25, 0.5],
                   gemm, 1e-5, {}),
    # N and K multiples of 8: on sm_90a the launch copies A and B through TMA.
    "gemm_f16_tc": (lambda: [uniform(70, 40, dtype=np.float16), uniform(40, 136, dtype=np.float16),
                             uniform(70, 136, dtype=np.float16), 1.25, 0.5], gemm, 1e-2, {}),
    "gemm_gelu_f16": (lambda: [uniform(70, 40, dtype=np.float16), uniform(40, 136, dtype=np.float16),
                               uniform(136, dtype=np.float16), uniform(70, 136, dtype=np.float16),
                               poison(70, 136, dtype=np.float16), 1.25], gemm_gelu, 1e-2, {}),
    # NumPy has no bf16 arrays: no inputs (the Python tests only round-trip its
    # source; phobos-run and bench/gpu_suite.py run it).
    "gemm_bf16_tc": (None, gemm, 1e-2, {}),
    "gemm_f32_tc": (lambda: [uniform(70, 40), uniform(40, 130), uniform(70, 130), 1.25, 0.5],
                    gemm, 5e-3, {}),
    "cluster_matmul": (lambda: [uniform(64, 8), uniform(8, 32), uniform(64, 32), 1.25, 0.5],
                       gemm, 1e-5, {}),
    "flash_attention_fp32": (lambda: [uniform(2, 70, 64), uniform(2, 50, 64), uniform(2, 50, 64),
                                      poison(2, 70, 64), 0.125], attention, 1e-5, {}),
    "flash_attention_fp16": (lambda: [uniform(2, 70, 64, dtype=np.float16),
                                      uniform(2, 50, 64, dtype=np.float16),
                                      uniform(2, 50, 64, dtype=np.float16),
                                      poison(2, 70, 64, dtype=np.float16), 0.125], attention, 1e-2, {}),
    "flash_attention_tf32": (lambda: [uniform(2, 70, 64), uniform(2, 50, 64), uniform(2, 50, 64),
                                      poison(2, 70, 64), 0.125], attention, 1e-2, {}),
    "cluster_flash_attention": (lambda: [uniform(40, 64), uniform(50, 64), uniform(50, 64),
                                         poison(40, 64), 0.125], attention, 1e-5, {}),
    "kda_chunk": (lambda: [uniform(1, 70, 64), uniform(1, 70, 64), uniform(1, 70, 64),
                           uniform(1, 70, 64, low=-0.5, high=0.0), poison(1, 70, 64)], gla, 1e-4, {}),
    "softmax": (lambda: [uniform(5, 300), poison(5, 300)], softmax, 1e-5, {}),
    "layernorm": (lambda: [uniform(5, 300, dtype=np.float16), uniform(300, dtype=np.float16),
                           uniform(300, dtype=np.float16), poison(5, 300, dtype=np.float16), 1e-5],
                  layernorm, 1e-2, {}),
    "outer_update": (lambda: [uniform(77), uniform(150), uniform(77, 150), 1.5],
                     outer_update, 1e-5, {}),
}
