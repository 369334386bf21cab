#!/usr/bin/env python3
"""Tutorial 06's forward at D 128 as the compiler now keeps it (dots in
flight, the consumer warpgroups taking turns: FlashAttention 3's schedule)
against the same kernel with synchronous dots (`--experiment
sync-dots=1`), which is what the drivers kept before the forty-fifth
session: its first assembly spilled, and the spill relief removed the
schedule. `--other` names another experiment for the second arm
(`spill-relief=0`: a kernel's first assembly, spills and all).

The kernel is tutorial 06's `attn_fwd`, written out as Phobos source from
its Python translation and run by `phobos-run`. Each arm is checked first:
outputs poisoned with NaN, O and the log-sum-exp compared with a float64
evaluation from the saved inputs, causal and not, at a ragged N; then both
are timed in alternation (`--bench`), medians of CUDA events, beside SDPA.

    PHOBOS_HOME=DIST python3 bench/experiments/tutorial06_forward_ab.py DIST/bin
        [--shapes 128x4096,16x16384] [--rounds 3] [--other sync-dots=1] [--interpret]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tutorials"))
VARIANT = "D=128,BR=128,BC=128"
ARMS = {"as compiled": [], "other": ["--experiment", "sync-dots=1"]}


def source() -> Path:
    """attn_fwd's Phobos source, from the tutorial's translation."""
    import t06_fused_attention as t06
    path = Path(tempfile.mkdtemp(prefix="phobos-t06-")) / "attn_fwd.ph"
    path.write_text(t06.attn_fwd.translation.source)
    return path


def run(bindir: Path, ph: Path, bh: int, n: int, causal: bool, extra: list[str]) -> dict:
    command = [str(bindir / "phobos-run"), str(ph), "--variant", VARIANT, "--dim", f"BH={bh}",
               "--dim", f"N={n}", "--scalar", f"scale={128 ** -0.5}",
               "--scalar", f"causal={int(causal)}", "--init", "o=nan", "--init", "lse=nan",
               "--json", *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    line = next((l for l in done.stdout.splitlines() if "PHOBOS_RESULT" in l), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"{' '.join(command)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return json.loads(line.split("PHOBOS_RESULT", 1)[1].strip(" :"))


def check(bindir: Path, ph: Path, interpret: bool) -> int:
    failed = 0
    for causal in (False, True):
        for arm, extra in ARMS.items():
            with tempfile.TemporaryDirectory() as folder:
                run(bindir, ph, 1 if interpret else 2, 77 if interpret else 333, causal,
                    extra + ["--save", folder] + (["--interpret"] if interpret else []))
                read = lambda name, when: np.load(Path(folder) / f"{name}.{when}.npy")
                q, k, v = (read(x, "in").astype(np.float64) for x in "qkv")
                s = q @ np.swapaxes(k, -1, -2) * 128 ** -0.5
                if causal:
                    s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
                top = s.max(-1, keepdims=True)
                p = np.exp(s - top)
                want_o = (p @ v) / p.sum(-1, keepdims=True)
                want_lse = (top + np.log(p.sum(-1, keepdims=True)))[..., 0]
                got_o, got_lse = read("o", "out").astype(np.float64), read("lse", "out")
                err = max(np.abs(got_o - want_o).max() / np.abs(want_o).max(),
                          np.abs(got_lse - want_lse).max() / np.abs(want_lse).max())
            ok = bool(np.isfinite(err) and err < 1e-2)
            failed += not ok
            print(f"check causal={int(causal)} {arm}: {err:.1e} {'ok' if ok else 'FAILED'}",
                  flush=True)
    return failed


def main() -> int:
    pairs = lambda text: [tuple(int(x) for x in item.split("x")) for item in text.split(",")]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bindir", type=Path)
    parser.add_argument("--shapes", type=pairs, default=pairs("128x4096,16x16384"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--other", default="sync-dots=1",
                        help="the experiment of the second arm (default: sync-dots=1)")
    parser.add_argument("--interpret", action="store_true",
                        help="only the checks, on the CPU interpreter, at N 77")
    args = parser.parse_args()
    ARMS["other"] = ["--experiment", args.other]
    ph = source()
    failed = check(args.bindir, ph, args.interpret)
    if failed or args.interpret:
        return 1 if failed else 0
    import torch
    from _common import bench_ms
    print(f"\n| causal | B*H | N | SDPA ms | as compiled ms | {args.other} ms | gain |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for causal in (False, True):
        for bh, n in args.shapes:
            times = {arm: [] for arm in ARMS}
            for _ in range(args.rounds):
                for arm, extra in ARMS.items():
                    times[arm].append(run(args.bindir, ph, bh, n, causal,
                                          extra + ["--bench", "--repeat", "20"])["time_ms"])
            q, k, v = (torch.randn(1, bh, n, 128, device="cuda", dtype=torch.float16)
                       for _ in range(3))
            sdpa = bench_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=causal), warmup=3, rep=20)
            kept, other = (statistics.median(times[arm]) for arm in ARMS)
            print(f"| {int(causal)} | {bh} | {n} | {sdpa:.4f} | {kept:.4f} | {other:.4f} | "
                  f"{other / kept:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
