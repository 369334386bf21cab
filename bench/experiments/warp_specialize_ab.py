#!/usr/bin/env python3
"""@warp_specialize against the same kernel without it, on the GPU machine.

For each TMA-pipelined example (HGEMM, bf16 GEMM, tf32 GEMM, f16 attention)
and variant, writes a copy of the example with `@warp_specialize` added,
then runs `phobos-run --check --bench` of the example and of the copy in
alternation, ROUNDS times each, and prints the median kernel time of each,
their ratio (plain / specialised: above 1 when the producer warpgroup is
faster) and the peer (cuBLAS through torch.matmul, SDPA) timed in the same
run. Every run checks its output against the float64 reference. With
--ragged, first checks the specialised copies at ragged, row-aligned sizes
(the TMA path's masked edges), every variant listed.

With --sanitize, first runs the specialised HGEMM and attention copies
under compute-sanitizer (memcheck, racecheck, synccheck: the named
barriers and the producer's early exit) at small ragged sizes.

Usage: python3 bench/experiments/warp_specialize_ab.py BINDIR [--rounds 3] [--repeat 30]
           [--only hgemm,bgemm,tf32,attention] [--ragged] [--sanitize] [--quick]
           [--no-ab]
Writes warp_specialize_ab.json to $OUT when set.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile

# Experiments live two folders below the checkout; their helpers
# (phobos_run, timing) are in bench/.
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)

from phobos_run import (ab_parser, checks_summary, interleaved_runs, run_json, sanitize_run,
                        specialised_copy, save_to_out)

GEMM_SCALARS = {"alpha": 1.0, "beta": 0.0}


def workloads(quick=False):
    if quick:
        for bc in (128, 64):
            yield ("attention", "flash_attention_fp16.ph", {"BH": 128, "Nq": 4096, "Nk": 4096},
                   {"D": 128, "BR": 128, "BC": bc}, {"scale": 1.0 / 128 ** 0.5})
        return
    for kind, example in (("hgemm", "gemm_f16_tc.ph"), ("bgemm", "gemm_bf16_tc.ph")):
        for size in (4096, 8192):
            for tile in ((128, 256, 64), (128, 256, 32), (128, 128, 64)):
                yield (kind, example, {"M": size, "N": size, "K": size},
                       dict(zip(("TILE_M", "TILE_N", "TILE_K"), tile)), GEMM_SCALARS)
    for tile in ((128, 128, 32), (128, 256, 32)):
        yield ("tf32", "gemm_f32_tc.ph", {"M": 4096, "N": 4096, "K": 4096},
               dict(zip(("TILE_M", "TILE_N", "TILE_K"), tile)), {})
    for d, br, bc in ((128, 128, 128), (128, 128, 64), (64, 128, 64), (64, 128, 128)):
        yield ("attention", "flash_attention_fp16.ph", {"BH": 128, "Nq": 4096, "Nk": 4096},
               {"D": d, "BR": br, "BC": bc}, {"scale": 1.0 / d ** 0.5})


def ragged():
    for example, variant in (("gemm_f16_tc.ph", {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}),
                             ("gemm_f16_tc.ph", {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32}),
                             ("gemm_bf16_tc.ph", {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}),
                             ("gemm_f32_tc.ph", {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32})):
        for dims in ({"M": 1000, "N": 1008, "K": 1016}, {"M": 8, "N": 264, "K": 40},
                     {"M": 136, "N": 8, "K": 4104}):
            yield example, dims, variant, {"alpha": 1.0, "beta": 0.5}
    for variant in ({"D": 128, "BR": 128, "BC": 128}, {"D": 64, "BR": 128, "BC": 64}):
        for dims in ({"BH": 3, "Nq": 1000, "Nk": 1032}, {"BH": 2, "Nq": 64, "Nk": 8},
                     {"BH": 1, "Nq": 200, "Nk": 2056}):
            yield "flash_attention_fp16.ph", dims, variant, {"scale": 0.1}


def peer_ms(kind: str, dims: dict, variant: dict) -> float:
    import torch
    import torch.nn.functional as F
    from timing import median_ms as median

    dev = "cuda"
    if kind in ("hgemm", "bgemm", "tf32"):
        dtype = {"hgemm": torch.float16, "bgemm": torch.bfloat16, "tf32": torch.float32}[kind]
        torch.backends.cuda.matmul.allow_tf32 = kind == "tf32"
        a = torch.randn(dims["M"], dims["K"], device=dev, dtype=dtype)
        b = torch.randn(dims["K"], dims["N"], device=dev, dtype=dtype)
        return median(lambda: torch.matmul(a, b))
    # SDPA's default backend, as bench/gpu_suite.py measures it (cuDNN's
    # flash kernel on the H200).
    bh, n, d = dims["BH"], dims["Nq"], variant["D"]
    q, k, v = (torch.randn(4, bh // 4, n, d, device=dev, dtype=torch.float16) for _ in range(3))
    return median(lambda: F.scaled_dot_product_attention(q, k, v))


def main() -> int:
    parser = ab_parser(rounds=3, only=True)
    parser.add_argument("--ragged", action="store_true")
    parser.add_argument("--sanitize", action="store_true")
    parser.add_argument("--no-ab", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="only f16 attention D 128 (BC 128 and 64), in every part")
    args = parser.parse_args()
    only = [w for w in args.only.split(",") if w]
    directory = tempfile.mkdtemp(prefix="phobos-ws-")
    failures = 0
    if args.sanitize:
        cases = (("gemm_f16_tc.ph", {"M": 100, "N": 72, "K": 200},
                  {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}, {"alpha": 1.0, "beta": 0.5}),
                 ("gemm_f16_tc.ph", {"M": 100, "N": 72, "K": 40}, {}, {"alpha": 1.0, "beta": 0.5}),
                 ("flash_attention_fp16.ph", {"BH": 2, "Nq": 100, "Nk": 277},
                  {"D": 128, "BR": 128, "BC": 128}, {"scale": 0.1}))
        for example, dims, variant, scalars in cases:
            if args.quick and not example.startswith("flash"):
                continue
            for tool in ("memcheck", "racecheck", "synccheck"):
                failures += not sanitize_run(
                    args.bindir, tool, specialised_copy(example, directory), dims, variant,
                    scalars, f"ws {example} {variant or 'default'}")
    if args.ragged:
        checked = 0
        for example, dims, variant, scalars in ragged():
            if args.quick and variant.get("D") != 128:
                continue
            result = run_json(args.bindir, specialised_copy(example, directory), dims, variant,
                              scalars)
            checked += 1
            if result.get("check") != "ok":
                failures += 1
                print(f"  ragged {example} {dims} {variant}: {result}", flush=True)
        print(f"ragged checks of the specialised copies: {checked - failures} of {checked} ok",
              flush=True)
    rows = []
    for kind, example, dims, variant, scalars in workloads(args.quick):
        if args.no_ab or (only and kind not in only):
            continue
        copies = {True: specialised_copy(example, directory),
                  False: specialised_copy(example, directory, specialised=False)}
        times, checks = interleaved_runs(
            args.rounds, (False, True),
            lambda specialised: run_json(args.bindir, copies[specialised], dims, variant,
                                         scalars, args.repeat),
            lambda specialised: f"{example} {variant} ws={specialised}")
        plain, special = statistics.median(times[False]), statistics.median(times[True])
        peer = peer_ms(kind, dims, variant)
        row = {"kind": kind, "sizes": "x".join(str(v) for v in dims.values()),
               "variant": ",".join(f"{k}={v}" for k, v in variant.items()),
               "plain_ms": plain, "ws_ms": special, "peer_ms": peer,
               "ratio": plain / special if special > 0 else float("nan"),
               "plain_vs_peer": peer / plain, "ws_vs_peer": peer / special,
               "checks": checks_summary(checks)}
        failures += row["checks"] != "ok"
        rows.append(row)
        print(f"{kind:9} {row['sizes']:16} {row['variant']:26} plain {plain:7.3f} ws {special:7.3f}"
              f" ms  ws gain {row['ratio']:.3f}x  peer {peer:7.3f} ms ({row['plain_vs_peer']:.3f}x"
              f" -> {row['ws_vs_peer']:.3f}x)  {row['checks']}", flush=True)
    save_to_out("warp_specialize_ab.json", rows)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
