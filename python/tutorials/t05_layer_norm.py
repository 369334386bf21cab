"""Tutorial 05: layer normalisation, forward and backward.

y = (x - mean) * rstd * w + b over each row of x, and its gradients. It shows

- a two-pass row reduction over column blocks (mean, then variance), with the
  statistics kept in f32 while the tensors are f16;
- a backward pass that needs a reduction *across* CTAs: every row contributes
  to dw and db. Each CTA adds its row's contribution into one of G partial
  rows with ``ph.atomic_add`` (so that CTAs of different groups do not
  contend), and a second small kernel sums the G partial rows (``ph.colsum``);
- ``ph.atomic_add(T[slice], value)``: a statement, each element added
  atomically; elements outside the tensor are skipped like a masked store.
"""

from __future__ import annotations

from typing import Any

import phobos.lang as ph

from _common import cdiv, empty, zeros


@ph.kernel
@ph.autotune(BN=[1024, 256, 512, 2048, 4096])
def layer_norm_fwd(x: ph.tensor[ph.f16][M, N], w: ph.tensor[ph.f16][N], b: ph.tensor[ph.f16][N],
                   y: ph.tensor[ph.f16][M, N], mean: ph.tensor[ph.f32][M],
                   rstd: ph.tensor[ph.f32][M], eps: ph.f32):
    row: ph.let = ph.program_id(0)
    total: ph.var[ph.tile[ph.f32][1, BN]] = 0.0
    for c0 in range(0, N, BN):
        total += ph.f32(x[row:+1, c0:+BN])  # masked columns read 0
    mu: ph.let = ph.rowsum(total) / ph.f32(N)
    squares: ph.var[ph.tile[ph.f32][1, BN]] = 0.0
    for c0 in range(0, N, BN):
        cols: ph.let = c0 + ph.arange(BN)
        d: ph.let = ph.where(cols < N, ph.f32(x[row:+1, c0:+BN]) - mu, 0.0)
        squares += d * d
    r: ph.let = ph.rsqrt(ph.rowsum(squares) / ph.f32(N) + eps)
    mean[row:+1] = ph.reshape(mu, 1)
    rstd[row:+1] = ph.reshape(r, 1)
    for c0 in range(0, N, BN):
        xhat: ph.let = (ph.f32(x[row:+1, c0:+BN]) - mu) * r
        y[row:+1, c0:+BN] = xhat * w[c0:+BN] + b[c0:+BN]


@ph.kernel
@ph.autotune(BN=[1024, 256, 512, 2048, 4096])
def layer_norm_bwd_dx(x: ph.tensor[ph.f16][M, N], w: ph.tensor[ph.f16][N],
                      dy: ph.tensor[ph.f16][M, N], mean: ph.tensor[ph.f32][M],
                      rstd: ph.tensor[ph.f32][M], dx: ph.tensor[ph.f16][M, N],
                      dw_partial: ph.tensor[ph.f32][G, N], db_partial: ph.tensor[ph.f32][G, N]):
    row: ph.let = ph.program_id(0)
    group: ph.let = row % G
    mu: ph.let = ph.reshape(mean[row:+1], 1, 1)
    r: ph.let = ph.reshape(rstd[row:+1], 1, 1)
    # dx = (w*dy - (xhat * mean(xhat*w*dy) + mean(w*dy))) * rstd
    c1: ph.var[ph.tile[ph.f32][1, BN]] = 0.0
    c2: ph.var[ph.tile[ph.f32][1, BN]] = 0.0
    for c0 in range(0, N, BN):
        xhat: ph.let = (ph.f32(x[row:+1, c0:+BN]) - mu) * r
        wdy: ph.let = ph.f32(w[c0:+BN]) * ph.f32(dy[row:+1, c0:+BN])  # 0 past N
        c1 += xhat * wdy
        c2 += wdy
    mean_xwdy: ph.let = ph.rowsum(c1) / ph.f32(N)
    mean_wdy: ph.let = ph.rowsum(c2) / ph.f32(N)
    for c0 in range(0, N, BN):
        xhat: ph.let = (ph.f32(x[row:+1, c0:+BN]) - mu) * r
        g: ph.let = ph.f32(dy[row:+1, c0:+BN])
        wdy: ph.let = ph.f32(w[c0:+BN]) * g
        dx[row:+1, c0:+BN] = (wdy - (xhat * mean_xwdy + mean_wdy)) * r
        # This row's share of dw and db, into its group's partial row.
        ph.atomic_add(dw_partial[group:+1, c0:+BN], g * xhat)
        ph.atomic_add(db_partial[group:+1, c0:+BN], g)


@ph.kernel
@ph.autotune(BN=[128, 64, 256], BG=[32, 64])
def layer_norm_bwd_dwdb(dw_partial: ph.tensor[ph.f32][G, N], db_partial: ph.tensor[ph.f32][G, N],
                        dw: ph.tensor[ph.f16][N], db: ph.tensor[ph.f16][N]):
    c0: ph.let = ph.program_id(0) * BN
    sum_w: ph.var[ph.tile[ph.f32][BG, BN]] = 0.0
    sum_b: ph.var[ph.tile[ph.f32][BG, BN]] = 0.0
    for g0 in range(0, G, BG):
        sum_w += dw_partial[g0:+BG, c0:+BN]
        sum_b += db_partial[g0:+BG, c0:+BN]
    dw[c0:+BN] = ph.reshape(ph.colsum(sum_w), BN)
    db[c0:+BN] = ph.reshape(ph.colsum(sum_b), BN)


