#!/usr/bin/env bash
# The five tutorials' full sweeps on the GPU machine, in one run, and the
# table docs/tutorials.md is made from. Each tutorial checks Phobos against
# torch (and t06 the Triton peer against SDPA) before it times Phobos and
# Triton's kernel in the same process; each writes its JSON and plot to
# $OUT/tutorials. The table of ratios is printed last.
# Usage (device): PHOBOS_HOME=/tmp/t OUT=/some/dir bench/tutorials_gpu.sh [t01 t02 ...]
# (the tools of scripts/build-static.sh unpacked in /tmp/t; PHOBOS_TUTORIAL_QUICK=1
# for the shorter sweeps). Then, here: python3 bench/current_numbers.py update
# --tutorials OUT/tutorials.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:?set OUT to the folder for the results}
: "${PHOBOS_HOME:?set PHOBOS_HOME to the unpacked static tools}"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export PHOBOS_TUTORIAL_OUT="$out/tutorials"
export PHOBOS_CACHE_DIR=${PHOBOS_CACHE_DIR:-/tmp/phobos-cache-tutorials}
mkdir -p "$PHOBOS_TUTORIAL_OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/device.txt"

wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=(t01 t02 t03 t05 t06)
failed=0
for name in "${wanted[@]}"; do
  script=$(ls "$root"/python/tutorials/"$name"_*.py 2>/dev/null | head -1)
  if [ -z "$script" ]; then
    echo "tutorials_gpu: no tutorial $name" >&2
    failed=1
    continue
  fi
  start=$(date +%s)
  (cd "$root/python/tutorials" && python3 "$script" > "$out/$name.log" 2>&1)
  status=$?
  echo "$name: exit $status in $(( $(date +%s) - start )) s"
  [ $status -ne 0 ] && { tail -5 "$out/$name.log"; failed=1; }
done
python3 "$root/bench/tutorials_table.py" "$PHOBOS_TUTORIAL_OUT"
exit $failed
