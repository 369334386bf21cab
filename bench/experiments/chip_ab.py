#!/usr/bin/env python3
"""mma.sync (--chip sm_90) against wgmma (--chip sm_90a), interleaved, on the GPU machine.

For the tensor-core rows of the GPU suite (HGEMM, tf32 GEMM and f16
attention, every variant listed below), runs `phobos-run --check --bench` for each chip in
alternation, ROUNDS times each, and prints the median kernel time of each,
their ratio (sm_90 / sm_90a: above 1 when wgmma is faster) and the peer
(cuBLAS through torch.matmul, TF32 allowed for the tf32 rows; torch SDPA) timed in the same run. Every run
checks its output against the float64 reference; the ragged sizes are run
once per variant on sm_90a, checked only.

Usage: python3 bench/experiments/chip_ab.py BINDIR [--rounds 2] [--repeat 30] [--only hgemm,tf32,attention]
Writes chip_ab.json to $OUT when set. Exit status 1 when a check fails.
"""
from __future__ import annotations

import os
import statistics
import sys

# Experiments live two folders below the checkout; their helpers
# (phobos_run, timing) are in bench/.
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from phobos_run import ab_parser, checks_summary, interleaved_runs, run_json, save_to_out


def workloads():
    for size in (4096, 8192):
        for tm, tn, tk in ((128, 128, 32), (128, 128, 64), (128, 256, 32), (128, 256, 64),
                           (64, 128, 32)):
            if size == 8192 and (tm, tn, tk) == (64, 128, 32):
                continue
            yield ("hgemm", "gemm_f16_tc.ph", {"M": size, "N": size, "K": size},
                   {"TILE_M": tm, "TILE_N": tn, "TILE_K": tk}, {"alpha": 1.0, "beta": 0.0})
    for tm, tn, tk in ((128, 128, 32), (128, 128, 16), (128, 256, 32)):
        yield ("tf32", "gemm_f32_tc.ph", {"M": 4096, "N": 4096, "K": 4096},
               {"TILE_M": tm, "TILE_N": tn, "TILE_K": tk}, {})
    for br, bc in ((128, 64), (128, 128), (64, 64)):
        yield ("attention", "flash_attention_fp16.ph", {"BH": 128, "Nq": 4096, "Nk": 4096},
               {"D": 64, "BR": br, "BC": bc}, {"scale": 0.125})


RAGGED = {
    # K and N multiples of 8 take the TMA path (ragged M and K through its
    # zero fill), odd ones cp.async.
    "gemm_f16_tc.ph": [{"M": 1003, "N": 520, "K": 999}, {"M": 129, "N": 257, "K": 40},
                       {"M": 1003, "N": 520, "K": 1000}, {"M": 129, "N": 264, "K": 40}],
    "gemm_f32_tc.ph": [{"M": 1003, "N": 520, "K": 999}, {"M": 129, "N": 257, "K": 40}],
    "flash_attention_fp16.ph": [{"BH": 3, "Nq": 1001, "Nk": 777}],
}


def run(bindir, example, dims, variant, scalars, repeat, chip, bench=True):
    return run_json(bindir, os.path.join(ROOT, "examples", example), dims, variant, scalars,
                    repeat if bench else 0, (f"--chip={chip}",))


def peer_ms(kind, dims):
    try:
        import torch
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        from timing import median_ms
    except ImportError:
        return float("nan")
    if kind in ("hgemm", "tf32"):
        dtype = torch.float16 if kind == "hgemm" else torch.float32
        torch.backends.cuda.matmul.allow_tf32 = kind == "tf32"
        a = torch.randn(dims["M"], dims["K"], device="cuda", dtype=dtype)
        b = torch.randn(dims["K"], dims["N"], device="cuda", dtype=dtype)
        return median_ms(lambda: torch.matmul(a, b))
    q, k, v = (torch.randn(4, 32, dims["Nq"], 64, device="cuda", dtype=torch.float16)
               for _ in range(3))
    return median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v),
                     reps=10)


def main() -> int:
    args = ab_parser(rounds=2, only=True).parse_args()
    only = [w for w in args.only.split(",") if w]
    rows, peers = [], {}
    for kind, example, dims, variant, scalars in workloads():
        if only and kind not in only:
            continue
        times, checks = interleaved_runs(
            args.rounds, ("sm_90", "sm_90a"),
            lambda chip: run(args.bindir, example, dims, variant, scalars, args.repeat, chip),
            lambda chip: f"{example} {variant} {chip}")
        for ragged in RAGGED[example]:
            result = run(args.bindir, example, ragged, variant, scalars, 1, "sm_90a",
                         bench=False)
            checks.append(result.get("check"))
            if result.get("check") != "ok":
                print(f"  ragged {example} {ragged} {variant}: {result}", flush=True)
        key = (kind, tuple(dims.values()))
        if key not in peers:
            peers[key] = peer_ms(kind, dims)
        mma = statistics.median(times["sm_90"])
        wg = statistics.median(times["sm_90a"])
        row = {"kind": kind, "example": example,
               "sizes": "x".join(str(v) for v in dims.values()),
               "variant": ",".join(f"{k}={v}" for k, v in variant.items()),
               "mma_sync_ms": mma, "wgmma_ms": wg,
               "ratio": mma / wg if wg > 0 else float("nan"),
               "peer_ms": peers[key],
               "wgmma_vs_peer": peers[key] / wg if wg > 0 else float("nan"),
               "checks": checks_summary(checks)}
        rows.append(row)
        print(f"{kind:9} {row['sizes']:16} {row['variant']:30} mma.sync {mma:8.3f} ms "
              f"wgmma {wg:8.3f} ms  {row['ratio']:.2f}x  peer {peers[key]:.3f} ms "
              f"-> {row['wgmma_vs_peer']:.3f}  {row['checks']}", flush=True)
    save_to_out("chip_ab.json", rows)
    return 0 if all(r["checks"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
