"""Attention's backward in one kernel against tutorial 06's two and SDPA.

Tutorial 06 computes dK, dV in one kernel (a CTA per key block) and dQ in a
second, which recomputes P and dP: seven products per pair of blocks. Here
the dK/dV kernel also adds each block's dQ = dS K into an f32 buffer with
`atomic_add` (FlashAttention-2's order of work): five products, plus a
kernel that zeroes the buffer beside Delta and one that scales dQ into f16.

    python3 bench/experiments/fused_backward.py --cpu      # float64 check, interpreter
    PHOBOS_HOME=DIST python3 bench/experiments/fused_backward.py DIST/bin

On sm_90 the dQ additions are bulk reductions (tile-bulk-atomics: each
block staged in shared memory, one `cp.reduce.async.bulk` per row) rather
than a `red.global.add.v4.f32` per four registers of every thread, which
made this kernel lose to tutorial 06's two at D 64 when it was first
measured (docs/benchmarks-log.md, forty-second session).

On the GPU: every variant checked against float64 into NaN-poisoned
outputs (ragged N: the last block's rows past N are not added), then
SDPA's backward, tutorial 06's and the fused one's variants timed (medians
of CUDA events, L2 flushed), then the fused kernel per variant with and
without tile-bulk-atomics through `phobos-run --bench` (the .ph of
test/Transforms/Inputs).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tutorials"))
sys.path.insert(0, str(ROOT / "python"))

import phobos.lang as ph  # noqa: E402
import t06_fused_attention as t06  # noqa: E402
from _common import cdiv, empty  # noqa: E402

KERNEL_PH = ROOT / "test" / "Transforms" / "Inputs" / "attention_backward_fused.ph"
# (BC, BR, pipeline stages): two stages fit two CTAs of D 128, BC 64 on an SM.
VARIANTS = [(64, 64, 3), (64, 64, 2), (128, 64, 3), (64, 32, 3), (128, 32, 3)]


@ph.kernel
@ph.autotune(D=[64, 128], BR=[64, 128])
def attn_bwd_prep(o: ph.tensor[ph.f16][BH, N, D], dout_all: ph.tensor[ph.f16][BH, N, D],
                  delta: ph.tensor[ph.f32][BH, N], dq_acc: ph.tensor[ph.f32][BH, N, D]):
    row: ph.let = ph.ctx.block.x * BR
    bh: ph.let = ph.ctx.block.y
    product: ph.let = ph.f32(o[bh, row:+BR, :]) * ph.f32(dout_all[bh, row:+BR, :])
    delta[bh, row:+BR] = ph.reshape(ph.rowsum(product), BR)
    dq_acc[bh, row:+BR, :] = 0.0


@ph.kernel
@ph.autotune(D=[64, 128], BC=[64, 128, 32], BR=[64, 32, 128], STAGES=[3, 2])
@ph.pipeline("STAGES")
@ph.tensorcore
def attn_bwd_fused(q: ph.tensor[ph.f16][BH, N, D], k: ph.tensor[ph.f16][BH, N, D],
                   v: ph.tensor[ph.f16][BH, N, D], dout_all: ph.tensor[ph.f16][BH, N, D],
                   lse: ph.tensor[ph.f32][BH, N], delta: ph.tensor[ph.f32][BH, N],
                   dk: ph.tensor[ph.f16][BH, N, D], dv: ph.tensor[ph.f16][BH, N, D],
                   dq_acc: ph.tensor[ph.f32][BH, N, D], scale: ph.f32, causal: ph.bool):
    col: ph.let = ph.ctx.block.x * BC
    bh: ph.let = ph.ctx.block.y
    kt: ph.let = k[bh, col:+BC, :]
    vt: ph.let = v[bh, col:+BC, :]
    cols: ph.let = ph.reshape(col + ph.arange(BC), BC, 1)
    dk_acc: ph.var[ph.tile[ph.f32][BC, D]] = 0.0
    dv_acc: ph.var[ph.tile[ph.f32][BC, D]] = 0.0
    start: ph.let = ph.where(causal, col / BR * BR, 0)
    for r0 in range(start, N, BR):
        qt: ph.let = q[bh, r0:+BR, :]
        dout: ph.let = dout_all[bh, r0:+BR, :]
        rows: ph.let = r0 + ph.arange(BR)
        keep: ph.let = ph.where(causal, cols <= rows, cols < N) and rows < N
        pt: ph.let = ph.where(keep, ph.exp(scale * ph.dot_t(kt, qt) -
                                           ph.reshape(lse[bh, r0:+BR], 1, BR)), 0.0)
        dv_acc += ph.dot(ph.f16(pt), dout)
        dpt: ph.let = ph.dot_t(vt, dout)
        dst: ph.let = ph.f16(pt * (dpt - ph.reshape(delta[bh, r0:+BR], 1, BR)))
        dk_acc += ph.dot(dst, qt)
        ph.atomic_add(dq_acc[bh, r0:+BR, :], ph.dot(ph.transpose(dst), kt))
    dk[bh, col:+BC, :] = dk_acc * scale
    dv[bh, col:+BC, :] = dv_acc


@ph.kernel
@ph.autotune(D=[64, 128], BR=[64, 128])
def attn_bwd_dq_out(dq_acc: ph.tensor[ph.f32][BH, N, D], dq: ph.tensor[ph.f16][BH, N, D],
                    scale: ph.f32):
    row: ph.let = ph.ctx.block.x * BR
    bh: ph.let = ph.ctx.block.y
    dq[bh, row:+BR, :] = dq_acc[bh, row:+BR, :] * scale


def backward_fused(q: Any, k: Any, v: Any, o: Any, lse: Any, do: Any, causal: bool,
                   scale: float | None = None, alloc=empty, **variant: int) -> tuple:
    """(dQ, dK, dV) from one dK/dV/dQ kernel; `alloc` makes the outputs."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    bh, n, d = math.prod(q.shape[:-2]), q.shape[-2], q.shape[-1]
    f = t06._flat
    delta = alloc(q, (bh, n), "f32")
    dq_acc = alloc(q, (bh, n, d), "f32")
    attn_bwd_prep[lambda meta: (cdiv(n, meta["BR"]), bh)](f(o), f(do), delta, dq_acc)
    dq, dk, dv = (alloc(q, q.shape, "f16") for _ in range(3))
    attn_bwd_fused[lambda meta: (cdiv(n, meta["BC"]), bh)](
        f(q), f(k), f(v), f(do), lse.reshape(bh, n), delta, f(dk), f(dv), dq_acc, scale,
        causal, **variant)
    attn_bwd_dq_out[lambda meta: (cdiv(n, meta["BR"]), bh)](dq_acc, f(dq), scale)
    return dq, dk, dv


