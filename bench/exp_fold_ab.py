#!/usr/bin/env python3
"""What folding exp's log2 e factor into one FFMA per element would gain, on edited PTX.

Usage (on the GPU machine): python3 bench/exp_fold_ab.py BINDIR
       python3 bench/exp_fold_ab.py --fold IN.ptx OUT.ptx   (the rewrite alone)

`exp(a - b)` lowers to `ex2((a - b) * log2 e)`: an FADD and an FMUL per
element. An exp2 of scores pre-scaled by log2 e (cuDNN's and Triton's
attention) needs one instruction: `ex2(a * log2 e - b * log2 e)`, with
`b * log2 e` once per row. This script rewrites each `sub.rn.f32 x, a, b;
mul.rn.f32 y, x, log2e` whose difference has no other use into
`fma.rn.f32 y, a, log2e, nb`, `nb = b * -log2e` placed after `b`'s
definition. It fills a kernel cache per f16 attention variant with
phobos-run, copies it, edits the copy's PTX, re-assembles both caches with
the same ptxas (so the assembler is not the difference), and times both in
alternation: three rounds of --check --bench --repeat=30, fresh inputs
each round, next to SDPA (docs/benchmarks.md, twenty-fifth session).
"""
import glob
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOG2E = "0f3FB8AA3B"
NEG_LOG2E = "0fBFB8AA3B"


def fold(text: str) -> tuple[str, int, int]:
    lines = text.split("\n")
    subs, uses, defs = {}, {}, {}
    for i, line in enumerate(lines):
        m = re.match(r"\s*sub\.rn\.f32\s+(%r\d+),\s*(%r\d+),\s*(%r\d+);", line)
        if m:
            subs[m.group(1)] = (i, m.group(2), m.group(3))
        m = re.match(r"\s*[a-z][\w.]*\s+(%r\d+)\s*,", line)
        if m:
            defs.setdefault(m.group(1), []).append(i)
        for reg in re.findall(r"%r\d+", line):
            uses[reg] = uses.get(reg, 0) + 1
    next_reg = max(int(r[2:]) for r in uses) + 1
    negs, inserts, folded = {}, {}, 0
    for i, line in enumerate(lines):
        m = re.match(r"(\s*)mul\.rn\.f32\s+(%r\d+),\s*(%r\d+),\s*" + LOG2E + ";", line)
        if not m or m.group(3) not in subs or uses[m.group(3)] != 2:
            continue
        at, a, b = subs[m.group(3)]
        if b not in negs:
            before = [d for d in defs.get(b, []) if d < at]
            if not before:
                continue
            negs[b] = f"%r{next_reg}"
            next_reg += 1
            inserts.setdefault(before[-1], []).append(
                f"\tmul.rn.f32 \t{negs[b]}, {b}, {NEG_LOG2E};")
        lines[at] = None
        lines[i] = f"{m.group(1)}fma.rn.f32 \t{m.group(2)}, {a}, {LOG2E}, {negs[b]};"
        folded += 1
    out = []
    for i, line in enumerate(lines):
        if line is not None:
            out.append(line)
        out.extend(inserts.get(i, []))
    result = "\n".join(out)
    decl = re.search(r"\.reg \.b32 \t%r<(\d+)>;", result)
    result = result.replace(decl.group(0), f".reg .b32 \t%r<{max(int(decl.group(1)), next_reg)}>;")
    return result, folded, len(negs)


