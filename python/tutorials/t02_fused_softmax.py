"""Tutorial 02: fused softmax.

Row-wise softmax of a matrix whose rows fit in one tile: each CTA reads its
row once, keeps it in registers and writes the result once, where the
unfused version (max, subtract, exp, sum, divide as separate kernels) reads
and writes the matrix several times. It shows

- reductions along a tile's rows (``ph.rowmax``, ``ph.rowsum``) whose ``[R, 1]``
  results broadcast back over the row for free;
- masking the columns past N with ``ph.arange`` and ``ph.where`` (a masked load
  reads 0, which is the wrong neutral element for a max);
- dividing by a row's sum as one reciprocal per row and a product per
  element: ``/`` on floats is IEEE division, several instructions per element
  (Triton's ``/`` is the approximate ``div.full.f32``);
- choosing the variant at launch: ``BN``, the tile width, is the next power of
  two of the row length, passed as a keyword;
- no ``@ph.launch``: the compiler sizes the CTA from the tile (one thread per
  two 16-byte vectors of the row, 4 to 16 warps), where Triton's tutorial
  picks ``num_warps`` from the block size by hand.
"""

from __future__ import annotations

from typing import Any

import phobos.lang as ph

from _common import empty, next_power_of_2


@ph.kernel
@ph.autotune(BN=[128, 32768])
def softmax_kernel(x: ph.tensor[ph.f32][M, N], y: ph.tensor[ph.f32][M, N]):
    row: ph.let = ph.program_id(0)
    cols: ph.let = ph.arange(BN)
    # Columns past N read -inf's stand-in, so they add exp(-huge) = 0.
    z: ph.let = ph.where(cols < N, x[row:+1, 0:+BN], -3.0e38)
    shifted: ph.let = z - ph.rowmax(z)
    numerator: ph.let = ph.exp(shifted)
    # One division per row, then a product per element: ``/`` on floats is
    # IEEE division, several instructions per element (Triton's ``/`` is the
    # approximate div.full.f32, 2 ulp; this is within 1.5 ulp).
    y[row:+1, 0:+BN] = numerator * (1.0 / ph.rowsum(numerator))


def softmax(x: Any) -> Any:
    """softmax(x, axis=1) of an f32 matrix (NumPy or torch CUDA)."""
    rows, cols = x.shape
    y = empty(x, x.shape, "f32")
    softmax_kernel[(rows,)](x, y, BN=max(128, next_power_of_2(cols)))
    return y


def main() -> None:
    import torch

    from _common import bench_ms, quick, report
    from _triton_peers import triton_softmax

    torch.manual_seed(0)
    x = torch.randn(1823, 781, device="cuda")
    torch.testing.assert_close(softmax(x), torch.softmax(x, dim=1))
    print("t02: Phobos matches torch")
    rows = []
    for n in range(256, 12800 + 1, 2048 if quick() else 1024):
        x = torch.randn(4096, n, device="cuda")
        gbps = lambda ms: 2 * x.numel() * 4 / ms * 1e-6
        rows.append({"N": n,
                     "phobos": gbps(bench_ms(lambda: softmax(x))),
                     "triton": gbps(bench_ms(lambda: triton_softmax(x))),
                     "torch": gbps(bench_ms(lambda: torch.softmax(x, dim=1)))})
    report("t02-fused-softmax", "fused softmax, f32, M = 4096", "N", "GB/s", rows,
           ["phobos", "triton", "torch"])


if __name__ == "__main__":
    main()