def reference(q, k, v, do, causal: bool, scale: float) -> tuple:
    """(dQ, dK, dV) in float64 from NumPy arrays."""
    import numpy as np
    q, k, v, do = (np.asarray(x, dtype=np.float64) for x in (q, k, v, do))
    t = lambda a: np.swapaxes(a, -1, -2)
    s = scale * q @ t(k)
    if causal:
        n = q.shape[-2]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    dp = do @ t(v)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    return scale * ds @ k, scale * t(ds) @ q, t(p) @ do


def cpu_check() -> int:
    import numpy as np
    rng = np.random.default_rng(1)
    worst = 0.0
    for causal in (False, True):
        q, k, v, do = (rng.standard_normal((1, 2, 77, 64)).astype(np.float16) for _ in range(4))
        o, lse = t06.attention(q, k, v, causal, 0.125, BR=64, BC=64)
        got = backward_fused(q, k, v, o, lse, do, causal, 0.125, BC=32, BR=32)
        want = reference(q, k, v, do, causal, 0.125)
        for name, g, w in zip(("dq", "dk", "dv"), got, want):
            err = float(np.abs(g.astype(np.float64) - w).max() / np.abs(w).max())
            worst = max(worst, err)
            print(f"causal={int(causal)} {name}: max error / max |value| {err:.1e}")
    print("ok" if worst < 1e-2 else "FAILED")
    return 0 if worst < 1e-2 else 1


