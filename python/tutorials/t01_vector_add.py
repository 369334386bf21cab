"""Tutorial 01: vector addition.

The smallest Phobos kernel, in Python: each CTA adds one BLOCK-long slice of
two vectors. It shows

- a kernel written as a Python function (``@ph.kernel``) and its search space
  (``@ph.autotune``);
- slices, ``x[base:+BLOCK]``, which are masked at the ragged end for free (no
  offsets or masks to compute by hand, unlike Triton's ``tl.arange`` and
  ``mask=``);
- launching with a grid that depends on the problem and the variant;
- the same launch on NumPy arrays (the CPU interpreter) and on torch CUDA
  tensors (the GPU).

Run ``python t01_vector_add.py`` on a GPU machine to check it against torch and
time it against Triton's kernel for the same job (docs/tutorials/).
"""

from __future__ import annotations

from typing import Any

import phobos.lang as ph

from _common import cdiv, empty


@ph.kernel
@ph.autotune(BLOCK=[1024, 256, 512, 2048, 4096])
def add_kernel(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N], out: ph.tensor[ph.f32][N]):
    base: ph.let = ph.program_id(0) * BLOCK
    # Elements past N are neither read nor written: slices mask themselves.
    out[base:+BLOCK] = x[base:+BLOCK] + y[base:+BLOCK]


def add(x: Any, y: Any, **variant: int) -> Any:
    """x + y for two f32 vectors (NumPy or torch CUDA)."""
    out = empty(x, x.shape, "f32")
    add_kernel[lambda meta: (cdiv(meta["N"], meta["BLOCK"]),)](x, y, out, **variant)
    return out


def main() -> None:
    import torch

    from _common import bench_ms, quick, report
    from _triton_peers import triton_add

    torch.manual_seed(0)
    x = torch.rand(98432, device="cuda")
    y = torch.rand(98432, device="cuda")
    torch.testing.assert_close(add(x, y), x + y, rtol=0, atol=0)
    print("t01: Phobos matches torch")
    rows = []
    sizes = [2 ** p for p in range(12, 29, 4 if quick() else 2)]
    for n in sizes:
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        gbps = lambda ms: 3 * n * 4 / ms * 1e-6
        rows.append({"size": n,
                     "phobos": gbps(bench_ms(lambda: add(x, y))),
                     "triton": gbps(bench_ms(lambda: triton_add(x, y))),
                     "torch": gbps(bench_ms(lambda: x + y))})
    report("t01-vector-add", "vector add, f32", "size", "GB/s", rows,
           ["phobos", "triton", "torch"])


if __name__ == "__main__":
    main()
