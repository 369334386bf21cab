#!/usr/bin/env bash
# The GPU side of docs/testing.md, one device command at a time (each at
# most 10 minutes), from a checkout that carries
# build-static/dist/phobos-tools.tar.xz (scripts/build-static.sh):
#   scripts/gpu-robustness.sh difffuzz SECONDS [JOBS]   a chunk of the
#       differential fuzzer on the GPU, JOBS programs at once (default 8);
#       state (next seed, counts, failures) stays in build-difffuzz-gpu/, so
#       the next chunk continues (carry the folder to the next machine), and
#       is copied to $OUT/difffuzz.tar.gz after each chunk.
#   scripts/gpu-robustness.sh sanitize memcheck|racecheck [JOBS]
#       every example under compute-sanitizer (bench/gpu_sanitize.py), JOBS
#       runs at once (default 4).
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
      --tools "$tools/bin" --seconds "${2:-540}" --jobs "${3:-8}" \
      --cpu-threads 2 --state "$state" || status=$?
    tar -C "$state" -czf "$out/difffuzz.tar.gz" state.json failures
    ;;
  sanitize)
    OUT=$out python3 "$root/bench/gpu_sanitize.py" "$tools/bin" \
      --tool "${2:-memcheck}" --jobs "${3:-4}" || status=$?
    ;;
  *)
    echo "usage: $0 difffuzz SECONDS [JOBS] | sanitize memcheck|racecheck [JOBS]" >&2
    exit 2
    ;;
esac
exit "$status"
