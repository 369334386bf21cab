#!/usr/bin/env python3
"""Every example under compute-sanitizer: memcheck and racecheck.

Runs on the GPU machine from a checkout plus the self-contained tools
(scripts/build-static.sh). For every example, in its default and its last
@autotune variant, at small ragged sizes, it runs `phobos-run --check` under
`compute-sanitizer --tool memcheck` and `--tool racecheck` and fails on any
report: a memcheck error (out-of-bounds or misaligned access, invalid
address), a racecheck hazard (error or warning: shared-memory accesses of
different threads not ordered by a barrier), a failed check or a failed run.
Needs only the Python standard library (no torch). Prints a table last;
writes sanitize-TOOLS.json to $OUT when it is set.

Usage: python3 bench/gpu_sanitize.py BINDIR [--tool memcheck|racecheck]
           [--only EXAMPLE[,EXAMPLE...]] [--sanitizer PATH]
           [--jobs N] [--timeout SECONDS]
   or: python3 bench/gpu_suite.py BINDIR --sanitize [the same options]
Exit status: 0 when every run is clean, 1 otherwise.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Small, ragged sizes: every tile has a masked edge, every grid axis more
# than one CTA where the kernel has one.
SIZES = {
    "saxpy_fp32.ph": {"N": 1000},
    "vector_add.ph": {"N": 5003},
    "sgemm_fp32.ph": {"M": 100, "N": 70, "K": 33},
    "gemm_f32_tc.ph": {"M": 100, "N": 70, "K": 40},
    # N and K multiples of 8: on sm_90a the operands arrive through TMA
    # (ragged M and N edges through its zero fill).
    "gemm_f16_tc.ph": {"M": 100, "N": 72, "K": 40},
    "gemm_gelu_f16.ph": {"M": 100, "N": 72, "K": 40},
    "gemm_bf16_tc.ph": {"M": 100, "N": 72, "K": 40},
    "softmax.ph": {"M": 7, "N": 1000},
    "layernorm.ph": {"M": 7, "N": 1000},
    "outer_update.ph": {"M": 70, "N": 50},
    "flash_attention_fp32.ph": {"BH": 2, "Nq": 100, "Nk": 77},
    "flash_attention_fp16.ph": {"BH": 2, "Nq": 100, "Nk": 77},
    "flash_attention_tf32.ph": {"BH": 2, "Nq": 100, "Nk": 77},
    "kda_chunk.ph": {"BH": 2, "T": 100},
    # @aligned(M = TILE_M, N = TILE_N, K = TILE_K): multiples of every variant.
    "cluster_matmul.ph": {"M": 256, "N": 256, "K": 64},
    "cluster_flash_attention.ph": {"Nq": 100, "Nk": 77},
}


def last_variant(bin_dir: str, example: str) -> dict:
    """The last @autotune variant (every dimension's last value)."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([os.path.join(bin_dir, "phobos-compile"), example,
                               "--last-variant", "--contract-only", "-o", out],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr)
        for name in os.listdir(out):
            with open(os.path.join(out, name)) as f:
                return json.load(f).get("variant", {})
    return {}


