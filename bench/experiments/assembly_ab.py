#!/usr/bin/env python3
"""Cheaper code generation against the default, on the GPU machine.

Issue 11 asks for 150 ms per variant (PTX and cubin); ptxas and LLVM's IR
pipeline are most of what is left. Each arm runs `phobos-tune` over a whole
@autotune space with its own kernel cache and --experiment settings (ptxas
options through ptxas=, LLVM's IR level through llvm-opt-level=: both name
themselves in the compiler version), compiling on one thread
(`--jobs 1`, the per-variant figure) and timing every variant that passes
its float64 check. Printed last, per workload and arm: the median compile
time per variant and its parts, the best variant's time, and the median
and worst of the per-variant time ratios to the default arm (above 1: the
arm's kernels are slower). The default arm runs first and last, so the
spread of its two runs shows the noise.

With --compile-only, each arm only compiles the sgemm example's 24
variants of 256 threads (`--compile-only --fix THREADS=256`, the figure
docs/benchmarks-log.md follows), twice in alternation: a full tune checks and
times other variants on the host while one compiles, which blurs compile
times.

Usage: python3 bench/experiments/assembly_ab.py BINDIR [--only=sgemm,hgemm]
           [--arms=default,O1] [--compile-only] [--jobs=N]
Writes assembly_ab.json to $OUT when set.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

# Experiments live two folders below the checkout; their helpers
# (phobos_run, timing) are in bench/.
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

BIN = sys.argv[1]
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
ARM_NAMES = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--arms=")), None)
COMPILE_ONLY = "--compile-only" in sys.argv
# Compile threads per tune: 1 gives the per-variant compile figure; more
# only shortens runs that compare the kernels' times.
JOBS = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--jobs=")), "1")

WORKLOADS = {
    "sgemm": ("examples/sgemm_fp32.ph", ["M=4096", "N=4096", "K=4096"], ["alpha=1", "beta=0"]),
    "hgemm": ("examples/gemm_f16_tc.ph", ["M=4096", "N=4096", "K=4096"], ["alpha=1", "beta=0"]),
    "tf32": ("examples/gemm_f32_tc.ph", ["M=4096", "N=4096", "K=4096"], ["alpha=1", "beta=0"]),
    "attention": ("examples/flash_attention_fp16.ph", ["BH=128", "Nq=4096", "Nk=4096", "D=64"], ["scale=0.125"]),
    # The FMA dots (the experiment fma-k-unroll): exact f32 attention and the GLA chunk.
    "attention-f32": ("examples/flash_attention_fp32.ph", ["BH=32", "Nq=4096", "Nk=4096", "D=64"], ["scale=0.125"]),
    # Log-gates must be <= 0 (random ones overflow exp: every variant "wrong").
    "gla": ("examples/kda_chunk.ph", ["BH=128", "T=4096", "DK=64", "DV=64"], [], ["--init", "G=uniform:-0.05:0"]),
}
# Each arm: the tool's --experiment settings (docs/runtime.md section 11).
ALL_ARMS = {
    "default": [],
    "Ofc-min": ["ptxas=-Ofc=min"],
    "Ofc-max": ["ptxas=-Ofc=max"],
    # LLVM's level (the default is 1 since the nineteenth session).
    "O3": ["llvm-opt-level=3"],
    "O2": ["llvm-opt-level=2"],
    "O1": ["llvm-opt-level=1"],
    "O1+Ofc-min": ["llvm-opt-level=1", "ptxas=-Ofc=min"],
    "ptxas-process": ["assembler=ptxas"],
    # The FMA dot's K loop kept rolled, N steps per iteration.
    "fma-k2": ["fma-k-unroll=2"],
    "fma-k4": ["fma-k-unroll=4"],
    "fma-k8": ["fma-k-unroll=8"],
    "fma-k16": ["fma-k-unroll=16"],
    "fma-full": ["fma-k-unroll=0"],
    # PTXEmitter's lean addresses (32-bit shared pointers, no loop strength
    # reduction) for every kernel, not only as a spill relief.
    "lean": ["lean-addresses=1"],
}
names = ARM_NAMES or ["default", "Ofc-min", "O3", "ptxas-process"]
# The default runs first and last: the spread of its two runs is the noise.
ARMS = [(n, ALL_ARMS[n]) for n in names] + [("default again", [])]


def tune(path, dims, scalars, experiments, extra=()):
    with tempfile.TemporaryDirectory() as cache:
        out = os.path.join(cache, "tune.json")
        cmd = [os.path.join(BIN, "phobos-tune"), os.path.join(ROOT, path), "--jobs", JOBS, "--json", out,
               *extra]
        cmd += [f"--experiment={setting}" for setting in experiments]
        for d in dims:
            cmd += ["--dim", d]
        for s in scalars:
            cmd += ["--scalar", s]
        # nvJitLink's cubins go to CUDA's JIT cache (~/.nv/ComputeCache):
        # each arm gets its own, or a later arm with the same PTX takes the
        # earlier one's cubins (ptxas at 1 ms, no ptxas report).
        env = dict(os.environ, PHOBOS_CACHE_DIR=cache, CUDA_CACHE_PATH=os.path.join(cache, "nv"))
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=400)
        if proc.returncode != 0 or not os.path.exists(out):
            print(proc.stdout[-2000:], proc.stderr[-2000:])
            return None
        with open(out) as f:
            return json.load(f)


def key(variant):
    return ",".join(f"{k}={v}" for k, v in sorted(variant.items()))


results = {}
rows = []
if COMPILE_ONLY:
    path, dims, scalars = WORKLOADS["sgemm"][:3]
    for rnd in range(2):
        for arm, experiments in ARMS:
            report = tune(path, dims, scalars, experiments, ["--compile-only", "--fix", "THREADS=256"])
            if report is None:
                continue
            compiled = [v for v in report["variants"] if v["compile_ms"]["total"] > 0 and not v["cached"]]
            med = {p: statistics.median(v["compile_ms"][p] for v in compiled)
                   for p in ("total", "mlir_passes", "llvm_nvptx", "ptxas")}
            results.setdefault(arm, []).append(med)
            print(rnd, arm, med, flush=True)
    print()
    print("| arm | median per variant (ms), each round | MLIR | LLVM / NVPTX | ptxas |")
    print("| --- | --- | --- | --- | --- |")
    for arm, meds in results.items():
        print(f"| {arm} | " + " / ".join(f"{m['total']:.0f}" for m in meds) + " | "
              + " | ".join(" / ".join(f"{m[p]:.0f}" for m in meds) for p in ("mlir_passes", "llvm_nvptx", "ptxas"))
              + " |")
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "assembly_ab_compile.json"), "w") as f:
            json.dump(results, f, indent=1)
    sys.exit(0)
for name, (path, dims, scalars, *inits) in WORKLOADS.items():
    if ONLY and name not in ONLY:
        continue
    base = None
    for arm, experiments in ARMS:
        report = tune(path, dims, scalars, experiments, *inits)
        if report is None:
            rows.append((name, arm, "failed", "", "", "", ""))
            continue
        variants = report["variants"]
        compiled = [v for v in variants if v["compile_ms"]["total"] > 0 and not v["cached"]]
        med = lambda part: statistics.median(v["compile_ms"][part] for v in compiled) if compiled else 0
        times = {key(v["variant"]): v["time_ms"] for v in variants
                 if v["status"] == "ok" and isinstance(v["time_ms"], (int, float))}
        failed = [key(v["variant"]) for v in variants if v["status"] not in ("ok", "pruned")]
        results.setdefault(name, {})[arm] = {"times": times, "failed": failed,
                                             "compile_median_ms": {p: med(p) for p in
                                                                   ("total", "mlir_passes", "llvm_nvptx", "ptxas")}}
        if base is None:
            base = times
        ratios = [times[k] / base[k] for k in times if k in base]
        best = min(times.values()) if times else float("nan")
        rows.append((name, arm,
                     f"{med('total'):.0f} = {med('mlir_passes'):.0f} + {med('llvm_nvptx'):.0f} + {med('ptxas'):.0f}",
                     f"{best:.4f}", f"{statistics.median(ratios):.3f}" if ratios else "-",
                     f"{max(ratios):.3f}" if ratios else "-", f"{len(times)} ok, {len(failed)} failed"))
        print(rows[-1], flush=True)

if os.environ.get("OUT"):
    with open(os.path.join(os.environ["OUT"], "assembly_ab.json"), "w") as f:
        json.dump(results, f, indent=1)
print()
print("| workload | arm | compile ms median (MLIR + LLVM + ptxas) | best ms | median ratio to default | worst ratio | variants |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for row in rows:
    print("| " + " | ".join(row) + " |")
