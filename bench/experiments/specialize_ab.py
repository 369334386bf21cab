#!/usr/bin/env python3
"""phobos-run with and without --specialize, interleaved, on the GPU machine.

For each workload of the GPU suite's GEMM, attention, softmax and layer norm rows (every variant
the suite tries), runs `phobos-run --check --bench` of the general kernel and
of the kernel specialised for the launch's extents (--specialize) in
alternation, ROUNDS times each, and prints the median kernel time of each
and their ratio (general / specialised: above 1 when specialising is
faster). Every run checks its output against the float64 reference.

Usage: python3 bench/experiments/specialize_ab.py BINDIR [--rounds 2] [--repeat 30]
           [--only sgemm,tf32,hgemm,attention,softmax,layernorm]
Writes specialize_ab.json to $OUT when set.
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
    gemm = {"alpha": 1.0, "beta": 0.5}
    for size in (4096, 8192):
        for tm, tn, tk in ((128, 128, 8), (128, 128, 16), (64, 64, 16), (128, 64, 16)):
            yield ("sgemm", "sgemm_fp32.ph", {"M": size, "N": size, "K": size},
                   {"TILE_M": tm, "TILE_N": tn, "TILE_K": tk}, gemm)
    for tm, tn, tk in ((128, 128, 32), (128, 256, 32), (64, 128, 32)):
        yield ("tf32", "gemm_f32_tc.ph", {"M": 4096, "N": 4096, "K": 4096},
               {"TILE_M": tm, "TILE_N": tn, "TILE_K": tk}, {})
    for tm, tn, tk in ((128, 128, 32), (128, 256, 32), (64, 128, 64), (128, 128, 64)):
        yield ("hgemm", "gemm_f16_tc.ph", {"M": 4096, "N": 4096, "K": 4096},
               {"TILE_M": tm, "TILE_N": tn, "TILE_K": tk}, {"alpha": 1.0, "beta": 0.0})
    for bm, bn in ((1, 4096), (4, 1024), (1, 1024), (16, 256)):
        yield ("softmax", "softmax.ph", {"M": 32768, "N": 4096}, {"BM": bm, "BN": bn}, {})
    for bm, bn in ((1, 1024), (4, 1024), (1, 4096)):
        yield ("layernorm", "layernorm.ph", {"M": 4096, "N": 8192}, {"BM": bm, "BN": bn},
               {"eps": 1e-5})
    for example, extra in (("flash_attention_fp16.ph", [(128, 128)]),
                           ("flash_attention_fp32.ph", [])):
        for br, bc in [(64, 64), (128, 64), (64, 32)] + extra:
            yield ("attention", example, {"BH": 128, "Nq": 4096, "Nk": 4096},
                   {"D": 64, "BR": br, "BC": bc}, {"scale": 0.125})


def run(bindir, example, dims, variant, scalars, repeat, specialize):
    # Explicit both ways: phobos-run specialises by default.
    return run_json(bindir, os.path.join(ROOT, "examples", example), dims, variant, scalars,
                    repeat, ("--specialize" if specialize else "--no-specialize",))


def main() -> int:
    args = ab_parser(rounds=2, only=True).parse_args()
    only = [w for w in args.only.split(",") if w]
    rows = []
    for kind, example, dims, variant, scalars in workloads():
        if only and kind not in only:
            continue
        times, checks = interleaved_runs(
            args.rounds, (False, True),
            lambda specialize: run(args.bindir, example, dims, variant, scalars, args.repeat,
                                   specialize),
            lambda specialize: f"{example} {variant} specialize={specialize}")
        general = statistics.median(times[False])
        special = statistics.median(times[True])
        row = {"kind": kind, "example": example,
               "sizes": "x".join(str(v) for v in dims.values()),
               "variant": ",".join(f"{k}={v}" for k, v in variant.items()),
               "general_ms": general, "specialized_ms": special,
               "ratio": general / special if special > 0 else float("nan"),
               "checks": checks_summary(checks)}
        rows.append(row)
        print(f"{kind:9} {row['sizes']:16} {row['variant']:28} general {general:8.3f} ms "
              f"specialised {special:8.3f} ms  {row['ratio']:.3f}x  {row['checks']}",
              flush=True)
    save_to_out("specialize_ab.json", rows)
    return 0 if all(r["checks"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
