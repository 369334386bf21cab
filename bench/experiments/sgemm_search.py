#!/usr/bin/env python3
"""FMA SGEMM variants searched by phobos-tune beside cuBLAS (issue 8).

Runs `phobos-tune` over the given variants of a SGEMM file (C = alpha A B +
beta C, every variant checked against float64 first) at each size, with
cuBLAS (`torch.addmm`, TF32 off) timed before and after each search in the
same process, and prints each variant's median time and its ratio to
cuBLAS; the fastest `--top` variants are then timed again at the larger
sizes with phobos-run, between two cuBLAS timings.

Usage: python3 bench/experiments/sgemm_search.py BINDIR [--file bench/experiments/sgemm_shapes.ph]
           [--variants 'NAME=V,...;...'] [--size 4096] [--large 8192] [--top 3]
Writes sgemm_search.json to $OUT when set.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

# Experiments live two folders below the checkout; their helpers
# (phobos_run, timing) are in bench/.
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from phobos_run import run_json
from timing import median_ms

SCALARS = {"alpha": 1.0, "beta": 0.5}


def cublas_ms(size: int) -> float:
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    a, b, c = (torch.randn(size, size, device="cuda") for _ in range(3))
    return median_ms(lambda: torch.addmm(c, a, b, beta=SCALARS["beta"], alpha=SCALARS["alpha"]))


def label(variant: dict) -> str:
    keys = ("TILE_M", "TILE_N", "TILE_K", "STAGES", "THREADS")
    return " x ".join(str(variant[k]) for k in keys[:3]) + \
        f", {variant.get('STAGES', '-')} st, {variant.get('THREADS', 256)} thr"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("bindir")
    parser.add_argument("--file", default="bench/experiments/sgemm_shapes.ph")
    parser.add_argument("--variants", default="")
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--large", type=int, nargs="*", default=[8192])
    parser.add_argument("--top", type=int, default=3)
    args = parser.parse_args()
    out = os.environ.get("OUT", "/tmp")
    path = os.path.join(ROOT, args.file)
    size = args.size
    before = cublas_ms(size)
    argv = [os.path.join(args.bindir, "phobos-tune"), path, "--quiet", "--no-store", "--force",
            "--refine=3", "--json", os.path.join(out, "sgemm_search_tune.json"),
            f"--dim=M={size}", f"--dim=N={size}", f"--dim=K={size}"]
    argv += [f"--scalar={k}={v}" for k, v in SCALARS.items()]
    if args.variants:
        argv.append("--variants=" + args.variants)
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=550)
    with open(os.path.join(out, "sgemm_search_tune.txt"), "w") as handle:
        handle.write(proc.stdout + proc.stderr)
    after = cublas_ms(size)
    peer = statistics.median([before, after])
    with open(os.path.join(out, "sgemm_search_tune.json")) as handle:
        rows = json.load(handle)["variants"]
    timed = sorted((r for r in rows if isinstance(r.get("time_ms"), float)),
                   key=lambda r: r["time_ms"])
    lines = [f"cuBLAS addmm {size}^3: {before:.3f} / {after:.3f} ms",
             "| variant | ms | vs cuBLAS | registers | spill B |", "| --- | --- | --- | --- | --- |"]
    for r in timed:
        lines.append(f"| {label(r['variant'])} | {r['time_ms']:.3f} | {peer / r['time_ms']:.3f} | "
                     f"{r['registers']} | {r['spill_bytes']} |")
    for r in rows:
        if r not in timed:
            lines.append(f"| {label(r['variant'])} | {r['status']}: {r['reason'][:80]} | | | |")
    result = {"size": size, "cublas_ms": [before, after], "variants": rows, "large": []}
    for large in args.large:
        peer_before = cublas_ms(large)
        for r in timed[:args.top]:
            res = run_json(args.bindir, path, {"M": large, "N": large, "K": large}, r["variant"],
                           SCALARS, repeat=10)
            r_large = {"variant": r["variant"], "size": large, "check": res.get("check"),
                       "time_ms": res.get("time_ms")}
            result["large"].append(r_large)
        peer_after = cublas_ms(large)
        peer_large = statistics.median([peer_before, peer_after])
        lines.append(f"cuBLAS addmm {large}^3: {peer_before:.3f} / {peer_after:.3f} ms")
        for r in result["large"]:
            if r["size"] == large:
                ms = r["time_ms"] or float("nan")
                lines.append(f"| {label(r['variant'])} at {large}^3 | {ms:.3f} | "
                             f"{peer_large / ms:.3f} | check {r['check']} | |")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "sgemm_search.json"), "w") as handle:
        json.dump(result, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
