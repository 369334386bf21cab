#!/usr/bin/env python3
"""Two CTAs per SM or one, for the mma.sync GEMMs tile-choose-occupancy
raises to two, on the GPU machine.

tile-choose-occupancy asks ptxas for two CTAs per SM (.minnctapersm 2, at
most 128 registers a thread at 256 threads) when twice the accumulator
registers fit that budget; at the boundary (64 accumulator registers a
thread) ptxas spills. Each row runs the example (the pass's choice) and a
copy that says `@launch(256, 1)` (one CTA per SM, 255 registers) in
alternation, ROUNDS times each, `phobos-run --check --bench`, and prints the
median times, their ratio (one / two: above 1 when two CTAs are faster) and
ptxas's registers and spills for each (`phobos-compile --resources`).

Usage: python3 bench/experiments/occupancy_ab.py BINDIR [--rounds 3] [--repeat 30]
"""
from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile

# Experiments live two folders below the checkout; their helpers
# (phobos_run, timing) are in bench/.
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from phobos_run import ab_parser, interleaved_runs, run_json

DIMS = {"M": 4096, "N": 4096, "K": 4096}
SCALARS = {"alpha": 1.0, "beta": 0.0}
#: (example, chip, variant): the mma.sync GEMMs at the boundary on sm_90a
#: (64-row tiles over two warpgroups stay on mma.sync). The sm_80 ones (the
#: 128 x 128 x 32 defaults) cannot run on an H200: phobos-run loads the
#: cubin, which is built for its chip only.
ROWS = [("gemm_f16_tc.ph", "sm_90a", {"TILE_M": 64, "TILE_N": 256, "TILE_K": 32}),
        ("gemm_bf16_tc.ph", "sm_90a", {"TILE_M": 64, "TILE_N": 256, "TILE_K": 32})]


def one_cta_copy(example: str, directory: str) -> str:
    text = open(os.path.join(ROOT, "examples", example)).read()
    path = os.path.join(directory, "one_cta_" + example)
    with open(path, "w") as handle:
        handle.write(re.sub(r"^@launch\(256\)$", "@launch(256, 1)", text, flags=re.M))
    return path


def resources(bindir: str, path: str, chip: str, variant: dict, directory: str) -> str:
    argv = [os.path.join(bindir, "phobos-compile"), path, "--chip", chip, "--resources",
            "--specialize-dims", ",".join(f"{k}={v}" for k, v in DIMS.items()),
            "--variant=" + ",".join(f"{k}={v}" for k, v in variant.items()),
            "-o", tempfile.mkdtemp(dir=directory)]
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    match = re.search(r"(\d+) registers, (\d+) bytes spill stores", out)
    return f"{match.group(1)} regs, {match.group(2)} B spill" if match else "?"


def main() -> int:
    args = ab_parser(rounds=3).parse_args()
    directory = tempfile.mkdtemp(prefix="phobos-occupancy-ab-")
    failures = 0
    for example, chip, variant in ROWS:
        paths = {"two": os.path.join(ROOT, "examples", example),
                 "one": one_cta_copy(example, directory)}
        times, checks = interleaved_runs(
            args.rounds, paths,
            lambda kind: run_json(args.bindir, paths[kind], DIMS, variant, SCALARS, args.repeat,
                                  extra=(f"--chip={chip}",)),
            lambda kind: f"{example} {chip} {variant} {kind}")
        failures += sum(check != "ok" for check in checks)
        two, one = statistics.median(times["two"]), statistics.median(times["one"])
        print(f"{example:16} {chip:6} {','.join(str(v) for v in variant.values()):12} "
              f"two CTAs {two:.4f} ms ({resources(args.bindir, paths['two'], chip, variant, directory)}) "
              f"one CTA {one:.4f} ms ({resources(args.bindir, paths['one'], chip, variant, directory)}) "
              f"one/two {one / two:.3f}x  rounds two {times['two']} one {times['one']}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
