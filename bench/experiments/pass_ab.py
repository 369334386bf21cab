#!/usr/bin/env python3
"""One optimisation of the pipeline on and off, on the GPU machine.

Runs `phobos-run --check --bench` of each workload with the pass (the
default pipeline) and without it (`--experiment without=PASS`, which also
gives the kernels their own cache entries), in alternation, ROUNDS times
each, and prints the median kernel time of each, their ratio (off / on:
above 1 when the pass makes the kernel faster) and the peer (SDPA's default
backend, cuBLAS) timed in the same run. Every run checks its output
against the float64 reference.

The workloads are the f16 attention variants the pass can change
(`@warp_specialize` kernels: D 128 as the example says, and D 64 in a copy
that asks for the producer warpgroup), the example at D 64 (no producer
warpgroup) as the baseline, and an HGEMM the pass must leave as it is.
With --ragged, first checks the attention variants at ragged sizes with
the pass on; with --sanitize, runs them under compute-sanitizer (memcheck,
racecheck, synccheck) at a small ragged size.

With `--pass tile-persistent` the workloads are the GEMM examples instead
(f16, bf16 and tf32 at 4096^3 and 8192^3, in copies that say @persistent)
and the f16 attention at D 64 (or, with --sizes, the f16 and bf16 GEMMs at
those sizes: issue 45's short K and ragged shapes), and the ragged and sanitizer checks run
GEMMs: sizes with fewer tiles than the GPU holds CTAs, and with many tiles
a CTA.

With `--off SETTING` the arm turned off is `--experiment=SETTING` instead
of leaving the pass out (`--off fold-ragged=0`: tile-pipeline's ragged
remainder as a masked step after the loop); with `--plain` the GEMMs of
`--sizes` are the examples as written, not @persistent copies.

Usage: python3 bench/experiments/pass_ab.py BINDIR [--pass tile-pingpong] [--rounds 3]
           [--repeat 30] [--ragged] [--sanitize] [--quick] [--no-ab]
           [--sizes 16384x16384x1024,4100x4104x1000]   (the GEMMs at these sizes)
           [--off fold-ragged=0] [--plain]
           [--attention 128x4096,512x512]   (the attention rows at these B*H x N)
           [--sanitize-off]   (with --sanitize: also the arm --off names)
Writes pass_ab.json to $OUT when set.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile

# Experiments live two folders below the checkout; their helpers
# (phobos_run, timing) are in bench/.
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from phobos_run import (ab_parser, checks_summary, interleaved_runs, run_json, sanitize_run,
                        specialised_copy, save_to_out)
from warp_specialize_ab import peer_ms

ATTENTION = {"BH": 128, "Nq": 4096, "Nk": 4096}


GEMM_SCALARS = {"alpha": 1.0, "beta": 0.0}
#: Each GEMM example and the variant its suite row measures.
GEMMS = [("hgemm", "gemm_f16_tc.ph", {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}),
         ("bgemm", "gemm_bf16_tc.ph", {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}),
         ("tf32", "gemm_f32_tc.ph", {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32})]


def persistent_workloads(directory: str, quick: bool, sizes=None, plain: bool = False):
    """The GEMM rows and attention at D 64, in copies of the examples that
    say @persistent; with `sizes` ((M, N, K), ...), the f16 and bf16 GEMMs
    at those sizes only (with `plain`, the examples as written)."""
    if sizes:
        for kind, example, variant in GEMMS[:1] if quick else GEMMS[:2]:
            path = (os.path.join(ROOT, "examples", example) if plain else
                    specialised_copy(example, directory, decorator="@persistent"))
            for m, n, k in sizes:
                yield kind, path, {"M": m, "N": n, "K": k}, variant, GEMM_SCALARS
        return
    for kind, example, variant in GEMMS[:1] if quick else GEMMS:
        path = specialised_copy(example, directory, decorator="@persistent")
        for size in (4096, 8192):
            if kind == "tf32" and size == 8192:
                continue
            yield kind, path, {"M": size, "N": size, "K": size}, variant, GEMM_SCALARS
    if not quick:
        path = specialised_copy("gemm_f16_tc.ph", directory, decorator="@persistent")
        yield ("hgemm", path, {"M": 8192, "N": 8192, "K": 8192},
               {"TILE_M": 128, "TILE_N": 128, "TILE_K": 64}, GEMM_SCALARS)
        path = specialised_copy("flash_attention_fp16.ph", directory, decorator="@persistent")
        yield ("attention", path, ATTENTION, {"D": 64, "BR": 128, "BC": 64}, {"scale": 0.125})


def gemm_checks(args, directory: str, on: dict | None) -> int:
    """Ragged and sanitizer checks of the persistent GEMMs; the failures."""
    failures = 0
    copies = [(os.path.join(ROOT, "examples", example) if args.plain else
               specialised_copy(example, directory, decorator="@persistent"), variant)
              for _, example, variant in GEMMS]
    if args.sanitize:
        for path, variant in copies[:1] if args.quick else copies:
            for tool in ("memcheck", "racecheck", "synccheck"):
                failures += not sanitize_run(
                    args.bindir, tool, path, {"M": 300, "N": 520, "K": 200}, variant,
                    GEMM_SCALARS, f"{os.path.basename(path)} {variant}", env=on)
    if args.ragged:
        # One tile; fewer tiles than CTAs; several tiles a CTA, ragged K.
        failures += ragged_checks(args, copies,
                                  ({"M": 8, "N": 8, "K": 8}, {"M": 1000, "N": 1008, "K": 1016},
                                   {"M": 8000, "N": 7992, "K": 136},
                                   {"M": 4100, "N": 4104, "K": 1000}),
                                  {"alpha": 1.5, "beta": 0.5}, on)
    return failures


def ragged_checks(args, cases, sizes, scalars: dict, env: dict | None) -> int:
    """Checks each (path, variant) of `cases` at each of `sizes` with the
    pass on; prints the failures and a count, returns the failures."""
    checked = bad = 0
    for path, variant in cases:
        for dims in sizes:
            result = run_json(args.bindir, path, dims, variant, scalars, env=env)
            checked += 1
            if result.get("check") != "ok":
                bad += 1
                print(f"  ragged {os.path.basename(path)} {dims} {variant}: {result}", flush=True)
    print(f"ragged checks with {args.name}: {checked - bad} of {checked} ok", flush=True)
    return bad


def workloads(directory: str, quick: bool, shapes=((128, 4096),)):
    """(kind, path, dims, variant, scalars) of each A/B row; the attention
    rows at each (B*H, N) of `shapes`."""
    example = os.path.join(ROOT, "examples", "flash_attention_fp16.ph")
    forced = specialised_copy("flash_attention_fp16.ph", directory)
    variants = [(example, {"D": 128, "BR": 128, "BC": 128}),
                (example, {"D": 128, "BR": 128, "BC": 64})]
    if not quick:
        variants += [(forced, {"D": 64, "BR": 128, "BC": 64}),
                     (forced, {"D": 64, "BR": 128, "BC": 128}),
                     # The example at D 64 (no producer warpgroup): the baseline.
                     (example, {"D": 64, "BR": 128, "BC": 64})]
    for bh, n in shapes:
        dims = {"BH": bh, "Nq": n, "Nk": n}
        for path, variant in variants:
            yield "attention", path, dims, variant, {"scale": 1.0 / variant["D"] ** 0.5}
    if not quick:
        yield ("hgemm", os.path.join(ROOT, "examples", "gemm_f16_tc.ph"),
               {"M": 8192, "N": 8192, "K": 8192}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64},
               {"alpha": 1.0, "beta": 0.0})


def main() -> int:
    parser = ab_parser(rounds=3)
    parser.add_argument("--pass", dest="name", default="tile-pingpong")
    parser.add_argument("--ragged", action="store_true")
    parser.add_argument("--sanitize", action="store_true")
    parser.add_argument("--sanitize-off", action="store_true",
                        help="with --sanitize: the arm --off names too")
    parser.add_argument("--no-ab", action="store_true")
    parser.add_argument("--quick", action="store_true", help="attention D 128 only")
    parser.add_argument("--sizes", default="",
                        help="MxNxK,...: the f16 and bf16 GEMMs at these sizes are the workloads "
                             "(@persistent copies, or with --plain the examples as written)")
    parser.add_argument("--off", default="",
                        help="the experiment of the arm turned off (default: without=PASS)")
    parser.add_argument("--plain", action="store_true",
                        help="with --sizes: the GEMM examples as written, not @persistent")
    parser.add_argument("--attention", default="128x4096",
                        help="BHxN,...: the attention rows at these shapes")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="phobos-pass-ab-")
    # The pass on is the default pipeline; off, phobos-run's experiment.
    on, off = None, (f"--experiment={args.off or 'without=' + args.name}",)
    example = os.path.join(ROOT, "examples", "flash_attention_fp16.ph")
    forced = specialised_copy("flash_attention_fp16.ph", directory)
    cases = [(example, {"D": 128, "BR": 128, "BC": 128}), (example, {"D": 128, "BR": 128, "BC": 64}),
             (forced, {"D": 64, "BR": 128, "BC": 64})]
    gemm = args.name == "tile-persistent" or bool(args.sizes)
    failures = gemm_checks(args, directory, on) if gemm else 0
    if args.sanitize and not gemm:
        # The default pipeline, and with --sanitize-off the arm turned off
        # too (an experiment not yet on by default: `--off drain-ring=1`).
        arms = [()] + ([off] if args.sanitize_off else [])
        for path, variant in (cases[:1] if args.quick else cases[::2]):
            for tool in ("memcheck", "racecheck", "synccheck"):
                for extra in arms:
                    failures += not sanitize_run(
                        args.bindir, tool, path, {"BH": 2, "Nq": 300, "Nk": 277}, variant,
                        {"scale": 0.1}, f"{os.path.basename(path)} {variant} {' '.join(extra)}",
                        env=on, extra=extra)
    if args.ragged and not gemm:
        failures += ragged_checks(args, cases,
                                  ({"BH": 3, "Nq": 1000, "Nk": 1032}, {"BH": 2, "Nq": 64, "Nk": 8},
                                   {"BH": 1, "Nq": 200, "Nk": 2056}, {"BH": 2, "Nq": 129, "Nk": 130}),
                                  {"scale": 0.1}, on)
    rows = []
    if gemm:
        sizes = [tuple(int(v) for v in size.split("x")) for size in args.sizes.split(",") if size]
        measured = persistent_workloads(directory, args.quick, sizes, args.plain)
    else:
        shapes = [tuple(int(v) for v in shape.split("x")) for shape in args.attention.split(",")
                  if shape]
        measured = workloads(directory, args.quick, shapes)
    for kind, path, dims, variant, scalars in measured:
        if args.no_ab:
            break
        times, checks = interleaved_runs(
            args.rounds, (False, True),
            lambda enabled: run_json(args.bindir, path, dims, variant, scalars, args.repeat,
                                     extra=() if enabled else off),
            lambda enabled: f"{os.path.basename(path)} {variant} on={enabled}")
        without, with_pass = statistics.median(times[False]), statistics.median(times[True])
        peer = peer_ms(kind, dims, variant)
        row = {"kind": kind, "file": os.path.basename(path),
               "sizes": "x".join(str(v) for v in dims.values()),
               "variant": ",".join(f"{k}={v}" for k, v in variant.items()),
               "off_ms": without, "on_ms": with_pass, "off_rounds": times[False],
               "on_rounds": times[True], "peer_ms": peer,
               "gain": without / with_pass if with_pass > 0 else float("nan"),
               "off_vs_peer": peer / without, "on_vs_peer": peer / with_pass,
               "checks": checks_summary(checks)}
        failures += row["checks"] != "ok"
        rows.append(row)
        print(f"{kind:9} {row['file']:28} {row['variant']:26} off {without:7.3f} on "
              f"{with_pass:7.3f} ms  gain {row['gain']:.3f}x  peer {peer:7.3f} ms "
              f"({row['off_vs_peer']:.3f}x -> {row['on_vs_peer']:.3f}x)  {row['checks']}  rounds "
              f"off {' '.join(f'{t:.3f}' for t in times[False])} on "
              f"{' '.join(f'{t:.3f}' for t in times[True])}", flush=True)
    if rows:
        save_to_out("pass_ab.json", rows)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
