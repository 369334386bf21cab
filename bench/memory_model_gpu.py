#!/usr/bin/env python3
"""The memory model on the GPU: in-place kernels and explicit grids give the
interpreter's answer, and both match a float64 reference.

Runs on the GPU machine from a checkout plus the self-contained tools. For
each case it runs phobos-run on the GPU and on the interpreter with the same
seeded inputs (`--save` keeps every tensor before and after, NAME.in.npy and NAME.out.npy; written-only
tensors start poisoned with NaN), computes the float64 answer from the saved
inputs with NumPy, and compares both runs with it. The cases are issue 46's:
test/Tools/phobos-run/Inputs/in_place.ph (a statement that reads what other
threads of its CTA store: shifts, a block slide, an in-place transpose, a
counter) and a kernel with scalar control flow and an explicit grid at a
ragged and a large extent. Needs NumPy only. Prints a table last; writes
memory_model.json to $OUT when it is set.

Usage: python3 bench/memory_model_gpu.py BINDIR
Exit status: 0 when every case matches, 1 otherwise.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IN_PLACE = os.path.join(ROOT, "test", "Tools", "phobos-run", "Inputs", "in_place.ph")

# Issue 46's second kernel: scalar control flow, a tile maximum and one
# store of a 256-element slice per CTA, launched with an explicit grid.
FLOW = """
kernel flow(X: tensor<f32>[N], Y: tensor<f32>[N], n_iter: i32) {
    let b = ctx.block.x
    var acc = X[b * 256 :+ 256]
    var i = 0
    while i < n_iter {
        if i % 2 == 0 {
            acc = acc * 1.5
        } else if i % 3 == 0 {
            acc = acc + 1.0
        } else {
            acc = acc - 0.5
        }
        i = i + 1
    }
    Y[b * 256 :+ 256] = tmax(acc, 0.25) - 1.0
}
"""


def shift(t, s, B=4096):
    x = t["X"].astype(np.float64)
    x[0:B] = x[s:s + B] * 2.0
    x[s:s + B] = x[s:s + B] + x[0:B]
    return {"X": x}


def slide(t, B=256):
    n = t["X"].shape[0]
    # Reads past the end are zeros and stores there are dropped (masking).
    x = np.zeros(n + 2 * B)
    x[:n] = t["X"]
    for i in range(0, n - B, B):
        x[i:i + B] = x[i:i + B] + x[i + B:i + 2 * B]
        x[n:] = 0.0
    return {"X": x[:n]}


def transpose(t):
    return {"X": t["X"].astype(np.float64).T.copy()}


def count(t, n):
    c = t["C"].astype(np.float64)
    c[0] += n
    return {"C": c}


def flow(t, n_iter, grid):
    x = t["X"].astype(np.float64)
    y = np.full(x.shape, np.nan)
    for b in range(grid):
        acc = x[b * 256:(b + 1) * 256].copy()
        for i in range(n_iter):
            if i % 2 == 0:
                acc = acc * 1.5
            elif i % 3 == 0:
                acc = acc + 1.0
            else:
                acc = acc - 0.5
        y[b * 256:b * 256 + len(acc)] = np.maximum(acc, 0.25) - 1.0
    return {"Y": y}


def cases(flow_path):
    out = []
    for s in (1, 33, 1000, 4095):
        out.append((f"shift s={s}", IN_PLACE, ["--kernel=shift", "--dim=N=8200", f"--scalar=s={s}"],
                    lambda t, s=s: shift(t, s)))
    out.append(("slide N=65536", IN_PLACE, ["--kernel=slide", "--dim=N=65536"], slide))
    out.append(("slide N=1000", IN_PLACE, ["--kernel=slide", "--dim=N=1000"], slide))
    out.append(("transpose 64x64", IN_PLACE, ["--kernel=transpose_square"], transpose))
    out.append(("count n=1000", IN_PLACE, ["--kernel=count", "--dim=N=4", "--scalar=n=1000",
                                            "--init=C=0"], lambda t: count(t, 1000)))
    for n in (1000, 1000003):
        grid = 4
        out.append((f"flow N={n} grid={grid}", flow_path,
                    ["--kernel=flow", f"--dim=N={n}", "--scalar=n_iter=7", f"--grid={grid}"],
                    lambda t, g=grid: flow(t, 7, g)))
    return out


def run(bindir, path, args, folder, interpret):
    os.makedirs(folder, exist_ok=True)
    argv = [os.path.join(bindir, "phobos-run"), path, *args, "--seed=7", f"--save={folder}"]
    if interpret:
        argv.append("--interpret")
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    return proc.returncode, (proc.stdout + proc.stderr)[-300:]


def load(folder, suffix):
    tensors = {}
    for name in os.listdir(folder):
        if name.endswith(f".{suffix}.npy"):
            tensors[name[:-len(f".{suffix}.npy")]] = np.load(os.path.join(folder, name))
    return tensors


def error(got, want):
    """Largest error relative to the reference's largest magnitude, over the
    elements the reference defines (NaN there: not written by design)."""
    mask = ~np.isnan(want)
    if not np.array_equal(np.isnan(got) & mask, np.zeros_like(mask)):
        return float("inf")  # an element that should be written is still NaN
    scale = max(float(np.max(np.abs(want[mask]))), 1e-30) if mask.any() else 1.0
    return float(np.max(np.abs(got[mask] - want[mask]))) / scale if mask.any() else 0.0


def main(argv):
    if len(argv) != 1:
        print(__doc__)
        return 2
    bindir = argv[0]
    rows, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        flow_path = os.path.join(tmp, "flow.ph")
        with open(flow_path, "w") as f:
            f.write(FLOW)
        for index, (label, path, args, reference) in enumerate(cases(flow_path)):
            row = {"case": label}
            for where, interpret in (("gpu", False), ("interpreter", True)):
                folder = os.path.join(tmp, f"{index}-{where}")
                rc, tail = run(bindir, path, args, folder, interpret)
                if rc != 0:
                    row[where] = f"failed: {tail.strip().splitlines()[-1] if tail.strip() else rc}"
                    continue
                before, after = load(folder, "in"), load(folder, "out")
                want = reference(before)
                row[where] = max(error(after[name].astype(np.float64), value)
                                 for name, value in want.items())
            good = all(isinstance(row[w], float) and row[w] <= 1e-5
                       for w in ("gpu", "interpreter"))
            row["ok"] = good
            ok &= good
            rows.append(row)
            print(json.dumps(row), flush=True)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "memory_model.json"), "w") as f:
            json.dump(rows, f, indent=1)
    print(f"\n| case | GPU error | interpreter error | |\n|---|---|---|---|")
    for row in rows:
        fmt = lambda v: f"{v:.1e}" if isinstance(v, float) else v  # noqa: E731
        print(f"| {row['case']} | {fmt(row['gpu'])} | {fmt(row['interpreter'])} | "
              f"{'ok' if row['ok'] else 'WRONG'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
