#!/usr/bin/env python3
"""Tutorial 06's two backward kernels over their @autotune spaces.

The suite and bench/attention_sdpa_gpu.py time the backward at its default
variants only (dK/dV: BC 64, BR 64; dQ: BR 64, BC 64). This times each of
the two kernels alone at every (BC, BR) or (BR, BC) pair of its space, for
D 64 and 128, causal and not, at the shapes given, beside SDPA's whole
backward (autograd) in the same run. Each variant's outputs are first
checked against SDPA's gradients (outputs poisoned with NaN), then timed as
medians of CUDA events with the L2 flushed (tutorials/_common.bench_ms).

Usage (GPU machine, the static tools unpacked in DIST):
  PHOBOS_HOME=DIST python3 bench/experiments/attention_bwd_variants.py \
      [--shapes 128x4096] [--d 64,128] [--json OUT]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tutorials"))
sys.path.insert(0, str(ROOT / "bench"))

from attention_sdpa_gpu import parse_pairs  # noqa: E402

SIZES = (32, 64, 128)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default=parse_pairs("128x4096", "--shapes", "BHxN"),
                        type=lambda text: parse_pairs(text, "--shapes", "BHxN (e.g. 16x512)"),
                        help="(B*H, N) pairs (BHxN,...)")
    parser.add_argument("--d", default="64,128", help="head dims, comma separated")
    parser.add_argument("--rep", type=int, default=10)
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args()

    import torch
    import t06_fused_attention as t06
    from _common import bench_ms, cdiv

    sdpa = torch.nn.functional.scaled_dot_product_attention
    torch.manual_seed(0)
    rows = []
    for d in (int(x) for x in args.d.split(",")):
        for causal in (False, True):
            for bh, n in args.shapes:
                q, k, v, do = (torch.randn(1, bh, n, d, device="cuda", dtype=torch.float16)
                               for _ in range(4))
                scale = 1 / math.sqrt(d)
                qg, kg, vg = (x.clone().requires_grad_() for x in (q, k, v))
                want = sdpa(qg, kg, vg, is_causal=causal)
                dq_want, dk_want, dv_want = torch.autograd.grad(want, (qg, kg, vg), do,
                                                                retain_graph=True)
                sdpa_ms = bench_ms(lambda: torch.autograd.grad(want, (qg, kg, vg), do,
                                                               retain_graph=True),
                                   warmup=3, rep=args.rep)
                o, lse = t06.attention(q, k, v, causal)
                flat = [t06._flat(t) for t in (q, k, v, do)]
                delta = torch.empty((bh, n), device="cuda", dtype=torch.float32)
                t06.attn_bwd_delta[lambda meta: (cdiv(n, meta["BR"]), bh)](
                    t06._flat(o), t06._flat(do), delta)
                inputs = flat + [lse.reshape(bh, n), delta]
                base = {"D": d, "causal": causal, "BH": bh, "N": n, "sdpa_bwd_ms": sdpa_ms}

                def measure(kernel, blocks, outputs, wants, **variant):
                    grid = (cdiv(n, variant[blocks]), bh)
                    for out in outputs:
                        out.fill_(math.nan)
                    try:
                        kernel[grid](*inputs, *outputs, scale, causal, **variant)
                    except Exception as error:  # a variant the compiler refuses
                        return {"refused": str(error).splitlines()[0][:120]}
                    err = max((got.float() - w.float()).abs().max().item()
                              for got, w in zip(outputs, wants))
                    ms = bench_ms(lambda: kernel[grid](*inputs, *outputs, scale, causal,
                                                       **variant), warmup=3, rep=args.rep)
                    return {"ms": ms, "max_abs_err": err}

                dk, dv, dq = (torch.empty((bh, n, d), device="cuda", dtype=torch.float16)
                              for _ in range(3))
                for bc, br in itertools.product(SIZES, SIZES):
                    result = measure(t06.attn_bwd_dkdv, "BC", (dk, dv),
                                     (dk_want.reshape(bh, n, d), dv_want.reshape(bh, n, d)),
                                     D=d, BC=bc, BR=br)
                    rows.append({**base, "kernel": "dkdv", "BC": bc, "BR": br, **result})
                    print(json.dumps(rows[-1]), flush=True)
                for br, bc in itertools.product(SIZES, SIZES):
                    result = measure(t06.attn_bwd_dq, "BR", (dq,), (dq_want.reshape(bh, n, d),),
                                     D=d, BR=br, BC=bc)
                    rows.append({**base, "kernel": "dq", "BR": br, "BC": bc, **result})
                    print(json.dumps(rows[-1]), flush=True)
                del q, k, v, do, qg, kg, vg, want
                torch.cuda.empty_cache()
    card = torch.cuda.get_device_name()
    if args.json:
        args.json.write_text(json.dumps({"card": card, "rows": rows}, indent=1) + "\n")
    print(f"\n{card}: tutorial 06's backward kernels by variant (ms; SDPA's whole backward beside)")
    print("| D | causal | B*H | N | kernel | variant | ms | max abs err | SDPA bwd ms |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        variant = f"BC={r['BC']},BR={r['BR']}" if r["kernel"] == "dkdv" else \
            f"BR={r['BR']},BC={r['BC']}"
        timing = f"{r['ms']:.3f} | {r['max_abs_err']:.1e}" if "ms" in r else \
            f"refused | {r['refused'][:40]}"
        print(f"| {r['D']} | {int(r['causal'])} | {r['BH']} | {r['N']} | {r['kernel']} | "
              f"{variant} | {timing} | {r['sdpa_bwd_ms']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