def reassemble(cache: str, edit: bool) -> None:
    for manifest_path in glob.glob(f"{cache}/**/manifest.json", recursive=True):
        entry = os.path.dirname(manifest_path)
        manifest = json.load(open(manifest_path))
        ptx = os.path.join(entry, "kernel.ptx")
        if edit:
            text, folded, rows = fold(open(ptx).read())
            open(ptx, "w").write(text)
            print(f"  {folded} exp arguments folded, {rows} row factors")
        if "kernel.cubin" in manifest["files"]:
            made = subprocess.run(["ptxas", "-arch=sm_90a", "-v", ptx, "-o",
                                   os.path.join(entry, "kernel.cubin")],
                                  capture_output=True, text=True, check=True)
            print("  ptxas:", " ".join(l.split(":", 1)[-1].strip() for l in made.stderr.splitlines()
                                       if "registers" in l or "spill" in l))
        for name, described in manifest["files"].items():
            data = open(os.path.join(entry, name), "rb").read()
            described["sha256"] = hashlib.sha256(data).hexdigest()
            described["bytes"] = len(data)
        json.dump(manifest, open(manifest_path, "w"))


def run(binary: str, cache: str, d: int, bc: int, seed: int) -> dict:
    command = [os.path.join(binary, "phobos-run"), os.path.join(ROOT, "examples", "flash_attention_fp16.ph"),
               "--check", "--samples=256", "--bench", "--repeat=30", "--dim=BH=128", "--dim=Nq=4096",
               "--dim=Nk=4096", f"--variant=D={d},BR=128,BC={bc}",
               f"--scalar=scale={0.125 if d == 64 else 0.088}", f"--seed={seed}", "--json"]
    out = subprocess.run(command, capture_output=True, text=True,
                         env=dict(os.environ, PHOBOS_CACHE_DIR=cache))
    line = next((l for l in out.stdout.splitlines() if l.startswith("PHOBOS_RESULT ")), None)
    if line is None:
        sys.exit(f"exp_fold_ab: phobos-run failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return json.loads(line[len("PHOBOS_RESULT "):])


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--fold":
        text, folded, rows = fold(open(sys.argv[2]).read())
        open(sys.argv[3], "w").write(text)
        print(f"exp_fold_ab: {folded} exp arguments folded, {rows} row factors")
        return
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build-static", "dist", "bin")
    import torch
    rows = []
    for d, bc in ((64, 64), (128, 128)):
        default, folded = f"/tmp/exp_fold_ab/default{d}", f"/tmp/exp_fold_ab/folded{d}"
        subprocess.run(["rm", "-rf", default, folded], check=True)
        print(f"D {d}: fill", run(binary, default, d, bc, 1)["time_ms"], "ms", flush=True)
        subprocess.run(["cp", "-r", default, folded], check=True)
        reassemble(default, edit=False)
        reassemble(folded, edit=True)
        times = {"default": [], "folded": []}
        for round_ in range(3):
            for arm, cache in (("default", default), ("folded", folded)):
                result = run(binary, cache, d, bc, 10 * round_ + len(times[arm]))
                if result["check"] != "ok":
                    sys.exit(f"exp_fold_ab: D {d} {arm}: the check failed ({result['max_rel_err']})")
                times[arm].append(result["time_ms"])
                print(f"  round {round_} {arm}: {result['time_ms']:.4f} ms, max rel err "
                      f"{result['max_rel_err']:.2e}", flush=True)
        q = torch.randn(4, 32, 4096, d, device="cuda", dtype=torch.float16)
        k, v = torch.randn_like(q), torch.randn_like(q)
        sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)
        for _ in range(5):
            sdpa()
        peer = []
        for _ in range(30):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(); sdpa(); end.record(); torch.cuda.synchronize()
            peer.append(start.elapsed_time(end))
        rows.append((d, bc, statistics.median(times["default"]), statistics.median(times["folded"]),
                     statistics.median(peer)))
    print("| D | BR, BC | default ms | folded ms | gain | SDPA ms | vs SDPA, default -> folded |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for d, bc, a, b, peer in rows:
        print(f"| {d} | 128, {bc} | {a:.4f} | {b:.4f} | {a / b:.3f} | {peer:.4f} | "
              f"{peer / a:.3f} -> {peer / b:.3f} |")


if __name__ == "__main__":
    main()
