"""The tutorials (python/tutorials) on the CPU: every kernel through the
interpreter on small, ragged problems, against NumPy in float64."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "python" / "tutorials"))

import t01_vector_add  # noqa: E402
import t02_fused_softmax  # noqa: E402
import t03_matmul  # noqa: E402
import t05_layer_norm  # noqa: E402
import t06_fused_attention  # noqa: E402


def test_01_vector_add_ragged():
    rng = np.random.default_rng(1)
    x = rng.random(1000, dtype=np.float32)
    y = rng.random(1000, dtype=np.float32)
    np.testing.assert_array_equal(t01_vector_add.add(x, y, BLOCK=256), x + y)
    np.testing.assert_array_equal(t01_vector_add.add(x[:7], y[:7]), x[:7] + y[:7])


def _softmax64(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("shape", [(37, 200), (5, 5), (3, 1000)])
def test_02_fused_softmax(shape):
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32) * 4
    np.testing.assert_allclose(t02_fused_softmax.softmax(x), _softmax64(x), rtol=1e-5,
                               atol=1e-7)


def _matmul64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a.astype(np.float64) @ b.astype(np.float64)


def test_03_matmul_grouped_ordering_covers_every_tile():
    # 5 x 3 tiles of 64 x 64 in groups of 4 tile rows: the last group has one
    # row, and every tile of C must be computed exactly once.
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 40)).astype(np.float16)
    b = rng.standard_normal((40, 150)).astype(np.float16)
    c = t03_matmul.matmul(a, b, BM=64, BN=64, BK=32, GROUP_M=4)
    expected = _matmul64(a, b)
    assert np.abs(c - expected).max() <= 1e-2 * np.abs(expected).max()


def test_03_matmul_autotunes_on_the_cpu():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 64)).astype(np.float16)
    b = rng.standard_normal((64, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float16)
    candidates = [dict(BM=64, BN=64, BK=32, GROUP_M=8), dict(BM=64, BN=64, BK=64, GROUP_M=4)]
    result = t03_matmul.matmul_kernel.tune(t03_matmul.grid, a, b, c, variants=candidates,
                                           reference=lambda a, b, c: a @ b, quiet=True)
    assert result.best in candidates
    assert [row["status"] for row in result.results] == ["ok", "ok"]
    expected = _matmul64(a, b)
    assert np.abs(c - expected).max() <= 1e-2 * np.abs(expected).max()


def _layer_norm64(x, w, b, eps=1e-5):
    x = x.astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(x.var(axis=1, keepdims=True) + eps)
    return (x - mean) * rstd * w + b, mean[:, 0], rstd[:, 0]


def test_05_layer_norm_forward_and_backward():
    rng = np.random.default_rng(5)
    m, n = 37, 300
    x = rng.standard_normal((m, n)).astype(np.float16)
    w = rng.random(n).astype(np.float16)
    b = rng.random(n).astype(np.float16)
    dy = rng.standard_normal((m, n)).astype(np.float16)
    y, mean, rstd = t05_layer_norm.layer_norm(x, w, b)
    want, want_mean, want_rstd = _layer_norm64(x, w.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(y, want, atol=1e-2)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, want_rstd, rtol=1e-4)
    # Four groups: rows of different CTAs add into the same partial rows.
    dx, dw, db = t05_layer_norm.layer_norm_backward(x, w, dy, mean, rstd, groups=4)
    xhat = (x.astype(np.float64) - want_mean[:, None]) * want_rstd[:, None]
    g = dy.astype(np.float64)
    wdy = w.astype(np.float64) * g
    want_dx = (wdy - (xhat * (xhat * wdy).mean(1, keepdims=True) +
                      wdy.mean(1, keepdims=True))) * want_rstd[:, None]
    np.testing.assert_allclose(dx, want_dx, atol=2e-2)
    np.testing.assert_allclose(dw, (g * xhat).sum(0), rtol=1e-2, atol=5e-2)
    np.testing.assert_allclose(db, g.sum(0), rtol=1e-2, atol=5e-2)


def _attention64(q, k, v, do, causal, scale):
    q, k, v, do = (t.astype(np.float64) for t in (q, k, v, do))
    s = scale * q @ np.swapaxes(k, -1, -2)
    if causal:
        n = q.shape[-2]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = p @ v
    dv = np.swapaxes(p, -1, -2) @ do
    dp = do @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    return o, ds @ k * scale, np.swapaxes(ds, -1, -2) @ q * scale, dv


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
def test_06_fused_attention_forward_and_backward(causal, d):
    rng = np.random.default_rng(6)
    shape = (1, 2, 40, d)
    q, k, v, do = (rng.standard_normal(shape).astype(np.float16) for _ in range(4))
    scale = d ** -0.5
    # D 64: the variant given; D 128: the wide blocks the tutorial picks.
    variant = {"BR": 64, "BC": 32} if d == 64 else {}
    o, lse = t06_fused_attention.attention(q, k, v, causal, scale, **variant)
    dq, dk, dv = t06_fused_attention.attention_backward(q, k, v, o, lse, do, causal, scale)
    want_o, want_dq, want_dk, want_dv = _attention64(q, k, v, do, causal, scale)
    np.testing.assert_allclose(o, want_o, atol=1e-2)
    # The log-sum-exp in natural units (the kernel keeps its maxima in log2
    # units and converts on the store).
    s = scale * q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    top = s.max(-1, keepdims=True)
    want_lse = (top + np.log(np.exp(s - top).sum(-1, keepdims=True)))[..., 0]
    np.testing.assert_allclose(lse, want_lse.reshape(lse.shape), rtol=1e-5, atol=1e-5)
    for got, want in ((dq, want_dq), (dk, want_dk), (dv, want_dv)):
        np.testing.assert_allclose(got, want, atol=3e-2, rtol=1e-2)
