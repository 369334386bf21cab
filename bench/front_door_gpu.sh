#!/usr/bin/env bash
# The front door on the GPU machine, in one run: every example launched
# from Python (torch and CuPy) against float64 and phobos-run, the launch
# overhead of a small cached kernel next to torch's and Triton's
# (bench/python_gpu.py), then Triton's tutorials ported to Phobos, each
# checked and timed against Triton's own kernels (PHOBOS_TUTORIAL_QUICK).
# Everything lands in $OUT; the tables are printed last.
# Usage (device): OUT=/some/dir bench/front_door_gpu.sh TARBALL
# TARBALL: bin/phobos-run, bin/phobos-tune, lib/libphobos.so and
# lib/libphobos-python.so of
# scripts/build-static.sh (xz-compressed tar).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:?set OUT to the folder for the results}
tarball=${1:?give the tarball of the static tools and libphobos}
home=$(mktemp -d)
tar -C "$home" -xJf "$tarball"
export PHOBOS_HOME=$home PYTHONUNBUFFERED=1
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export PHOBOS_CACHE_DIR=$home/cache
mkdir -p "$out"
{ date -u +%Y-%m-%dT%H:%MZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } \
  | tee "$out/device.txt"

echo "== examples and launch overhead from Python"
python3 "$root/bench/python_gpu.py" --launches 5000 --json "$out/python_gpu.json" \
  >"$out/python_gpu.log" 2>&1 || echo "python_gpu: FAILED (see python_gpu.log)"
tail -n 60 "$out/python_gpu.log" | sed -n '/^| example/,$p' >"$out/python_gpu_tables.md" || true

echo "== tutorials (quick sweeps)"
export PHOBOS_TUTORIAL_OUT="$out/tutorials" PHOBOS_TUTORIAL_QUICK=1
for t in t01_vector_add t02_fused_softmax t03_matmul t05_layer_norm t06_fused_attention; do
  start=$(date +%s)
  (cd "$root/python/tutorials" && timeout 150 python3 "$t.py") >"$out/$t.log" 2>&1 \
    || echo "$t FAILED" | tee -a "$out/$t.log"
  echo "$t: $(( $(date +%s) - start )) s"
done
python3 "$root/bench/tutorials_table.py" "$out/tutorials" >"$out/tutorials.md" 2>&1 || true
cat "$out/python_gpu_tables.md" "$out/tutorials.md"