def gpu(bindir: Path) -> int:
    import torch
    from _common import bench_ms

    def poisoned(like, shape, dtype):
        return torch.full(tuple(shape), math.nan, device=like.device,
                          dtype={"f16": torch.float16, "f32": torch.float32}[dtype])

    torch.manual_seed(0)
    failed = 0
    for d in (64, 128):
        for causal in (False, True):
            for shape in ((1, 4, 1000, d), (1, 2, 2048, d)):
                q, k, v, do = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(4))
                o, lse = t06.attention(q, k, v, causal)
                want = [torch.from_numpy(w).cuda() for w in reference(
                    *(x.cpu().numpy() for x in (q, k, v, do)), causal, 1 / math.sqrt(d))]
                for bc, br, stages in VARIANTS:
                    got = backward_fused(q, k, v, o, lse, do, causal, alloc=poisoned, BC=bc, BR=br,
                                         STAGES=stages)
                    err = max(((g.double() - w).abs().max() / w.abs().max()).item()
                              for g, w in zip(got, want))
                    if not err < 1e-2:
                        failed += 1
                        print(f"CHECK FAILED D{d} causal={int(causal)} {shape} BC{bc} BR{br} "
                              f"stages {stages}: {err:.1e}")
    print(f"checks: {'all ok' if not failed else f'{failed} failed'}", flush=True)

    rows = []
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for d in (64, 128):
        for causal in (False, True):
            for bh, n in ((128, 4096), (16, 16384), (512, 1024)):
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
                for bc, br, stages in VARIANTS:
                    row[f"{bc}x{br}/{stages}"] = time(lambda: backward_fused(
                        q, k, v, o, lse, do, causal, BC=bc, BR=br, STAGES=stages))
                rows.append(row)
                print(json.dumps(row), flush=True)
                del q, k, v, do, qg, kg, vg, want
                torch.cuda.empty_cache()
    print(f"\n{torch.cuda.get_device_name()}: backward ms (ratio SDPA / it)")
    cols = ["two"] + [f"{bc}x{br}/{stages}" for bc, br, stages in VARIANTS]
    print("| D | causal | B*H | N | SDPA | tutorial 06 | " + " | ".join(f"fused {c}" for c in cols[1:]) + " |")
    print("|" + " --- |" * (5 + len(cols)))
    for r in rows:
        cells = [f"{r[c]:.3f} ({r['sdpa'] / r[c]:.2f})" for c in cols]
        print(f"| {r['D']} | {r['causal']} | {r['BH']} | {r['N']} | {r['sdpa']:.3f} | " + " | ".join(cells) + " |")

    print("\nthe fused kernel with and without tile-bulk-atomics "
          "(phobos-run --bench, B*H 128, N 4096, non-causal; best of 2)")
    for d, bc, br in ((128, 64, 64), (128, 128, 64), (64, 64, 64)):
        times = {}
        for arm in ("with", "without") * 2:
            extra = ["--experiment", "without=tile-bulk-atomics"] if arm == "without" else []
            run = subprocess.run(
                [str(bindir / "phobos-run"), str(KERNEL_PH), "--variant", f"D={d},BC={bc},BR={br}",
                 "--dim", "BH=128", "--dim", "N=4096", "--scalar", "scale=0.1",
                 "--scalar", "causal=0", "--bench", "--repeat", "20", "--json", *extra],
                capture_output=True, text=True, timeout=120)
            line = next((l for l in run.stdout.splitlines() if "PHOBOS_RESULT" in l), None)
            if line:
                ms = json.loads(line.split("PHOBOS_RESULT", 1)[1].strip(" :"))["time_ms"]
                times[arm] = min(times.get(arm, math.inf), ms)
        print(f"D {d} BC {bc} BR {br}: with {times.get('with')} ms, without {times.get('without')} ms")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bindir", nargs="?", type=Path, help="the static tools' bin folder")
    parser.add_argument("--cpu", action="store_true", help="the float64 check in the interpreter")
    args = parser.parse_args()
    if args.cpu:
        return cpu_check()
    if not args.bindir:
        parser.error("give the tools' bin folder (or --cpu)")
    return gpu(args.bindir)


if __name__ == "__main__":
    sys.exit(main())