def _block(n: int) -> int:
    """The column block: the whole row up to 4096 (one pass over memory per loop)."""
    return min(4096, max(256, 1 << (n - 1).bit_length()))


def layer_norm(x: Any, w: Any, b: Any, eps: float = 1e-5) -> tuple[Any, Any, Any]:
    """(y, mean, rstd) for f16 x [M, N], w, b [N] (NumPy or torch CUDA)."""
    m, n = x.shape
    y = empty(x, (m, n), "f16")
    mean = empty(x, (m,), "f32")
    rstd = empty(x, (m,), "f32")
    layer_norm_fwd[(m,)](x, w, b, y, mean, rstd, eps, BN=_block(n))
    return y, mean, rstd


def layer_norm_backward(x: Any, w: Any, dy: Any, mean: Any, rstd: Any,
                        groups: int | None = None) -> tuple[Any, Any, Any]:
    """(dx, dw, db) given the forward's statistics."""
    m, n = x.shape
    # More groups: less contention on the atomics, more to sum afterwards.
    groups = groups or (256 if n <= 1024 else 128 if n <= 4096 else 64)
    dx = empty(x, (m, n), "f16")
    dw_partial = zeros(x, (groups, n), "f32")
    db_partial = zeros(x, (groups, n), "f32")
    layer_norm_bwd_dx[(m,)](x, w, dy, mean, rstd, dx, dw_partial, db_partial, BN=_block(n))
    dw = empty(x, (n,), "f16")
    db = empty(x, (n,), "f16")
    layer_norm_bwd_dwdb[lambda meta: (cdiv(n, meta["BN"]),)](dw_partial, db_partial, dw, db)
    return dx, dw, db


def main() -> None:
    import torch

    from _common import bench_ms, quick, report
    from _triton_peers import triton_layer_norm, triton_layer_norm_backward

    torch.manual_seed(0)
    m, n = 1151, 8192
    x = torch.randn(m, n, device="cuda", dtype=torch.float16, requires_grad=True)
    w = torch.rand(n, device="cuda", dtype=torch.float16, requires_grad=True)
    b = torch.rand(n, device="cuda", dtype=torch.float16, requires_grad=True)
    dy = 0.1 * torch.randn(m, n, device="cuda", dtype=torch.float16)
    expected = torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)
    expected.backward(dy)
    y, mean, rstd = layer_norm(x.detach(), w.detach(), b.detach())
    dx, dw, db = layer_norm_backward(x.detach(), w.detach(), dy, mean, rstd)
    torch.testing.assert_close(y, expected, rtol=0, atol=1e-2)
    torch.testing.assert_close(dx, x.grad, rtol=0, atol=1e-2)
    torch.testing.assert_close(dw, w.grad, rtol=1e-2, atol=1e-1)
    torch.testing.assert_close(db, b.grad, rtol=1e-2, atol=1e-1)
    print("t05: Phobos matches torch, forward and backward")
    rows = []
    m = 4096
    for n in range(1024, 12288 + 1, 2048 if quick() else 1024):
        x = torch.randn(m, n, device="cuda", dtype=torch.float16)
        w = torch.rand(n, device="cuda", dtype=torch.float16)
        b = torch.rand(n, device="cuda", dtype=torch.float16)
        dy = torch.randn(m, n, device="cuda", dtype=torch.float16)
        y, mean, rstd = layer_norm(x, w, b)
        fwd_gbps = lambda ms: 2 * x.numel() * 2 / ms * 1e-6
        bwd_gbps = lambda ms: 3 * x.numel() * 2 / ms * 1e-6
        triton_stats = triton_layer_norm(x, w, b)
        torch_x = x.clone().requires_grad_()
        torch_y = torch.nn.functional.layer_norm(torch_x, (n,), w, b, 1e-5)
        rows.append({
            "N": n,
            "phobos": fwd_gbps(bench_ms(lambda: layer_norm(x, w, b))),
            "triton": fwd_gbps(bench_ms(lambda: triton_layer_norm(x, w, b))),
            "torch": fwd_gbps(bench_ms(
                lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5))),
            "phobos_bwd": bwd_gbps(bench_ms(
                lambda: layer_norm_backward(x, w, dy, mean, rstd))),
            "triton_bwd": bwd_gbps(bench_ms(
                lambda: triton_layer_norm_backward(x, w, dy, *triton_stats[1:]))),
            "torch_bwd": bwd_gbps(bench_ms(
                lambda: torch_y.backward(dy, retain_graph=True))),
        })
    for row in rows:
        row["ratio_to_triton_bwd"] = row["phobos_bwd"] / row["triton_bwd"]
    report("t05-layer-norm", "layer norm, f16, M = 4096 (forward; _bwd: backward)", "N", "GB/s",
           rows, ["phobos", "triton", "torch", "phobos_bwd", "triton_bwd", "torch_bwd"])


if __name__ == "__main__":
    main()
