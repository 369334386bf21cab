#!/usr/bin/env bash
# The GPU side of docs/testing.md, one device command at a time (each at
# most 10 minutes), from a checkout that carries
# build-static/dist/phobos-tools.tar.xz (scripts/build-static.sh):
#   scripts/gpu-robustness.sh difffuzz SECONDS   a chunk of the differential
#       fuzzer on the GPU; state (next seed, counts, failures) stays in
#       build-difffuzz-gpu/, so the next chunk continues, and is copied to
#       $OUT/difffuzz after each chunk.
#   scripts/gpu-robustness.sh sanitize memcheck|racecheck
#       every example under compute-sanitizer (bench/gpu_sanitize.py).
# Exit status: the fuzzer's or the sanitizer's (0: nothing found).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=${PHOBOS_TOOLS_DIR:-/tmp/phobos-tools}
if [ ! -x "$tools/bin/phobos-run" ]; then
  mkdir -p "$tools"
  tar -C "$tools" -xJf "$root/build-static/dist/phobos-tools.tar.xz"
fi
out=${OUT:-$root/build-difffuzz-gpu/out}
mkdir -p "$out"
status=0
case ${1:-} in
  difffuzz)
    state=$root/build-difffuzz-gpu
    python3 "$root/tools/phobos-difffuzz/phobos-difffuzz" --mode gpu \
      --tools "$tools/bin" --seconds "${2:-540}" \
      --state "$state" || status=$?
    mkdir -p "$out/difffuzz"
    cp -r "$state/state.json" "$state/failures" "$out/difffuzz/"
    ;;
  sanitize)
    OUT=$out python3 "$root/bench/gpu_sanitize.py" "$tools/bin" \
      --tool "${2:-memcheck}" || status=$?
    ;;
  *)
    echo "usage: $0 difffuzz SECONDS | sanitize memcheck|racecheck" >&2
    exit 2
    ;;
esac
exit "$status"
