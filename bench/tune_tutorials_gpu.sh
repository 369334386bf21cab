#!/usr/bin/env bash
# Issue 11 on the GPU machine, in one run (about 4 minutes on an H200):
#   1. compile speed: the sgemm example's whole space compiled (PTX and
#      cubin) into a fresh kernel cache, on one thread (per-variant times)
#      and on every core;
#   2. the autotuner: phobos-tune searches the sgemm space (compile, check,
#      time) from a fresh cache, a second phobos-tune answers from the tuning
#      cache, and phobos-run launches the winner without searching;
#   3. Triton's autotune of its tutorial-03 configurations, timed the same way
#      (a fresh Triton cache, the first call);
#   4. the tutorials: each checks against torch and is timed against Triton
#      and torch; t03 searches with ph.autotune at the first launch of each
#      shape, and a second process launches a tuned shape without searching.
# Everything lands in $OUT (JSON, PNG, logs).
# Usage (device): PHOBOS_HOME=/tmp/t OUT=/some/dir bench/tune_tutorials_gpu.sh
# (the tools of scripts/build-static.sh unpacked in /tmp/t).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:?set OUT to the folder for the results}
bin=${PHOBOS_HOME:?set PHOBOS_HOME to the unpacked static tools}/bin
mkdir -p "$out"
# The Python package is pure Python: the checkout's, with the carried tools.
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export PHOBOS_CACHE_DIR=/tmp/phobos-cache-issue11
rm -rf "$PHOBOS_CACHE_DIR"
sgemm=(--dim M=4096 --dim N=4096 --dim K=4096)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"

echo "== 1. compile speed (sgemm space, fresh caches)"
"$bin/phobos-tune" "$root/examples/sgemm_fp32.ph" "${sgemm[@]}" --compile-only --jobs 1 \
  --cache-dir "$out/compile-1" --json "$out/compile-sgemm-1thread.json" --quiet \
  | tee "$out/compile-sgemm-1thread.txt"
"$bin/phobos-tune" "$root/examples/sgemm_fp32.ph" "${sgemm[@]}" --compile-only \
  --cache-dir "$out/compile-all" --json "$out/compile-sgemm-allcores.json" --quiet \
  | tee "$out/compile-sgemm-allcores.txt"
rm -rf "$out/compile-1" "$out/compile-all"

echo "== 2. phobos-tune sgemm (compile, check, time), then from the tuning cache"
start=$(date +%s%N)
"$bin/phobos-tune" "$root/examples/sgemm_fp32.ph" "${sgemm[@]}" --seed 1 \
  --json "$out/tune-sgemm.json" 2>"$out/tune-sgemm.progress" \
  | tee "$out/tune-sgemm.txt"
# The chart needs matplotlib, which the GPU machine may lack: the JSON is
# the record, the PNG a convenience.
python3 -m phobos.plot_tuning "$out/tune-sgemm.json" -o "$out/tune-sgemm.png" || true
end=$(date +%s%N)
echo "phobos-tune sgemm wall: $(( (end - start) / 1000000 )) ms" | tee -a "$out/tune-sgemm.txt"
"$bin/phobos-tune" "$root/examples/sgemm_fp32.ph" "${sgemm[@]}" --quiet | head -3 \
  | tee "$out/tune-sgemm-again.txt"
"$bin/phobos-run" "$root/examples/sgemm_fp32.ph" "${sgemm[@]}" --bench --check 2>&1 \
  | tee "$out/run-sgemm-tuned.txt"
for f in f16_tc f32_tc; do
  "$bin/phobos-tune" "$root/examples/gemm_$f.ph" "${sgemm[@]}" --seed 1 --quiet \
    --json "$out/tune-gemm_$f.json" | tee "$out/tune-gemm_$f.txt" || true
done

echo "== 3. Triton's autotune of its tutorial-03 configurations"
TRITON_CACHE_DIR=$(mktemp -d) python3 - <<'PY' 2>&1 | tee "$out/triton-autotune.txt"
import sys, time, torch
sys.path.insert(0, "python/tutorials")
from _triton_peers import triton_matmul
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
start = time.perf_counter(); triton_matmul(a, b); torch.cuda.synchronize()
print(f"triton autotune, 8 configs, 4096^3 f16, fresh cache: {time.perf_counter() - start:.2f} s")
start = time.perf_counter(); triton_matmul(a, b); torch.cuda.synchronize()
print(f"triton second call: {1e3 * (time.perf_counter() - start):.2f} ms")
PY

echo "== 4. tutorials"
export PHOBOS_TUTORIAL_OUT="$out/tutorials" PHOBOS_TUTORIAL_QUICK=1
cd "$root/python/tutorials"
for t in t01_vector_add t02_fused_softmax t03_matmul t05_layer_norm t06_fused_attention; do
  echo "-- $t"
  start=$(date +%s)
  python3 "$t.py" 2>&1 | tee "$out/$t.log" || echo "$t FAILED" | tee -a "$out/$t.log"
  echo "$t: $(( $(date +%s) - start )) s" | tee -a "$out/$t.log"
done
# A second process: the shapes t03 tuned are launched without a search.
python3 - <<'PY' 2>&1 | tee "$out/t03-second-process.txt"
import torch, t03_matmul as t
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
t.matmul(a, a); torch.cuda.synchronize()
print(f"second process, 4096^3: searches = {t.matmul_kernel.searches}")
PY
python3 "$root/bench/tutorials_table.py" "$out/tutorials" | tee "$out/tutorials.md"
echo "tune_tutorials_gpu: done"
