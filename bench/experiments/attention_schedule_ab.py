#!/usr/bin/env python3
"""The f16 attention example's schedules against each other and SDPA.

For each shape (B*H, N) and head size, runs `examples/flash_attention_fp16.ph`
as it is and copies of it with other schedules, in alternation, ROUNDS
times each (`phobos-run --check --bench`: every run checked against the
float64 reference on fresh inputs), and prints the median kernel time of
each beside SDPA's (cuDNN's flash kernel) timed in the same process:

- `example`: the example's own schedule (a producer warpgroup at D 128 only);
- `ws`: `@warp_specialize` at every D (a producer warpgroup, two consumers);
- `persistent`: `@persistent` added (CTAs loop over the query blocks), with
  `@aligned(Nq = 128, Nk = 128)` (no ragged remainder: the next tile's
  copies start under this tile's epilogue);
- `ws+persistent`: both, FlashAttention-3's and cuDNN's schedule (the
  producer warpgroup runs its own tile loop, ahead across tiles);
- `ws2`: a producer warpgroup and `@launch(256, 2)`: two CTAs an SM, the
  consumers at the registers that leaves them (D 64 blocks whose shared
  memory fits twice; at D 128 the launch fails);
- `f16exp`, `ws+f16exp`, `ws2+f16exp`: the softmax's powers in f16 (`exp2(f16(s - m))`:
  ex2.approx.f16x2, summed in f32; on sm_90 each half is its own
  MUFU.EX2.F16, so it saves no MUFU time: 5 % slower at D 128).

    python3 bench/experiments/attention_schedule_ab.py BINDIR [--rounds 2]
        [--shapes 128x4096,128x1024,512x512,16x16384] [--blocks 64:128x64,64:128x128,...]

Writes attention_schedule_ab.json to $OUT when set.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)

from phobos_run import ROOT, run_json, save_to_out

EXAMPLE = "flash_attention_fp16.ph"
#: A persistent kernel's next tile's copies start during this tile's epilogue
#: (and a producer warpgroup issues them) only without a ragged remainder
#: after the key loop: the persistent arms promise whole blocks (every
#: shape here is a multiple of 128; the launcher checks the promise).
WHOLE_BLOCKS = "@aligned(Nq = 128, Nk = 128)"
SCHEDULES = {"example": (), "ws": ("@warp_specialize",),
             "persistent": ("@persistent", WHOLE_BLOCKS),
             "ws+persistent": ("@warp_specialize", "@persistent", WHOLE_BLOCKS),
             "ws2": ("@warp_specialize", "@launch(256, 2)"), "f16exp": (),
             "ws+f16exp": ("@warp_specialize",),
             "ws2+f16exp": ("@warp_specialize", "@launch(256, 2)")}
#: Source edits of a schedule whose name ends in `f16exp`: the powers of the
#: softmax in f16 (ex2.approx.f16x2), summed in f32.
F16_EXP = [("let p = exp2(s - m_new)", "let p = exp2(f16(s - m_new))"),
           ("l = corr * l + rowsum(p)", "l = corr * l + rowsum(f32(p))"),
           ("acc = corr * acc + dot(f16(p), v)", "acc = corr * acc + dot(p, v)")]


def copy_with(decorators: tuple, directory: str, name: str) -> str:
    """The example with `decorators` before its @pipeline (a listed
    @warp_specialize replaces the example's conditional one) and, for a
    name ending in `f16exp`, the F16_EXP edits."""
    text = open(os.path.join(ROOT, "examples", EXAMPLE)).read()
    if name.endswith("f16exp"):
        for old, new in F16_EXP:
            if old not in text:
                raise SystemExit(f"{EXAMPLE} no longer says {old!r}")
            text = text.replace(old, new)
    out = []
    for line in text.splitlines():
        if any(line.startswith(d) for d in decorators):
            continue
        if line.startswith("@pipeline"):
            out.extend(decorators)
        out.append(line)
    path = os.path.join(directory, f"{name.replace('+', '_')}_{EXAMPLE}")
    with open(path, "w") as handle:
        handle.write("\n".join(out) + "\n")
    return path


def sdpa_ms(bh: int, n: int, d: int) -> float:
    import torch
    from timing import median_ms

    q, k, v = (torch.randn(1, bh, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
    return median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v))


def main() -> int:
    pairs = lambda text: [tuple(int(x) for x in item.split("x")) for item in text.split(",")]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bindir")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--shapes", type=pairs, default=pairs("128x4096,128x1024,512x512,16x16384"),
                        help="B*HxN pairs")
    parser.add_argument("--blocks", default="64:128x64,64:128x128,128:128x128",
                        help="D:BRxBC triples")
    parser.add_argument("--schedules", default=",".join(SCHEDULES))
    args = parser.parse_args()
    blocks = []
    for item in args.blocks.split(","):
        d, rest = item.split(":")
        br, bc = rest.split("x")
        blocks.append({"D": int(d), "BR": int(br), "BC": int(bc)})
    directory = tempfile.mkdtemp(prefix="phobos-sched-")
    names = args.schedules.split(",")
    copies = {name: copy_with(SCHEDULES[name], directory, name) for name in names}
    rows, failures = [], 0
    for bh, n in args.shapes:
        for variant in blocks:
            d = variant["D"]
            dims = {"BH": bh, "Nq": n, "Nk": n}
            times = {name: [] for name in names}
            for _ in range(args.rounds):
                for name in names:
                    result = run_json(args.bindir, copies[name], dims, variant,
                                      {"scale": d ** -0.5}, args.repeat)
                    if result.get("check") != "ok":
                        failures += 1
                        print(f"  {name} {dims} {variant}: {result}", flush=True)
                    times[name].append(result.get("time_ms", float("nan")))
            peer = sdpa_ms(bh, n, d)
            row = {"BH": bh, "N": n, **variant, "sdpa_ms": peer}
            row.update({name: statistics.median(t) for name, t in times.items()})
            rows.append(row)
            print("  ".join([f"BH {bh:4} N {n:6} D {d:3} BR {variant['BR']:3} BC {variant['BC']:3}",
                             f"SDPA {peer:.4f}"] +
                            [f"{name} {row[name]:.4f} ({peer / row[name]:.3f})" for name in names]),
                  flush=True)
    print("\n| B*H | N | D | BR x BC | SDPA ms | " + " | ".join(names) + " |")
    print("|" + " --- |" * (5 + len(names)))
    for r in rows:
        cells = [f"{r[name]:.4f} ({r['sdpa_ms'] / r[name]:.3f})" for name in names]
        print(f"| {r['BH']} | {r['N']} | {r['D']} | {r['BR']} x {r['BC']} | {r['sdpa_ms']:.4f} | "
              + " | ".join(cells) + " |")
    save_to_out("attention_schedule_ab.json", rows)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
