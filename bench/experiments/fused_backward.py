#!/usr/bin/env python3
"""Attention's backward in one kernel, its dQ additions as bulk reductions
or not, against tutorial 06's two kernels and SDPA.

The kernel is test/Transforms/Inputs/attention_backward_fused.ph: tutorial
06's dK/dV kernel that also adds each block's dQ = dS K into an f32 buffer
with `atomic_add` (FlashAttention-2's order of work: five products per pair
of blocks where tutorial 06 does seven). On sm_90, with `--experiment
bulk-atomics=1`, tile-bulk-atomics makes those additions bulk reductions
(the block staged in shared memory, one `cp.reduce.async.bulk` per row)
instead of a vector reduction per two registers of every thread, which
made the kernel lose to tutorial 06 at D 64 when it was first measured.
Measured (docs/benchmarks-log.md, forty-fifth session), the bulk path was
slower still, so the compiler does not take it by default.

    python3 bench/experiments/fused_backward.py BINDIR [--interpret]
        [--variants 64x64,128x64] [--shapes 128x4096] [--dims 128] [--no-check]
    PHOBOS_HOME=DIST python3 bench/experiments/fused_backward.py DIST/bin

1. Checks: `phobos-run --save` of every variant at ragged sizes, causal
   and not, with the pass and without, into dq_acc zeroed and dk, dv
   poisoned with NaN; each output against a float64 evaluation of the
   kernel's formulas from the saved inputs (--interpret: on the CPU, the
   smallest size only).
2. Timing (GPU): `phobos-run --bench` of the kernel with and without the
   pass, alternating, beside tutorial 06's whole backward and SDPA's
   (autograd) at the same shapes, medians of CUDA events.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
KERNEL_PH = ROOT / "test" / "Transforms" / "Inputs" / "attention_backward_fused.ph"
#: (BC, BR) pairs of the kernel's @autotune space.
VARIANTS = [(64, 64), (128, 64), (64, 32), (128, 32)]
ARMS = {"bulk": ["--experiment", "bulk-atomics=1"], "plain": []}


def run(bindir: Path, d: int, bc: int, br: int, bh: int, n: int, causal: bool,
        extra: list[str]) -> dict:
    """One phobos-run of the kernel; its PHOBOS_RESULT record."""
    command = [str(bindir / "phobos-run"), str(KERNEL_PH), "--variant", f"D={d},BC={bc},BR={br}",
               "--dim", f"BH={bh}", "--dim", f"N={n}", "--scalar", f"scale={1 / math.sqrt(d)}",
               "--scalar", f"causal={int(causal)}", "--init", "lse=0", "--init", "dq_acc=0",
               "--init", "dk=nan", "--init", "dv=nan", "--json", *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    line = next((l for l in done.stdout.splitlines() if "PHOBOS_RESULT" in l), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"{' '.join(command)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return json.loads(line.split("PHOBOS_RESULT", 1)[1].strip(" :"))


def reference(folder: Path, scale: float, causal: bool) -> dict[str, np.ndarray]:
    """dq_acc, dk, dv in float64 from the saved inputs, as the kernel's
    formulas define them (P transposed: keys by queries)."""
    read = lambda name: np.load(folder / f"{name}.in.npy").astype(np.float64)
    q, k, v, dout, lse, delta = (read(x) for x in ("q", "k", "v", "dout_all", "lse", "delta"))
    t = lambda a: np.swapaxes(a, -1, -2)
    n = q.shape[-2]
    keep = np.tril(np.ones((n, n), dtype=bool)).T if causal else np.ones((n, n), dtype=bool)
    pt = np.where(keep, np.exp(scale * k @ t(q) - lse[:, None, :]), 0.0)
    dst = pt * (v @ t(dout) - delta[:, None, :])
    return {"dq_acc": t(dst) @ k, "dk": scale * dst @ q, "dv": pt @ dout}


def check(bindir: Path, interpret: bool, variants: list[tuple[int, int]],
          dims: list[int]) -> int:
    failed = 0
    sizes = [(2, 77)] if interpret else [(2, 77), (3, 1000), (1, 2048)]
    for d in dims:
        for causal in (False, True):
            for bh, n in sizes:
                for bc, br in variants if not interpret else variants[:1]:
                    for arm, extra in ARMS.items():
                        with tempfile.TemporaryDirectory() as folder:
                            run(bindir, d, bc, br, bh, n, causal,
                                extra + ["--save", folder] + (["--interpret"] if interpret else []))
                            want = reference(Path(folder), 1 / math.sqrt(d), causal)
                            worst = 0.0
                            for name, w in want.items():
                                got = np.load(Path(folder) / f"{name}.out.npy").astype(np.float64)
                                err = np.abs(got - w).max() / np.abs(w).max()
                                worst = max(worst, float(err) if np.isfinite(err) else math.inf)
                        ok = worst < 1e-2
                        failed += not ok
                        print(f"check D{d} causal={int(causal)} B*H {bh} N {n} BC {bc} BR {br} "
                              f"{arm}: {worst:.1e} {'ok' if ok else 'FAILED'}", flush=True)
    print(f"checks: {'all ok' if not failed else f'{failed} failed'}", flush=True)
    return failed


def timing(bindir: Path, variants: list[tuple[int, int]],
           shapes: list[tuple[int, int]], dims: list[int]) -> None:
    import torch
    sys.path.insert(0, str(ROOT / "python" / "tutorials"))
    import t06_fused_attention as t06
    from _common import bench_ms

    sdpa = torch.nn.functional.scaled_dot_product_attention
    rows = []
    for d in dims:
        for causal in (False, True):
            for bh, n in shapes:
                q, k, v, do = (torch.randn(1, bh, n, d, device="cuda", dtype=torch.float16)
                               for _ in range(4))
                qg, kg, vg = (x.clone().requires_grad_() for x in (q, k, v))
                want = sdpa(qg, kg, vg, is_causal=causal)
                o, lse = t06.attention(q, k, v, causal)
                time = lambda fn: bench_ms(fn, warmup=3, rep=15)
                row = {"D": d, "causal": int(causal), "BH": bh, "N": n,
                       "sdpa": time(lambda: torch.autograd.grad(want, (qg, kg, vg), do,
                                                                retain_graph=True)),
                       "two": time(lambda: t06.attention_backward(q, k, v, o, lse, do, causal))}
                del q, k, v, do, qg, kg, vg, want, o, lse
                torch.cuda.empty_cache()
                for bc, br in variants:
                    for arm, extra in list(ARMS.items()) * 2:
                        ms = run(bindir, d, bc, br, bh, n, causal,
                                 extra + ["--bench", "--repeat", "20"])["time_ms"]
                        key = f"{bc}x{br} {arm}"
                        row[key] = min(row.get(key, math.inf), ms)
                rows.append(row)
                print(json.dumps(row), flush=True)
    print(f"\n{torch.cuda.get_device_name()}: backward ms (SDPA / it); the fused kernel alone "
          "(tutorial 06 and SDPA: the whole backward)")
    cols = [f"{bc}x{br} {arm}" for bc, br in variants for arm in ARMS]
    print("| D | causal | B*H | N | SDPA | tutorial 06 | " + " | ".join(cols) + " |")
    print("|" + " --- |" * (6 + len(cols)))
    for r in rows:
        cells = [f"{r[c]:.3f} ({r['sdpa'] / r[c]:.2f})" for c in ["two"] + cols]
        print(f"| {r['D']} | {r['causal']} | {r['BH']} | {r['N']} | {r['sdpa']:.3f} | "
              + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bindir", type=Path, help="the tools' bin folder (phobos-run)")
    parser.add_argument("--interpret", action="store_true",
                        help="only the checks, in the interpreter, at the smallest size")
    pairs = lambda text: [tuple(int(x) for x in item.split("x")) for item in text.split(",")]
    parser.add_argument("--variants", type=pairs, default=VARIANTS,
                        help="BCxBR pairs to check and time (default: all four)")
    parser.add_argument("--shapes", type=pairs, default=[(128, 4096), (16, 16384), (512, 1024)],
                        help="B*HxN shapes to time (default: 128x4096,16x16384,512x1024)")
    parser.add_argument("--dims", type=lambda t: [int(x) for x in t.split(",")],
                        default=[64, 128], help="head dims (default: 64,128)")
    parser.add_argument("--no-check", action="store_true",
                        help="only the timing, for tools whose checks already passed")
    args = parser.parse_args()
    failed = 0 if args.no_check else check(args.bindir, args.interpret, args.variants,
                                                 args.dims)
    if not args.interpret and not failed:
        timing(args.bindir, args.variants, args.shapes, args.dims)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
