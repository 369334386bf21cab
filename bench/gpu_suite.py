#!/usr/bin/env python3
"""The Phobos GPU suite: every example, checked and timed, next to its peers.

Runs on the GPU machine from a checkout plus the self-contained tools
(scripts/build-static.sh). For every example it runs phobos-run at several
sizes (ragged ones included) and @autotune variants with --check --bench,
and for the GEMMs, softmax, layer norm, attention and saxpy it measures the
same workload with cuBLAS / torch / Triton in the same run (median of
CUDA-event timings). Prints a table last; writes suite.json to $OUT.

Usage: python3 bench/gpu_suite.py BINDIR [--quick] [--only=WORD,WORD] [--no-sweep]
           [--json=FILE]
  --only     run only the performance rows whose name contains one of the words
             (sgemm, tf32, hgemm, bgemm, hshapes, bshapes, gelu, softmax, layernorm,
             attention, tf32attention, saxpy, gla)
  --no-sweep skip the correctness sweep at small sizes
  --json     also write the JSON of suite.json to FILE (bench/current_numbers.py
             update --suite FILE makes it the current numbers)
       python3 bench/gpu_suite.py BINDIR --sanitize [--tool memcheck|racecheck]
           [--only EXAMPLE,...]
With --sanitize it runs every example under compute-sanitizer instead
(memcheck and racecheck at small ragged sizes; bench/gpu_sanitize.py) and
fails on any report; that mode needs neither torch nor Triton.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

if "--sanitize" in sys.argv:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gpu_sanitize
    sys.exit(gpu_sanitize.main(sys.argv[1:]))

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_peers  # noqa: E402
from timing import median_ms  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build-static/dist/bin"
QUICK = "--quick" in sys.argv
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
SWEEP = "--no-sweep" not in sys.argv
JSON_OUT = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--json=")), None)


def wanted(name: str) -> bool:
    return ONLY is None or any(word in name for word in ONLY)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEV = torch.device("cuda")
rows: list[dict] = []


def phobos(example: str, dims: dict, variant: dict | None = None, bench: bool = True,
           samples: int = 4096, scalars: dict | None = None, inits: dict | None = None) -> dict:
    cmd = [os.path.join(BIN, "phobos-run"), os.path.join(ROOT, "examples", example),
           "--check", "--json", f"--samples={samples}"]
    cmd += [f"--dim={k}={v}" for k, v in dims.items()]
    if variant:
        cmd.append("--variant=" + ",".join(f"{k}={v}" for k, v in variant.items()))
    for k, v in (scalars or {}).items():
        cmd.append(f"--scalar={k}={v}")
    for k, v in (inits or {}).items():
        cmd.append(f"--init={k}={v}")
    if bench:
        cmd += ["--bench", "--repeat=20"]
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    result = {"check": "error", "max_rel_err": float("nan"), "time_ms": float("nan")}
    for line in proc.stdout.splitlines():
        if line.startswith("PHOBOS_RESULT "):
            result = json.loads(line[len("PHOBOS_RESULT "):])
            if result.get("max_rel_err") is None:
                result["max_rel_err"] = float("inf")
    if proc.returncode != 0 and result.get("check") != "failed":
        result["error"] = (proc.stderr or proc.stdout)[-600:]
        print(" ".join(cmd), "\n", result["error"], flush=True)
    result["wall_s"] = round(time.time() - t0, 1)
    return result


def record(workload: str, sizes: str, res: dict, peer: str = "", peer_ms: float | None = None,
           work: float | None = None, unit: str = "") -> None:
    ms = res.get("time_ms") or float("nan")
    row = {"workload": workload, "variant": ",".join(f"{k}={v}" for k, v in res.get("variant", {}).items()),
           "sizes": sizes, "check": res.get("check"), "max_rel_err": res.get("max_rel_err"),
           "phobos_ms": round(ms, 4) if ms == ms else None, "peer": peer,
           "peer_ms": round(peer_ms, 4) if peer_ms else None}
    if peer_ms and ms == ms and ms > 0:
        row["ratio"] = round(peer_ms / ms, 3)  # >1: Phobos faster
    if work and ms == ms and ms > 0:
        row["phobos_rate"] = f"{work / ms / 1e9:.1f} {unit}"
        if peer_ms:
            row["peer_rate"] = f"{work / peer_ms / 1e9:.1f} {unit}"
    rows.append(row)
    print(json.dumps(row), flush=True)


def best(example, dims, variants, **kw):
    results = [phobos(example, dims, v, **kw) for v in variants]
    # Every variant's time goes to the log, and a variant that fails its
    # check (or does not run) is a failed row, not dropped: the best of the
    # rest must not hide it.
    for v, r in zip(variants, results):
        print(f"  {example} {v}: check {r.get('check')} time {r.get('time_ms')} ms", flush=True)
        if r.get("check") != "ok":
            r.setdefault("variant", v)
            record(f"{example} variant (check failed)",
                   "x".join(str(x) for x in dims.values()), r)
    ok = [r for r in results if r.get("check") == "ok" and r.get("time_ms")]
    if not ok:
        return results[0]
    return min(ok, key=lambda r: r["time_ms"])


# ---------------------------------------------------------------- correctness sweep
small = [
    ("saxpy_fp32.ph", {"N": 1000}, {"BLOCK": 1024}),
    ("saxpy_fp32.ph", {"N": 100003}, {"BLOCK": 16}),
    ("vector_add.ph", {"N": 1000003}, None),
    ("sgemm_fp32.ph", {"M": 100, "N": 70, "K": 33}, None),
    ("sgemm_fp32.ph", {"M": 1000, "N": 999, "K": 257}, {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32}),
    ("sgemm_fp32.ph", {"M": 1000, "N": 999, "K": 257}, {"TILE_M": 128, "TILE_N": 64, "TILE_K": 32, "STAGES": 1}),
    ("gemm_f32_tc.ph", {"M": 333, "N": 200, "K": 77}, None),
    ("gemm_f32_tc.ph", {"M": 333, "N": 200, "K": 77}, {"TILE_M": 64, "TILE_N": 256, "TILE_K": 16}),
    ("gemm_f32_tc.ph", {"M": 333, "N": 200, "K": 77}, {"TILE_M": 256, "TILE_N": 128, "TILE_K": 64}),
    ("gemm_f16_tc.ph", {"M": 333, "N": 200, "K": 77}, None),
    ("gemm_f16_tc.ph", {"M": 333, "N": 200, "K": 77}, {"TILE_M": 64, "TILE_N": 256, "TILE_K": 64}),
    ("gemm_bf16_tc.ph", {"M": 333, "N": 200, "K": 72}, None),
    ("gemm_bf16_tc.ph", {"M": 333, "N": 200, "K": 77}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}),
    # Rows of an odd length: the accumulator's 16-byte stores (each quad's
    # transposed registers) fall back to element stores at the ragged edge.
    ("gemm_f16_tc.ph", {"M": 333, "N": 203, "K": 77}, None),
    ("gemm_bf16_tc.ph", {"M": 130, "N": 1001, "K": 64}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}),
    # 192-row tiles (three warpgroups, @aligned N and K to 8) at ragged M,
    # N and K edges.
    ("gemm_f16_tc.ph", {"M": 333, "N": 200, "K": 72}, {"TILE_M": 192, "TILE_N": 256, "TILE_K": 64}),
    ("gemm_bf16_tc.ph", {"M": 4100, "N": 264, "K": 1000}, {"TILE_M": 192, "TILE_N": 128, "TILE_K": 32}),
    # The fused epilogue (bias, GELU, residual), ordered store by store
    # after the conversion (EpilogueOrder.h), at ragged edges.
    ("gemm_gelu_f16.ph", {"M": 333, "N": 203, "K": 77}, None),
    ("gemm_gelu_f16.ph", {"M": 333, "N": 520, "K": 77}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}),
    ("softmax.ph", {"M": 37, "N": 1000}, None),
    ("softmax.ph", {"M": 37, "N": 5000}, {"BM": 16, "BN": 256}),
    ("layernorm.ph", {"M": 37, "N": 1000}, None),
    ("layernorm.ph", {"M": 37, "N": 3000}, {"BM": 16, "BN": 256}),
    ("flash_attention_fp32.ph", {"BH": 3, "Nq": 100, "Nk": 77}, None),
    ("flash_attention_fp32.ph", {"BH": 3, "Nq": 100, "Nk": 77}, {"D": 128, "BR": 32, "BC": 64}),
    ("flash_attention_tf32.ph", {"BH": 3, "Nq": 100, "Nk": 77}, None),
    ("flash_attention_tf32.ph", {"BH": 3, "Nq": 100, "Nk": 77}, {"D": 128, "BR": 64, "BC": 32}),
    ("flash_attention_fp16.ph", {"BH": 3, "Nq": 100, "Nk": 77}, None),
    ("flash_attention_fp16.ph", {"BH": 3, "Nq": 100, "Nk": 77}, {"D": 128, "BR": 128, "BC": 128}),
    ("kda_chunk.ph", {"BH": 3, "T": 130}, None),
    ("kda_chunk.ph", {"BH": 3, "T": 130}, {"C": 32}),
    ("cluster_matmul.ph", {"M": 256, "N": 128, "K": 64}, None),
    ("cluster_matmul.ph", {"M": 512, "N": 512, "K": 64}, {"TILE_M": 256, "TILE_N": 128, "TILE_K": 32}),
    ("cluster_flash_attention.ph", {"Nq": 300, "Nk": 257}, None),
    ("cluster_flash_attention.ph", {"Nq": 300, "Nk": 257}, {"BR": 128, "BC": 32}),
    ("outer_update.ph", {"M": 77, "N": 150}, None),
    ("outer_update.ph", {"M": 130, "N": 45}, {"BM": 128, "BN": 32}),
    ("outer_update.ph", {"M": 1000, "N": 999}, {"BM": 64, "BN": 128}),
    # Variants whose unrolled FMA dots spill, so that the drivers compile
    # them again with rolled K loops (kSpillingFmaKUnroll).
    ("sgemm_fp32.ph", {"M": 1000, "N": 999, "K": 257},
     {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32, "STAGES": 3, "THREADS": 128}),
    ("flash_attention_fp32.ph", {"BH": 3, "Nq": 300, "Nk": 257}, {"D": 64, "BR": 64, "BC": 128}),
    ("flash_attention_fp32.ph", {"BH": 3, "Nq": 300, "Nk": 257}, {"D": 128, "BR": 128, "BC": 128}),
    ("kda_chunk.ph", {"BH": 3, "T": 130}, {"C": 64}),
    ("cluster_flash_attention.ph", {"Nq": 300, "Nk": 257}, {"BR": 32, "BC": 128}),
    # Spilled until [R, 1] tiles kept one register a row and shared-memory
    # pointers became 32-bit (twenty-first session); f32 attention D 128 BR
    # 128 BC 128 above needs the tightest relief (kTightFmaKUnroll) as well.
    ("cluster_flash_attention.ph", {"Nq": 300, "Nk": 257}, {"BR": 128, "BC": 128}),
    # Variants that spill with their dots in flight, so that the drivers
    # compile them again with every dot synchronous (SpillRelief).
    ("flash_attention_fp16.ph", {"BH": 3, "Nq": 300, "Nk": 257}, {"D": 128, "BR": 128, "BC": 128}),
    ("flash_attention_tf32.ph", {"BH": 3, "Nq": 300, "Nk": 257}, {"D": 128, "BR": 128, "BC": 64}),
    ("gemm_f32_tc.ph", {"M": 333, "N": 520, "K": 77}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 32}),
    # Variants that spill with their loops' operands staged through
    # registers, so that the drivers compile them again with cp.async
    # staging (tile-async-staging).
    ("flash_attention_fp32.ph", {"BH": 3, "Nq": 300, "Nk": 257}, {"D": 128, "BR": 128, "BC": 64}),
    ("sgemm_fp32.ph", {"M": 333, "N": 520, "K": 77},
     {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32, "STAGES": 1, "THREADS": 128}),
    ("gemm_f32_tc.ph", {"M": 1000, "N": 999, "K": 256}, {"TILE_M": 256, "TILE_N": 128, "TILE_K": 64}),
]
for example, dims, variant in (small if SWEEP else []):
    res = phobos(example, dims, variant, bench=False)
    record(example.removesuffix(".ph"), "x".join(f"{k}{v}" for k, v in dims.items()), res)

# ---------------------------------------------------------------- GPU = interpreter
# Interpreter op tests whose printed results must be identical on the GPU:
# the cast rule (saturation, NaN to 0, on scalars and tiles alike) and
# element-wise ops whose two operands both broadcast.
same_as_interpreter = [
    ("test/Interpreter/ops/casts.ph", ["--scalar=z=0", "--scalar=big=4294967297"]),
    ("test/Interpreter/ops/broadcast-two-sided.ph", ["--init=X=iota"]),
    ("test/Interpreter/ops/math.ph", ["--init=X=iota", "--scalar=two=2"]),
    ("test/Interpreter/ops/exp2.ph", ["--init=X=iota", "--scalar=half=0.5"]),
]
for path, args in (same_as_interpreter if SWEEP else []):
    outputs = []
    for mode in (["--interpret"], []):
        cmd = [os.path.join(BIN, "phobos-run"), os.path.join(ROOT, path), "--print"] + mode + args
        proc = subprocess.run(cmd, capture_output=True, text=True)
        # The first line names the engine; the tensors follow.
        # The sign of a NaN means nothing (the host's log(-1) is -nan, the GPU's nan).
        lines = [line.replace("-nan", "nan") for line in proc.stdout.splitlines()[1:]]
        outputs.append((proc.returncode, lines, proc.stderr[-400:]))
    (rc_i, out_i, err_i), (rc_g, out_g, err_g) = outputs
    same = rc_i == 0 and rc_g == 0 and out_i == out_g
    if not same:
        print(path, "interpreter:", out_i, err_i, "\nGPU:", out_g, err_g, flush=True)
    rows.append({"workload": "GPU = interpreter: " + os.path.basename(path), "variant": "",
                 "sizes": "", "check": "ok" if same else "failed", "max_rel_err": 0.0 if same else None})
    print(json.dumps(rows[-1]), flush=True)

# ---------------------------------------------------------------- performance vs peers
# Copy bandwidth, the ceiling of memory-bound kernels.
n = 1 << 28
xs = torch.randn(n, device=DEV)
ys = torch.empty_like(xs)
copy_ms = median_ms(lambda: ys.copy_(xs))
copy_tbs = 2 * n * 4 / copy_ms / 1e9
print(json.dumps({"copy_TB/s": round(copy_tbs, 3)}), flush=True)

def peer_check(name: str, out: torch.Tensor | None, ref: torch.Tensor, rtol: float) -> None:
    """A peer that computes something else would make its ratio meaningless."""
    if out is None:
        print(f"{name}: no configuration ran", flush=True)
        return
    err = ((out.double() - ref.double()).abs().max() / ref.double().abs().max()).item()
    print(json.dumps({"peer": name, "max_err_rel_to_max": err, "ok": err < rtol}), flush=True)


# saxpy, N = 2^28: 3 streams of 4 bytes.
if wanted("saxpy"):
    saxpy_variants = [{"BLOCK": b} for b in (1024, 2048, 4096, 8192)]
    res = best("saxpy_fp32.ph", {"N": n}, saxpy_variants)
    ya = torch.randn(n, device=DEV)
    oa = torch.empty_like(xs)
    torch_ms = median_ms(lambda: torch.add(ya, xs, alpha=2.0, out=oa))
    record("saxpy f32 (vs torch.add)", "N=2^28", res, "torch.add", torch_ms, 3 * n * 4, "TB/s")
    if res.get("time_ms"):
        rows[-1]["vs_copy_bandwidth"] = round(3 * n * 4 / res["time_ms"] / 1e9 / copy_tbs, 3)
    del ya, oa
del xs, ys
torch.cuda.empty_cache()

# SGEMM, exact f32 (cuBLAS without TF32).
torch.backends.cuda.matmul.allow_tf32 = False
gemm_sizes = [4096] if QUICK else [4096, 8192]
for size in gemm_sizes if wanted("sgemm") else []:
    a = torch.randn(size, size, device=DEV)
    b = torch.randn(size, size, device=DEV)
    c = torch.randn(size, size, device=DEV)
    # The peer does the same work as the example, C = A B + 0.5 C (cuBLAS
    # through addmm, C read); until 2026-12-02 it was torch.matmul, which
    # reads no C (2 % faster at 4096^3). A BLAS-style `if beta == 0` in the
    # example, to compare with matmul at beta 0, made its best variant 6 %
    # slower (docs/benchmarks-log.md, fifteenth session).
    peer = median_ms(lambda: torch.addmm(c, a, b, beta=0.5), reps=10)
    # STAGES 3: cp.async two K steps ahead; 1: not pipelined (measured
    # 2026-12-01: each wins for some tiles). THREADS 128: 128 accumulators
    # a thread; 128 x 128 x 8 of them the fastest (2026-12-02, fourteenth
    # session).
    variants = [{"TILE_M": 128, "TILE_N": 128, "TILE_K": 16, "STAGES": 3, "THREADS": 128},
                {"TILE_M": 64, "TILE_N": 128, "TILE_K": 16, "STAGES": 1, "THREADS": 128},
                {"TILE_M": 128, "TILE_N": 128, "TILE_K": 8, "STAGES": 3, "THREADS": 128},
                {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32, "STAGES": 3},
                {"TILE_M": 128, "TILE_N": 128, "TILE_K": 16, "STAGES": 3},
                {"TILE_M": 128, "TILE_N": 128, "TILE_K": 8, "STAGES": 3},
                {"TILE_M": 128, "TILE_N": 64, "TILE_K": 16, "STAGES": 1},
                {"TILE_M": 128, "TILE_N": 64, "TILE_K": 32, "STAGES": 1}]
    res = best("sgemm_fp32.ph", {"M": size, "N": size, "K": size}, variants, samples=1024,
               scalars={"alpha": 1.0, "beta": 0.5})
    record("sgemm f32 (vs cuBLAS)", f"{size}^3", res, "cuBLAS sgemm (addmm)", peer, 2 * size ** 3, "TFLOP/s")
    del a, b, c

# GEMM with f32 inputs on TF32 tensor cores.
if wanted("tf32"):
    torch.backends.cuda.matmul.allow_tf32 = True
    a = torch.randn(4096, 4096, device=DEV)
    b = torch.randn(4096, 4096, device=DEV)
    peer = median_ms(lambda: torch.matmul(a, b), reps=10)
    tri_ms, tri_cfg, tri_out = triton_peers.matmul(a, b, lambda f: median_ms(f, reps=10))
    peer_check("triton tf32 matmul", tri_out, torch.matmul(a, b), 1e-2)
    variants = [{"TILE_M": 128, "TILE_N": 128, "TILE_K": 32}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 32},
                {"TILE_M": 128, "TILE_N": 128, "TILE_K": 64}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64},
                {"TILE_M": 256, "TILE_N": 128, "TILE_K": 32}, {"TILE_M": 256, "TILE_N": 128, "TILE_K": 64}]
    # beta = 0, as torch.matmul computes (the example then does not read C).
    res = best("gemm_f32_tc.ph", {"M": 4096, "N": 4096, "K": 4096}, variants, samples=1024,
               scalars={"alpha": 1.0, "beta": 0.0})
    record("gemm f32 on tf32 tensor cores (vs cuBLAS)", "4096^3", res, "cuBLAS tf32", peer, 2 * 4096 ** 3, "TFLOP/s")
    record("gemm f32 on tf32 tensor cores (vs Triton)", "4096^3", res, f"triton {tri_cfg}", tri_ms,
           2 * 4096 ** 3, "TFLOP/s")
    torch.backends.cuda.matmul.allow_tf32 = False
    del a, b, tri_out

# HGEMM f16.
if wanted("hgemm"):
    a = torch.randn(4096, 4096, device=DEV, dtype=torch.float16)
    b = torch.randn(4096, 4096, device=DEV, dtype=torch.float16)
    peer = median_ms(lambda: torch.matmul(a, b), reps=10)
    tri_ms, tri_cfg, tri_out = triton_peers.matmul(a, b, lambda f: median_ms(f, reps=10))
    peer_check("triton f16 matmul", tri_out, torch.matmul(a, b), 1e-2)
    variants = [{"TILE_M": 128, "TILE_N": 128, "TILE_K": 32}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 32},
                {"TILE_M": 64, "TILE_N": 128, "TILE_K": 64}, {"TILE_M": 128, "TILE_N": 128, "TILE_K": 64},
                {"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}]
    res = best("gemm_f16_tc.ph", {"M": 4096, "N": 4096, "K": 4096}, variants, samples=1024,
               scalars={"alpha": 1.0, "beta": 0.0})
    record("hgemm f16 (vs cuBLAS)", "4096^3", res, "cuBLAS hgemm", peer, 2 * 4096 ** 3, "TFLOP/s")
    record("hgemm f16 (vs Triton)", "4096^3", res, f"triton {tri_cfg}", tri_ms, 2 * 4096 ** 3, "TFLOP/s")
    del a, b, tri_out
    a = torch.randn(8192, 8192, device=DEV, dtype=torch.float16)
    b = torch.randn(8192, 8192, device=DEV, dtype=torch.float16)
    peer = median_ms(lambda: torch.matmul(a, b), reps=10)
    res = best("gemm_f16_tc.ph", {"M": 8192, "N": 8192, "K": 8192},
               [{"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 32}],
               samples=1024, scalars={"alpha": 1.0, "beta": 0.0})
    record("hgemm f16 (vs cuBLAS)", "8192^3", res, "cuBLAS hgemm", peer, 2 * 8192 ** 3, "TFLOP/s")
    del a, b

# GEMM bf16 (the HGEMM example on bf16).
if wanted("bgemm"):
    for size in (4096, 8192):
        a = torch.randn(size, size, device=DEV, dtype=torch.bfloat16)
        b = torch.randn(size, size, device=DEV, dtype=torch.bfloat16)
        peer = median_ms(lambda: torch.matmul(a, b), reps=10)
        tri_ms, tri_cfg, tri_out = triton_peers.matmul(a, b, lambda f: median_ms(f, reps=10))
        peer_check("triton bf16 matmul", tri_out, torch.matmul(a, b), 2e-2)
        res = best("gemm_bf16_tc.ph", {"M": size, "N": size, "K": size},
                   [{"TILE_M": 128, "TILE_N": 256, "TILE_K": 64}, {"TILE_M": 128, "TILE_N": 256, "TILE_K": 32}],
                   samples=1024, scalars={"alpha": 1.0, "beta": 0.0})
        record("gemm bf16 (vs cuBLAS)", f"{size}^3", res, "cuBLAS bf16", peer, 2 * size ** 3, "TFLOP/s")
        record("gemm bf16 (vs Triton)", f"{size}^3", res, f"triton {tri_cfg}", tri_ms, 2 * size ** 3,
               "TFLOP/s")
        del a, b, tri_out

# The GEMM shapes issue 45 names (f16 and bf16, beta 0, against cuBLAS
# through torch.matmul): an LLM's projections (4096 x 14336 x 4096 and
# 8192 x 4096 x 14336), a short K on a large grid (16384^2 x 1024), a
# skinny M and two ragged shapes. The best of the example's 128-row tiles
# and its 192 x 256 one (the 64-row ones were slower at every shape:
# docs/benchmarks-log.md).
GEMM_SHAPES = [(4096, 14336, 4096), (8192, 4096, 14336), (16384, 16384, 1024),
               (128, 8192, 8192), (1000, 3000, 2000), (4100, 4104, 1000)]
for dtype, example, label, word in ((torch.float16, "gemm_f16_tc.ph", "f16", "hshapes"),
                                    (torch.bfloat16, "gemm_bf16_tc.ph", "bf16", "bshapes")):
    for m, n_, k in (GEMM_SHAPES[:2] if QUICK else GEMM_SHAPES) if wanted(word) else []:
        a = torch.randn(m, k, device=DEV, dtype=dtype)
        b = torch.randn(k, n_, device=DEV, dtype=dtype)
        peer = median_ms(lambda: torch.matmul(a, b), reps=10)
        variants = [{"TILE_M": 128, "TILE_N": 256, "TILE_K": 64},
                    {"TILE_M": 128, "TILE_N": 192, "TILE_K": 64},
                    {"TILE_M": 128, "TILE_N": 128, "TILE_K": 64},
                    {"TILE_M": 192, "TILE_N": 256, "TILE_K": 64}]
        res = best(example, {"M": m, "N": n_, "K": k}, variants, samples=1024,
                   scalars={"alpha": 1.0, "beta": 0.0})
        record(f"gemm shapes {label} (vs cuBLAS)", f"{m}x{n_}x{k}", res, f"cuBLAS {label}",
               peer, 2 * m * n_ * k, "TFLOP/s")
        del a, b

# A GEMM with its epilogue fused (examples/gemm_gelu_f16.ph: C = gelu(A @ B + bias) + R, f16,
# GELU's tanh form), as a transformer's feed-forward projection runs it, against cuBLASLt's
# GELU_BIAS epilogue (torch._addmm_activation, the same tanh GELU) plus torch's residual add.
GELU_SHAPES = [(4096, 4096, 4096), (8192, 14336, 4096), (4100, 4104, 1000)]
for m, n_, k in (GELU_SHAPES[:1] if QUICK else GELU_SHAPES) if wanted("gelu") else []:
    a = torch.randn(m, k, device=DEV, dtype=torch.float16)
    b = torch.randn(k, n_, device=DEV, dtype=torch.float16)
    bias = torch.randn(n_, device=DEV, dtype=torch.float16)
    r = torch.randn(m, n_, device=DEV, dtype=torch.float16)
    peer = median_ms(lambda: torch._addmm_activation(bias, a, b, use_gelu=True).add_(r), reps=10)
    variants = [{"TILE_M": 128, "TILE_N": 256, "TILE_K": 64},
                {"TILE_M": 128, "TILE_N": 192, "TILE_K": 64},
                {"TILE_M": 128, "TILE_N": 128, "TILE_K": 64}]
    res = best("gemm_gelu_f16.ph", {"M": m, "N": n_, "K": k}, variants, samples=1024,
               scalars={"alpha": 1.0})
    record("gemm+bias+gelu+residual f16 (vs cuBLASLt + add)", f"{m}x{n_}x{k}", res,
           "cuBLASLt GELU_BIAS + add", peer, 2 * m * n_ * k, "TFLOP/s")
    del a, b, bias, r


@triton.jit
def softmax_kernel(out, inp, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    v = tl.load(inp + row * n_cols + offs, mask=m, other=-float("inf"))
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(out + row * n_cols + offs, e / tl.sum(e, axis=0), mask=m)


# Row softmax f32, 32768 x 4096.
if wanted("softmax"):
    x = torch.randn(32768, 4096, device=DEV)
    peer = median_ms(lambda: torch.softmax(x, dim=-1))
    y = torch.empty_like(x)
    triton_ms = median_ms(lambda: softmax_kernel[(32768,)](y, x, 4096, BLOCK=4096, num_warps=8))
    variants = [{"BM": 1, "BN": 4096}, {"BM": 4, "BN": 1024}, {"BM": 1, "BN": 1024}, {"BM": 16, "BN": 256}]
    res = best("softmax.ph", {"M": 32768, "N": 4096}, variants, samples=2048)
    record("softmax f32 (vs torch)", "32768x4096", res, "torch.softmax", peer, 2 * x.numel() * 4, "TB/s")
    record("softmax f32 (vs Triton)", "32768x4096", res, "triton softmax", triton_ms, 2 * x.numel() * 4, "TB/s")
    del x, y

# Layer norm f16, 4096 x 8192.
if wanted("layernorm"):
    x = torch.randn(4096, 8192, device=DEV, dtype=torch.float16)
    w = torch.randn(8192, device=DEV, dtype=torch.float16)
    bb = torch.randn(8192, device=DEV, dtype=torch.float16)
    peer = median_ms(lambda: torch.nn.functional.layer_norm(x, (8192,), w, bb, 1e-5))
    tri_ms, tri_cfg, tri_out = triton_peers.layernorm(x, w, bb, 1e-5, median_ms)
    peer_check("triton layernorm", tri_out, torch.nn.functional.layer_norm(x, (8192,), w, bb, 1e-5), 1e-2)
    variants = [{"BM": 1, "BN": 1024}, {"BM": 4, "BN": 1024}, {"BM": 1, "BN": 4096}]
    res = best("layernorm.ph", {"M": 4096, "N": 8192}, variants, samples=2048, scalars={"eps": 1e-5})
    record("layernorm f16 (vs torch)", "4096x8192", res, "F.layer_norm", peer, 2 * x.numel() * 2, "TB/s")
    record("layernorm f16 (vs Triton)", "4096x8192", res, f"triton {tri_cfg}", tri_ms, 2 * x.numel() * 2, "TB/s")
    del x, w, bb, tri_out

# Attention forward: B4 H32 N4096 D64 (BH = 128).
for dtype, example in ((torch.float32, "flash_attention_fp32.ph"), (torch.float16, "flash_attention_fp16.ph")):
    if not wanted("attention"):
        break
    q = torch.randn(4, 32, 4096, 64, device=DEV, dtype=dtype)
    k = torch.randn_like(q)
    v = torch.randn_like(q)
    peer = median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v), reps=10)
    tri_ms, tri_cfg, tri_out = triton_peers.attention(q, k, v, 0.125, lambda f: median_ms(f, reps=10))
    peer_check(f"triton attention {dtype}", tri_out,
               torch.nn.functional.scaled_dot_product_attention(q, k, v), 2e-2)
    variants = [{"D": 64, "BR": 64, "BC": 64}, {"D": 64, "BR": 128, "BC": 64}, {"D": 64, "BR": 64, "BC": 32}]
    if dtype == torch.float16:
        variants.append({"D": 64, "BR": 128, "BC": 128})
    res = best(example, {"BH": 128, "Nq": 4096, "Nk": 4096}, variants, samples=512,
               scalars={"scale": 0.125})
    flops = 4 * 128 * 4096 * 4096 * 64
    name = "attention fwd f32" if dtype == torch.float32 else "attention fwd f16"
    record(f"{name} (vs torch SDPA)", "B4H32N4096D64", res, "torch SDPA", peer, flops, "TFLOP/s")
    record(f"{name} (vs Triton)", "B4H32N4096D64", res, f"triton {tri_cfg}", tri_ms, flops, "TFLOP/s")
    del q, k, v, tri_out

# Attention forward f16 with D 128: B4 H32 N4096 D128 (issue 9's second
# attention row).
if wanted("attention"):
    q = torch.randn(4, 32, 4096, 128, device=DEV, dtype=torch.float16)
    k = torch.randn_like(q)
    v = torch.randn_like(q)
    scale = 128 ** -0.5
    peer = median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale), reps=10)
    tri_ms, tri_cfg, tri_out = triton_peers.attention(q, k, v, scale, lambda f: median_ms(f, reps=10))
    peer_check("triton attention f16 D128", tri_out,
               torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=scale), 2e-2)
    variants = [{"D": 128, "BR": 128, "BC": 128}, {"D": 128, "BR": 128, "BC": 64}, {"D": 128, "BR": 128, "BC": 32},
                {"D": 128, "BR": 64, "BC": 64}]
    res = best("flash_attention_fp16.ph", {"BH": 128, "Nq": 4096, "Nk": 4096}, variants, samples=512,
               scalars={"scale": scale})
    flops = 4 * 128 * 4096 * 4096 * 128
    record("attention fwd f16 D128 (vs torch SDPA)", "B4H32N4096D128", res, "torch SDPA", peer, flops, "TFLOP/s")
    record("attention fwd f16 D128 (vs Triton)", "B4H32N4096D128", res, f"triton {tri_cfg}", tri_ms, flops,
           "TFLOP/s")
    del q, k, v, tri_out

# Attention forward on tf32 tensor cores, the seed's flash job: one head,
# N 16384, D 64, f32 inputs; the peers are SDPA on f32 with TF32 allowed and
# Triton's tutorial kernel with its dots on tf32.
if wanted("tf32attention") or wanted("attention"):
    torch.backends.cuda.matmul.allow_tf32 = True
    q = torch.randn(1, 1, 16384, 64, device=DEV)
    k = torch.randn_like(q)
    v = torch.randn_like(q)
    peer = median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v), reps=10)
    tri_ms, tri_cfg, tri_out = triton_peers.attention(q, k, v, 0.125, lambda f: median_ms(f, reps=10),
                                                      tf32=True)
    peer_check("triton attention tf32", tri_out,
               torch.nn.functional.scaled_dot_product_attention(q, k, v), 2e-2)
    variants = [{"D": 64, "BR": 128, "BC": 64}, {"D": 64, "BR": 128, "BC": 128}, {"D": 64, "BR": 64, "BC": 64},
                {"D": 64, "BR": 128, "BC": 32}]
    res = best("flash_attention_tf32.ph", {"BH": 1, "Nq": 16384, "Nk": 16384}, variants, samples=512,
               scalars={"scale": 0.125})
    flops = 4 * 16384 * 16384 * 64
    record("attention fwd tf32 (vs torch SDPA)", "H1N16384D64", res, "torch SDPA tf32", peer, flops, "TFLOP/s")
    record("attention fwd tf32 (vs Triton)", "H1N16384D64", res, f"triton {tri_cfg}", tri_ms, flops, "TFLOP/s")
    torch.backends.cuda.matmul.allow_tf32 = False
    del q, k, v, tri_out

# Chunkwise gated linear attention (no peer in torch; timed for the record).
# Log-gates are <= 0 (decay); small ones keep the 4096-step state finite.
if wanted("gla"):
    res = best("kda_chunk.ph", {"BH": 128, "T": 4096}, [{"C": 64}, {"C": 32}], samples=256,
               inits={"G": "uniform:-0.05:0"})
    record("gla_chunk f32", "BH128 T4096 D64", res)

# ---------------------------------------------------------------- table
print()
print(f"# Phobos GPU suite, {time.strftime('%Y-%m-%d')}, {torch.cuda.get_device_name()}, "
      f"torch {torch.__version__}, triton {triton.__version__}, copy {copy_tbs:.2f} TB/s")
header = f"{'workload':44} {'variant':34} {'sizes':18} {'check':6} {'max_rel_err':>11} {'phobos_ms':>10} {'peer_ms':>9} {'ratio':>6}"
print(header)
failed = 0
for r in rows:
    err = r.get("max_rel_err")
    err_text = f"{err:.2e}" if isinstance(err, (int, float)) and err == err else "-"
    failed += r.get("check") not in ("ok",)
    print(f"{r['workload'][:44]:44} {r['variant'][:34]:34} {r['sizes'][:18]:18} {str(r['check'])[:6]:6} "
          f"{err_text:>11} {str(r.get('phobos_ms') or '-'):>10} {str(r.get('peer_ms') or '-'):>9} "
          f"{str(r.get('ratio') or '-'):>6}")
out = os.environ.get("OUT")
record_paths = ([os.path.join(out, "suite.json")] if out else []) + ([JSON_OUT] if JSON_OUT else [])
for path in record_paths:
    with open(path, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d"), "device": torch.cuda.get_device_name(),
                   "copy_TBps": copy_tbs, "rows": rows}, f, indent=1)
print(f"{len(rows) - failed} of {len(rows)} checks ok")
sys.exit(1 if failed else 0)
