#!/usr/bin/env python3
"""Tutorial 06's dK/dV kernel with and without a producer warpgroup.

The kernel (tutorial 06's attn_bwd_dkdv, its Phobos source from
`.source`) is the slower of the backward's two per product it computes
(docs/benchmarks-log.md has the figures). A copy with `@warp_specialize(1)` before its
`@pipeline` gives the copies to a producer warpgroup (384 threads,
`setmaxnreg` 40/232). Both are first checked against a float64 evaluation
of the kernel's formulas at ragged sizes (dK, dV poisoned with NaN),
causal and not; the copy then runs under compute-sanitizer (memcheck,
racecheck, synccheck); then `phobos-run --bench` times both, alternating,
at B*H x N (default 128 x 4096), causal and not.

    python3 bench/experiments/dkdv_producer_ab.py BINDIR [--variant D=128,BC=128,BR=64]
        [--shapes 128x4096] [--rounds 2] [--no-sanitize]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "python" / "tutorials"))
from phobos_run import sanitize_run  # noqa: E402


def kernel_files(directory: str) -> dict[str, str]:
    """Tutorial 06's dK/dV kernel as a .ph file, and a copy with
    `@warp_specialize(1)` before its @pipeline."""
    import t06_fused_attention as t06
    source = t06.attn_bwd_dkdv.source
    lines = []
    for line in source.splitlines():
        if line.startswith("@pipeline"):
            lines.append("@warp_specialize(1)")
        lines.append(line)
    files = {"plain": source, "producer": "\n".join(lines)}
    for arm, text in files.items():
        files[arm] = os.path.join(directory, f"attn_bwd_dkdv_{arm}.ph")
        Path(files[arm]).write_text(text + "\n")
    return files


def run(bindir: Path, path: str, variant: str, bh: int, n: int, causal: bool,
        extra: list[str]) -> dict:
    """One phobos-run; its PHOBOS_RESULT record."""
    d = int(dict(item.split("=") for item in variant.split(","))["D"])
    command = [str(bindir / "phobos-run"), path, "--variant", variant, "--dim", f"BH={bh}",
               "--dim", f"N={n}", "--scalar", f"scale={1 / math.sqrt(d)}",
               "--scalar", f"causal={int(causal)}", "--init", "lse=0", "--init", "dk=nan",
               "--init", "dv=nan", "--json", *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    line = next((l for l in done.stdout.splitlines() if "PHOBOS_RESULT" in l), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"{' '.join(command)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return json.loads(line.split("PHOBOS_RESULT", 1)[1].strip(" :"))


def reference(folder: Path, scale: float, causal: bool) -> dict[str, np.ndarray]:
    """dK and dV in float64 from the saved inputs (P transposed: keys by
    queries; the kernel's exp2 of log2-scaled scores is exp of these)."""
    read = lambda name: np.load(folder / f"{name}.in.npy").astype(np.float64)
    q, k, v, dout, lse, delta = (read(x) for x in ("q", "k", "v", "dout_all", "lse", "delta"))
    t = lambda a: np.swapaxes(a, -1, -2)
    n = q.shape[-2]
    keep = np.tril(np.ones((n, n), dtype=bool)).T if causal else np.ones((n, n), dtype=bool)
    pt = np.where(keep, np.exp(scale * k @ t(q) - lse[:, None, :]), 0.0)
    dst = pt * (v @ t(dout) - delta[:, None, :])
    return {"dk": scale * dst @ q, "dv": pt @ dout}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bindir", type=Path, help="the tools' bin folder (phobos-run)")
    parser.add_argument("--variant", default="D=128,BC=128,BR=64")
    parser.add_argument("--shapes", default="128x4096", help="B*HxN,... to time")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-sanitize", action="store_true")
    args = parser.parse_args()
    d = int(dict(item.split("=") for item in args.variant.split(","))["D"])
    with tempfile.TemporaryDirectory() as scratch:
        arms = kernel_files(scratch)
        failed = 0
        for arm, path in arms.items():
            for causal in (False, True):
                for bh, n in ((2, 1000), (1, 2048)):
                    with tempfile.TemporaryDirectory() as folder:
                        run(args.bindir, path, args.variant, bh, n, causal, ["--save", folder])
                        want = reference(Path(folder), 1 / math.sqrt(d), causal)
                        worst = 0.0
                        for name, w in want.items():
                            got = np.load(Path(folder) / f"{name}.out.npy").astype(np.float64)
                            err = float(np.abs(got - w).max() / np.abs(w).max())
                            worst = max(worst, err if math.isfinite(err) else math.inf)
                    ok = worst < 1e-2
                    failed += not ok
                    print(f"check {arm} causal={int(causal)} B*H {bh} N {n}: {worst:.1e} "
                          f"{'ok' if ok else 'FAILED'}", flush=True)
        if not args.no_sanitize:
            values = dict(item.split("=") for item in args.variant.split(","))
            for tool in ("memcheck", "racecheck", "synccheck"):
                failed += not sanitize_run(
                    str(args.bindir), tool, arms["producer"], {"BH": 3, "N": 1000},
                    {k: int(v) for k, v in values.items()},
                    {"scale": 1 / math.sqrt(d), "causal": 1}, f"producer {tool}", check=False)
        if failed:
            print(f"{failed} checks failed: no timing")
            return 1
        print("\n| B*H | N | causal | plain | producer | speed-up |")
        print("| --- | --- | --- | --- | --- | --- |")
        for shape in args.shapes.split(","):
            bh, n = (int(x) for x in shape.split("x"))
            for causal in (False, True):
                best = {arm: math.inf for arm in arms}
                for _ in range(args.rounds):
                    for arm, path in arms.items():
                        ms = run(args.bindir, path, args.variant, bh, n, causal,
                                 ["--bench", "--repeat", "20"])["time_ms"]
                        best[arm] = min(best[arm], ms)
                flops = 4 * 2.0 * bh * n * n * d * (0.5 if causal else 1.0)
                cells = [f"{best[a]:.3f} ms ({flops / best[a] / 1e9:.0f} TFLOP/s)" for a in arms]
                print(f"| {bh} | {n} | {int(causal)} | " + " | ".join(cells)
                      + f" | {best['plain'] / best['producer']:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
