#!/usr/bin/env bash
# Runs every Phobos test: lit (front end, dialects, passes, examples), the
# GoogleTest unit tests and a bounded run of the front-end fuzzer.
# Usage: scripts/test.sh   (after scripts/setup.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_BUILD_DIR:-$root/build}
fuzz_seconds=${PHOBOS_FUZZ_SECONDS:-60}

ninja -C "$build_dir" all mlir-doc
echo "== lit"
/usr/lib/llvm-22/bin/lit -sv -j "$(nproc)" "$build_dir/test"
if [ -f "$build_dir/CTestTestfile.cmake" ] && grep -q add_test -r "$build_dir" --include=CTestTestfile.cmake; then
  echo "== ctest"
  ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
fi
if [ "$fuzz_seconds" -gt 0 ]; then
  echo "== fuzz ($fuzz_seconds s)"
  "$root/scripts/fuzz.sh" "$fuzz_seconds"
fi
echo "test: all passed"
