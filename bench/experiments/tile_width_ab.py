#!/usr/bin/env python3
"""Which CTA tile width wastes the least of the last wave, on the GPU machine.

A GEMM with T tiles on S SMs (one CTA each) runs ceil(T / S) waves; the last
one may be mostly empty. 4100 x 4104 with 128 x 256 tiles is 33 x 17 = 561
tiles, 4.25 waves on 132 SMs, so 5 run. Narrower tiles (160, 192, 224: the
wgmma shapes m64nNk16 exist for every N that is a multiple of 8) waste less
of the last wave but do less work per CTA. This script times the f16 and
bf16 example GEMMs at each width, with copies of the examples whose
@autotune lists the widths, beside cuBLAS (torch.matmul) in the same run,
and prints each row's predicted cost in full-tile waves,
ceil(T / S) * TILE_N / 256, next to the measured ratio. Every Phobos run
checks its output against the float64 reference. Writes tile_width_ab.json
to $OUT when set.

With --tiles MxN,... it times those CTA tiles instead (TILE_M 192 runs
three warpgroups, @launch(384): 192 x 256 makes 22 x 17 = 374 tiles of
4100 x 4104, 2.83 waves, where 128 x 256 runs 4.25).

Usage: python3 bench/experiments/tile_width_ab.py BINDIR
           [--sizes 4100x4104x1000,...] [--widths 128,160,192,224,256]
           [--tiles 128x256,192x256]
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from phobos_run import run_json, save_to_out  # noqa: E402
from timing import median_ms  # noqa: E402


def widened_copy(example: str, tiles: list, directory: str) -> str:
    """The example with TILE_M's and TILE_N's @autotune lists replaced by
    those of `tiles` ((TILE_M, TILE_N) pairs) and two threads a row of
    TILE_M (at least 256: one warpgroup per 64 rows)."""
    text = open(os.path.join(ROOT, "examples", example)).read()
    for name, values in (("TILE_M", sorted({m for m, _ in tiles})),
                         ("TILE_N", sorted({n for _, n in tiles}))):
        text, count = re.subn(name + r" in \[[0-9, ]+\]",
                              name + " in [" + ", ".join(map(str, values)) + "]", text)
        if count != 1:
            raise SystemExit(f"tile_width_ab: no {name} list in {example}")
    threads = max(256, 2 * max(m for m, _ in tiles))
    text, count = re.subn(r"^@launch\(.*\)$", f"@launch({threads})", text, flags=re.M)
    if count != 1:
        raise SystemExit(f"tile_width_ab: no @launch line in {example}")
    path = os.path.join(directory, f"{threads}_{example}")
    with open(path, "w") as handle:
        handle.write(text)
    return path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("bindir")
    parser.add_argument("--sizes", default="4100x4104x1000,4096x4096x4096,1000x3000x2000")
    parser.add_argument("--widths", default="128,160,192,224,256")
    parser.add_argument("--tiles", default="",
                        help="MxN CTA tiles to time instead of 128 x WIDTH")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    import torch

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if args.tiles:
        tiles = [tuple(int(v) for v in t.split("x")) for t in args.tiles.split(",")]
    else:
        tiles = [(128, int(w)) for w in args.widths.split(",")]
    # One copy per thread count: 192-row tiles run three warpgroups.
    groups = {}
    for tile in tiles:
        groups.setdefault(max(256, 2 * tile[0]), []).append(tile)
    directory = tempfile.mkdtemp(prefix="phobos-tile-width-")
    rows, failures = [], 0
    for dtype, example in ((torch.float16, "gemm_f16_tc.ph"), (torch.bfloat16, "gemm_bf16_tc.ph")):
        paths = {tile: widened_copy(example, group, directory)
                 for group in groups.values() for tile in group}
        for size in args.sizes.split(","):
            m, n, k = (int(v) for v in size.split("x"))
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            peer = median_ms(lambda: torch.matmul(a, b), reps=10)
            for tile_m, width in tiles:
                count = math.ceil(m / tile_m) * math.ceil(n / width)
                waves = math.ceil(count / sms)
                result = run_json(args.bindir, paths[(tile_m, width)], {"M": m, "N": n, "K": k},
                                  {"TILE_M": tile_m, "TILE_N": width, "TILE_K": 64},
                                  {"alpha": 1.0, "beta": 0.0}, args.repeat)
                failures += result.get("check") != "ok"
                rows.append({"gemm": example, "sizes": size, "tile_m": tile_m,
                             "tile_n": width, "tiles": count,
                             "waves": waves, "cost": waves * tile_m * width / (128 * 256),
                             "check": result.get("check"), "ms": result.get("time_ms"),
                             "cublas_ms": peer})
                print(rows[-1], flush=True)
            del a, b
    print(f"\n{'gemm':16} {'sizes':16} {'tile':>7} {'tiles':>6} {'waves':>5} {'cost':>5} "
          f"{'check':6} {'ms':>8} {'vs cuBLAS':>9}")
    for row in rows:
        ms = row["ms"] or float("nan")
        print(f"{row['gemm']:16} {row['sizes']:16} {str(row['tile_m']) + 'x' + str(row['tile_n']):>7} {row['tiles']:6} "
              f"{row['waves']:5} {row['cost']:5.2f} {row['check']!s:6} {ms:8.4f} "
              f"{row['cublas_ms'] / ms:9.3f}")
    save_to_out("tile_width_ab.json", rows)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