def sanitize(sanitizer: str, tool: str, cmd: list[str], timeout: float) -> dict:
    """Runs `cmd` under compute-sanitizer; what it reported."""
    argv = [sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "20"]
    if tool == "racecheck":
        argv += ["--racecheck-report", "all"]
    t0 = time.time()
    try:
        proc = subprocess.run(argv + cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"tool": tool, "exit": None, "wall_s": round(time.time() - t0, 1),
                "errors": None, "hazards": None, "check": "timeout", "ok": False,
                "detail": f"timed out after {timeout:g} s"}
    text = proc.stdout + proc.stderr
    result = {"tool": tool, "exit": proc.returncode, "wall_s": round(time.time() - t0, 1)}
    errors = re.search(r"ERROR SUMMARY: (\d+) error", text)
    hazards = re.search(r"RACECHECK SUMMARY: (\d+) hazard", text)
    result["errors"] = int(errors.group(1)) if errors else None
    result["hazards"] = int(hazards.group(1)) if hazards else None
    check = re.search(r'"check":"(\w+)"', text)
    result["check"] = check.group(1) if check else "error"
    reported = (result["errors"] or 0) + (result["hazards"] or 0)
    result["ok"] = (proc.returncode == 0 and reported == 0 and result["check"] == "ok"
                    and (errors or hazards) is not None)
    if not result["ok"]:
        # The first report, for the table's reader.
        lines = [line for line in text.splitlines() if line.startswith("=========")]
        result["detail"] = "\n".join(lines[:30]) or text[-2000:]
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bin", nargs="?", default="build-static/dist/bin")
    parser.add_argument("--tool", choices=("memcheck", "racecheck"), action="append")
    parser.add_argument("--only", default="", help="comma-separated example files")
    parser.add_argument("--sanitizer", default=shutil.which("compute-sanitizer") or
                        "/usr/local/cuda/bin/compute-sanitizer")
    parser.add_argument("--jobs", type=int, default=1,
                        help="sanitizer runs at once (they share the GPU; default 1)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds per run before it counts as failed (default 300)")
    parser.add_argument("--sanitize", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    tools = args.tool or ["memcheck", "racecheck"]
    if not os.path.exists(args.sanitizer):
        print(f"gpu_sanitize: no compute-sanitizer at {args.sanitizer}; pass --sanitizer",
              file=sys.stderr)
        return 2
    examples = sorted(SIZES)
    if args.only:
        examples = [e if e.endswith(".ph") else e + ".ph" for e in args.only.split(",")]
    missing = sorted(set(f for f in os.listdir(os.path.join(ROOT, "examples"))
                         if f.endswith(".ph")) - set(SIZES))
    if missing and not args.only:
        print(f"gpu_sanitize: no sizes for {', '.join(missing)}; add them to SIZES",
              file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"gpu_sanitize: --jobs must be at least 1, not {args.jobs}", file=sys.stderr)
        return 2
    runs = []
    for example in examples:
        path = os.path.join(ROOT, "examples", example)
        dims = SIZES[example]
        variants = [("default", {})]
        last = last_variant(args.bin, path)
        if last:
            variants.append(("last", last))
        for label, variant in variants:
            cmd = [os.path.join(args.bin, "phobos-run"), path, "--check", "--json"]
            cmd += [f"--dim={k}={v}" for k, v in dims.items()]
            if variant:
                cmd.append("--variant=" + ",".join(f"{k}={v}" for k, v in variant.items()))
            for tool in tools:
                runs.append(({"example": example.removesuffix(".ph"), "variant": label,
                              "values": ",".join(f"{k}={v}" for k, v in variant.items()) or "-",
                              "dims": ",".join(f"{k}={v}" for k, v in dims.items())}, tool, cmd))

    def run(item: tuple) -> dict:
        head, tool, cmd = item
        return {**head, **sanitize(args.sanitizer, tool, cmd, args.timeout)}

    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for row in pool.map(run, runs):
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "detail"}), flush=True)
            if not row["ok"]:
                print(row.get("detail", ""), flush=True)

    print()
    print(f"# compute-sanitizer over the examples, {time.strftime('%Y-%m-%d')}")
    print(f"{'example':26} {'variant':8} {'tool':10} {'reports':>8} {'check':6} {'wall_s':>7}  result")
    failed = 0
    for r in rows:
        reports = r["errors"] if r["tool"] == "memcheck" else r["hazards"]
        failed += not r["ok"]
        print(f"{r['example'][:26]:26} {r['variant']:8} {r['tool']:10} "
              f"{'-' if reports is None else reports:>8} {r['check'][:6]:6} {r['wall_s']:7.1f}  "
              f"{'ok' if r['ok'] else 'FAILED'}")
    print(f"{len(rows) - failed} of {len(rows)} runs clean")
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, f"sanitize-{'-'.join(tools)}.json"), "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"), "rows": rows}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
