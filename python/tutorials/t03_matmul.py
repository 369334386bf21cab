"""Tutorial 03: matrix multiplication, autotuned, with grouped ordering.

C = A @ B for f16 matrices with f32 accumulation on tensor cores. It shows

- a blocked matmul: each CTA computes one ``[BM, BN]`` tile of C, walking K in
  ``BK`` steps with ``ph.dot`` (``@ph.tensorcore``: mma/wgmma; ``@ph.pipeline``:
  the loads of the next step overlap the current one);
- *grouped ordering*: program ids are mapped to tiles of C in groups of
  ``GROUP_M`` rows of tiles, column by column inside a group, so that CTAs
  running at the same time share rows of A and columns of B in the L2 cache;
- the autotuner: ``search=True`` makes the first launch of each problem shape
  search the ``@ph.autotune`` space (compile every variant in parallel, check
  each against the interpreter on a small problem, time the ones that pass,
  remember the fastest in the tuning cache); later launches of that shape,
  in this process or another, use the winner without searching.
"""

from __future__ import annotations

from typing import Any

import phobos.lang as ph

from _common import cdiv, empty


@ph.kernel
@ph.autotune(BM=[128, 64], BN=[128, 256, 64], BK=[64, 32], GROUP_M=[8, 4], search=True)
@ph.launch(256)
@ph.pipeline
@ph.tensorcore
def matmul_kernel(a: ph.tensor[ph.f16][M, K], b: ph.tensor[ph.f16][K, N],
                  c: ph.tensor[ph.f16][M, N]):
    pid: ph.let = ph.program_id(0)
    tiles_m: ph.let = (M + BM - 1) / BM
    tiles_n: ph.let = (N + BN - 1) / BN
    # Which group of GROUP_M tile rows this CTA is in, and where it starts.
    per_group: ph.let = GROUP_M * tiles_n
    first_m: ph.let = pid / per_group * GROUP_M
    # The last group may have fewer rows.
    group_rows: ph.let = ph.tmin(tiles_m - first_m, GROUP_M)
    tile_m: ph.let = first_m + pid % per_group % group_rows
    tile_n: ph.let = pid % per_group / group_rows
    m0: ph.let = tile_m * BM
    n0: ph.let = tile_n * BN
    acc: ph.var[ph.tile[ph.f32][BM, BN]] = 0.0
    for k0 in range(0, K, BK):
        acc += ph.dot(a[m0:+BM, k0:+BK], b[k0:+BK, n0:+BN])
    # The f32 accumulator rounds to f16 on the store.
    c[m0:+BM, n0:+BN] = acc


def grid(meta: dict[str, int]) -> tuple[int]:
    return (cdiv(meta["M"], meta["BM"]) * cdiv(meta["N"], meta["BN"]),)


def matmul(a: Any, b: Any, **variant: int) -> Any:
    """a @ b for f16 matrices (NumPy or torch CUDA), accumulated in f32."""
    c = empty(a, (a.shape[0], b.shape[1]), "f16")
    matmul_kernel[grid](a, b, c, **variant)
    return c


def main() -> None:
    import time

    import torch

    from _common import bench_ms, quick, report
    from _triton_peers import triton_matmul

    torch.manual_seed(0)
    a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    b = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    torch.testing.assert_close(matmul(a, b), a @ b, rtol=1e-2, atol=1e-1)
    print("t03: Phobos matches torch")
    rows = []
    for n in ([1024, 2048, 4096, 8192] if quick() else range(512, 8192 + 1, 512)):
        a = torch.randn(n, n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, n, device="cuda", dtype=torch.float16)
        tflops = lambda ms: 2 * n ** 3 / ms * 1e-9
        start = time.perf_counter()
        matmul(a, b)  # the first launch of this shape searches
        torch.cuda.synchronize()
        searched_s = time.perf_counter() - start
        start = time.perf_counter()
        triton_matmul(a, b)  # Triton's autotune runs its configs on the first call
        torch.cuda.synchronize()
        triton_tuned_s = time.perf_counter() - start
        rows.append({"M=N=K": n,
                     "phobos": tflops(bench_ms(lambda: matmul(a, b))),
                     "triton": tflops(bench_ms(lambda: triton_matmul(a, b))),
                     "torch": tflops(bench_ms(lambda: a @ b)),
                     "phobos_search_s": searched_s, "triton_autotune_s": triton_tuned_s})
        print(f"t03: {n}: Phobos searched in {searched_s:.1f} s, Triton tuned in "
              f"{triton_tuned_s:.1f} s")
    report("t03-matmul", "matmul, f16 in, f32 accumulation, autotuned", "M=N=K", "TFLOP/s",
           rows, ["phobos", "triton", "torch"])


if __name__ == "__main__":
    main()
