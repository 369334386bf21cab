#!/usr/bin/env python3
"""How the stage count of @pipeline changes the tensor-core examples.

For each example and stage count (1 = no overlap, the unpipelined code), a
copy of the example with `@pipeline(N)` runs in phobos-run with --check
--bench at the suite's sizes, every listed variant; prints a table of the
best time per stage count. Also reports the SASS instruction counts that
show the pipeline is there (LDGSTS = cp.async, LDSM = ldmatrix) when
cuobjdump is available.

Usage: python3 bench/stages_sweep.py BINDIR [--only=WORD,WORD] [--stages=1,2,3,4]
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN = sys.argv[1] if len(sys.argv) > 1 else "build-static/dist/bin"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = tempfile.mkdtemp(prefix="stages-")
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
STAGES = next(([int(x) for x in a.split("=", 1)[1].split(",")] for a in sys.argv if a.startswith("--stages=")),
              [1, 2, 3, 4])

CASES = [
    ("gemm_f16_tc.ph", {"M": 4096, "N": 4096, "K": 4096}, {"alpha": 1.0, "beta": 0.0},
     [{"TILE_M": 128, "TILE_N": 128, "TILE_K": 32}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 32},
      {"TILE_M": 128, "TILE_N": 128, "TILE_K": 64}]),
    ("gemm_f32_tc.ph", {"M": 4096, "N": 4096, "K": 4096}, {},
     [{"TILE_M": 128, "TILE_N": 128, "TILE_K": 32}, {"TILE_M": 64, "TILE_N": 128, "TILE_K": 32}]),
    ("flash_attention_fp16.ph", {"BH": 128, "Nq": 4096, "Nk": 4096}, {"scale": 0.125},
     [{"D": 64, "BR": 128, "BC": 64}, {"D": 64, "BR": 64, "BC": 64}]),
    ("sgemm_fp32.ph", {"M": 4096, "N": 4096, "K": 4096}, {"alpha": 1.0, "beta": 0.5},
     [{"TILE_M": 128, "TILE_N": 128, "TILE_K": 8}, {"TILE_M": 128, "TILE_N": 128, "TILE_K": 16}]),
]


def with_stages(example: str, stages: int) -> str:
    text = open(os.path.join(ROOT, "examples", example)).read()
    text = re.sub(r"^@pipeline(\([^)]*\))?\s*$", "", text, flags=re.M)
    text = re.sub(r"^kernel ", f"@pipeline({stages})\nkernel ", text, count=1, flags=re.M)
    path = os.path.join(WORK, f"{stages}_{example}")
    open(path, "w").write(text)
    return path


def run(path, dims, scalars, variant):
    cmd = [os.path.join(BIN, "phobos-run"), path, "--check", "--json", "--samples=512", "--bench", "--repeat=20"]
    cmd += [f"--dim={k}={v}" for k, v in dims.items()]
    cmd += [f"--scalar={k}={v}" for k, v in scalars.items()]
    cmd.append("--variant=" + ",".join(f"{k}={v}" for k, v in variant.items()))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("PHOBOS_RESULT "):
            return json.loads(line[len("PHOBOS_RESULT "):])
    return {"check": "error", "error": (proc.stderr or proc.stdout)[-300:]}


def sass_counts(path, variant):
    if not shutil.which("cuobjdump"):
        return {}
    out = os.path.join(WORK, "sass")
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([os.path.join(BIN, "phobos-compile"), path, "--chip=sm_90", "-o", out,
                    "--variant=" + ",".join(f"{k}={v}" for k, v in variant.items())], capture_output=True)
    counts = {}
    for name in os.listdir(out) if os.path.isdir(out) else []:
        if name.endswith(".cubin"):
            sass = subprocess.run(["cuobjdump", "-sass", os.path.join(out, name)], capture_output=True,
                                  text=True).stdout
            for op in ("LDGSTS", "LDSM", "HMMA", "LDG", "STS", "BAR"):
                counts[op] = len(re.findall(rf"\b{op}\b", sass))
    return counts


table = []
for example, dims, scalars, variants in CASES:
    if ONLY and not any(word in example for word in ONLY):
        continue
    for stages in STAGES:
        path = with_stages(example, stages)
        best = None
        for variant in variants:
            r = run(path, dims, scalars, variant)
            ok = r.get("check") == "ok" and r.get("time_ms")
            print(json.dumps({"example": example, "stages": stages, "variant": variant,
                              "check": r.get("check"), "ms": r.get("time_ms"),
                              "err": r.get("max_rel_err"), "error": r.get("error")}), flush=True)
            if ok and (best is None or r["time_ms"] < best[0]):
                best = (r["time_ms"], variant)
        sass = sass_counts(path, best[1] if best else variants[0])
        table.append((example, stages, best, sass))

print()
print(f"{'example':26} {'stages':>6} {'best ms':>9}  {'variant':40} sass")
for example, stages, best, sass in table:
    ms = f"{best[0]:.3f}" if best else "failed"
    var = ",".join(f"{k}={v}" for k, v in best[1].items()) if best else "-"
    print(f"{example:26} {stages:>6} {ms:>9}  {var:40} {sass}")
