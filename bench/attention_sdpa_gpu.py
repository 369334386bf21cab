#!/usr/bin/env python3
"""Issue 45, item 3: f16 flash attention from Python (tutorial 06's kernels,
the front door's launch path) against torch SDPA over the issue's grid:
D 64 and 128, causal and not, B*H from 16 to 512, N from 512 to 16384.

For each shape it checks Phobos against SDPA on fresh random inputs (outputs
poisoned with NaN first; the forward output and, where --backward, dQ, dK and
dV), then times forward and backward as medians of CUDA events with the L2
flushed before each launch (tutorials/_common.bench_ms). The forward is timed
at the kernel's default variant and at each --variants pair (BR, BC); the
best of them is reported beside the default. Writes JSON and prints a table.

Usage (GPU machine, the static tools unpacked in DIST):
  PHOBOS_HOME=DIST python3 bench/attention_sdpa_gpu.py --json OUT/attention.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python" / "tutorials"))

#: (B*H, N) pairs covering the issue's range: its corners and the middle.
SHAPES = [(16, 512), (16, 4096), (16, 16384), (128, 1024), (128, 4096), (128, 16384),
          (512, 512), (512, 2048), (512, 8192)]


def parse_pairs(text: str, option: str = "--variants", form: str = "BRxBC (e.g. 128x64)"
                ) -> list[tuple[int, int]]:
    pairs = []
    for item in filter(None, text.split(",")):
        try:
            first, second = (int(x) for x in item.split("x"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option}: '{item}' is not {form}")
        pairs.append((first, second))
    return pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument("--d", default="64,128", help="head dims, comma separated")
    parser.add_argument("--variants", type=parse_pairs, default=parse_pairs("64x64,128x128"),
                        help="forward (BR, BC) pairs to try beside the default (BRxBC,...)")
    parser.add_argument("--shapes", default=None,
                        type=lambda text: parse_pairs(text, "--shapes", "BHxN (e.g. 16x512)"),
                        help="(B*H, N) pairs to run instead of the issue's grid (BHxN,...)")
    parser.add_argument("--backward", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--rep", type=int, default=15)
    args = parser.parse_args()

    import torch
    import t06_fused_attention as t06
    from _common import bench_ms, empty

    def poisoned(like, shape, dtype):
        return torch.full(tuple(shape), math.nan, device=like.device,
                          dtype={"f16": torch.float16, "f32": torch.float32}[dtype])

    torch.manual_seed(0)
    card = torch.cuda.get_device_name()
    rows = []
    sdpa = torch.nn.functional.scaled_dot_product_attention
    for d in (int(x) for x in args.d.split(",")):
        for causal in (False, True):
            for bh, n in args.shapes or SHAPES:
                q, k, v, do = (torch.randn(1, bh, n, d, device="cuda", dtype=torch.float16)
                               for _ in range(4))
                flops = 4 * bh * n * n * d * (0.5 if causal else 1.0)
                tflops = lambda ms: flops / ms * 1e-9
                time = lambda fn: bench_ms(fn, warmup=3, rep=args.rep)
                row = {"D": d, "causal": causal, "BH": bh, "N": n}
                qg, kg, vg = (x.clone().requires_grad_() for x in (q, k, v))
                want = sdpa(qg, kg, vg, is_causal=causal)
                # The checks: the default variants into NaN-poisoned outputs.
                t06.empty = poisoned
                o, lse = t06.attention(q, k, v, causal)
                row["fwd_err"] = (o.float() - want.float()).abs().max().item()
                if args.backward:
                    grads = torch.autograd.grad(want, (qg, kg, vg), do, retain_graph=True)
                    got = t06.attention_backward(q, k, v, o, lse, do, causal)
                    row["bwd_err"] = max((g.float() - w.float()).abs().max().item()
                                         for g, w in zip(got, grads))
                t06.empty = empty
                row["sdpa_ms"] = time(lambda: sdpa(q, k, v, is_causal=causal))
                row["phobos_ms"] = time(lambda: t06.attention(q, k, v, causal))
                best = ("default", row["phobos_ms"])
                for br, bc in args.variants:
                    try:
                        t06.attention(q, k, v, causal, BR=br, BC=bc)
                        ms = time(lambda: t06.attention(q, k, v, causal, BR=br, BC=bc))
                    except Exception as error:  # a variant the compiler refuses
                        print(f"D{d} BH{bh} N{n}: BR={br} BC={bc} refused: "
                              f"{str(error).splitlines()[0][:100]}", file=sys.stderr)
                        continue
                    if ms < best[1]:
                        best = (f"BR={br},BC={bc}", ms)
                row["best_variant"], row["best_ms"] = best
                row["ratio"] = row["sdpa_ms"] / row["phobos_ms"]
                row["best_ratio"] = row["sdpa_ms"] / row["best_ms"]
                row["phobos_tflops"] = tflops(row["best_ms"])
                if args.backward:
                    row["sdpa_bwd_ms"] = time(
                        lambda: torch.autograd.grad(want, (qg, kg, vg), do, retain_graph=True))
                    row["phobos_bwd_ms"] = time(
                        lambda: t06.attention_backward(q, k, v, o, lse, do, causal))
                    row["bwd_ratio"] = row["sdpa_bwd_ms"] / row["phobos_bwd_ms"]
                rows.append(row)
                print(json.dumps(row), flush=True)
                del q, k, v, do, qg, kg, vg, want
                torch.cuda.empty_cache()
    record = {"date": datetime.date.today().isoformat(), "card": card, "rows": rows,
              "command": "PHOBOS_HOME=DIST python3 bench/attention_sdpa_gpu.py"}
    if args.json:
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    print(f"\n{card}, {record['date']}: Phobos (tutorial 06) against torch SDPA, f16")
    print("| D | causal | B*H | N | SDPA ms | Phobos ms (default) | ratio | best | ratio | "
          "TFLOP/s | bwd ratio | max err fwd/bwd |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['D']} | {int(r['causal'])} | {r['BH']} | {r['N']} | {r['sdpa_ms']:.3f} | "
              f"{r['phobos_ms']:.3f} | {r['ratio']:.2f} | {r['best_variant']} | "
              f"{r['best_ratio']:.2f} | {r['phobos_tflops']:.0f} | "
              f"{r.get('bwd_ratio', float('nan')):.2f} | "
              f"{r['fwd_err']:.1e}/{r.get('bwd_err', float('nan')):.1e} |")
    worst = min(r["best_ratio"] for r in rows)
    print(f"worst forward ratio {worst:.2f}; worst backward ratio "
          f"{min((r.get('bwd_ratio', math.inf) for r in rows), default=math.nan):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
