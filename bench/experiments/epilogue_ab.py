#!/usr/bin/env python3
"""Where a fused GEMM epilogue's time goes, on the GPU machine.

Times examples/gemm_gelu_f16.ph (C = gelu(A @ B + bias) + R, GELU with
`tanh`) with the epilogue ordered store by store (the default) and op by op
(`--experiment epilogue-order=0`), the same kernel with GELU written as
`x - x / (exp(2u) + 1)` (exp and a correctly rounded division, the form
before `tanh` was a built-in) and as `x - x * rsqrt(d * d)` (no division),
the plain f16 GEMM of the same shape (beta 0: the epilogue's floor), and the
peers: cuBLASLt's GELU_BIAS epilogue
(torch._addmm_activation) plus torch's residual add, and torch.matmul.
Every Phobos run checks its output against the float64 reference. Prints a
table; writes epilogue_ab.json to $OUT when set.

Usage: python3 bench/experiments/epilogue_ab.py BINDIR [--sizes 4096x4096x4096,...]
           [--variant TILE_M=128,TILE_N=256,TILE_K=64] [--repeat 20]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from phobos_run import run_json, save_to_out  # noqa: E402
from timing import median_ms  # noqa: E402

TANH = "    let g = 0.5 * x * (1.0 + tanh(u))\n"
FORMS = {"division": "    let g = x - x / (exp(2.0 * u) + 1.0)\n",
         "rsqrt": "    let e1 = exp(2.0 * u) + 1.0\n    let g = x - x * rsqrt(e1 * e1)\n"}


def gelu_copy(form: str, directory: str) -> str:
    """The example with its GELU line written in `form` (FORMS)."""
    text = open(os.path.join(ROOT, "examples", "gemm_gelu_f16.ph")).read()
    if TANH not in text:
        raise SystemExit("epilogue_ab: the example's GELU line changed; update TANH")
    path = os.path.join(directory, f"gemm_gelu_{form}.ph")
    with open(path, "w") as handle:
        handle.write(text.replace(TANH, FORMS[form]))
    return path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("bindir")
    parser.add_argument("--sizes", default="4096x4096x4096,4100x4104x1000")
    parser.add_argument("--variant", default="TILE_M=128,TILE_N=256,TILE_K=64")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    import torch

    variant = {k: int(v) for k, v in (item.split("=") for item in args.variant.split(","))}
    example = os.path.join(ROOT, "examples", "gemm_gelu_f16.ph")
    directory = tempfile.mkdtemp(prefix="phobos-epilogue-ab-")
    division, rsqrt = gelu_copy("division", directory), gelu_copy("rsqrt", directory)
    op_by_op = ("--experiment=epilogue-order=0",)
    arms = [("f16 GEMM, no epilogue", os.path.join(ROOT, "examples", "gemm_f16_tc.ph"), (),
             {"alpha": 1.0, "beta": 0.0}),
            ("gelu tanh, store by store", example, (), {"alpha": 1.0}),
            ("gelu tanh, op by op", example, op_by_op, {"alpha": 1.0}),
            ("gelu division, store by store", division, (), {"alpha": 1.0}),
            ("gelu division, op by op", division, op_by_op, {"alpha": 1.0}),
            ("gelu rsqrt, store by store", rsqrt, (), {"alpha": 1.0})]
    rows, failures = [], 0
    for size in args.sizes.split(","):
        m, n, k = (int(v) for v in size.split("x"))
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        bias = torch.randn(n, device="cuda", dtype=torch.float16)
        r = torch.randn(m, n, device="cuda", dtype=torch.float16)
        lt = median_ms(lambda: torch._addmm_activation(bias, a, b, use_gelu=True).add_(r), reps=10)
        mm = median_ms(lambda: torch.matmul(a, b), reps=10)
        for label, path, extra, scalars in arms:
            result = run_json(args.bindir, path, {"M": m, "N": n, "K": k}, variant, scalars,
                              args.repeat, extra=extra)
            failures += result.get("check") != "ok"
            rows.append({"sizes": size, "arm": label, "check": result.get("check"),
                         "ms": result.get("time_ms"), "cublaslt_add_ms": lt, "matmul_ms": mm})
            print(rows[-1], flush=True)
        del a, b, bias, r
    print(f"\n{'sizes':16} {'arm':30} {'check':6} {'ms':>8} {'vs cuBLASLt+add':>16}")
    for row in rows:
        ms = row["ms"] or float("nan")
        print(f"{row['sizes']:16} {row['arm']:30} {row['check']!s:6} {ms:8.4f} "
              f"{row['cublaslt_add_ms'] / ms:16.3f}")
    save_to_out("epilogue_ab.json", rows)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
