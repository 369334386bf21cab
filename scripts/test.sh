#!/usr/bin/env bash
# Runs every Phobos test: lit (front end, dialects, passes, examples), the
# GoogleTest unit tests, the Python package's tests (pytest, on the CPU), an
# out-of-tree build against the installed package, the configuration of the
# self-contained tools, a bounded run of the differential fuzzer's generator
# on the interpreter and bounded runs of the front-end and IR fuzzers
# (docs/testing.md).
# Usage: scripts/test.sh   (after scripts/setup.sh)
# PHOBOS_FUZZ_SECONDS (default 60, per libFuzzer target) and
# PHOBOS_DIFFFUZZ_SECONDS (default 60); 0 skips either.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_BUILD_DIR:-$root/build}
fuzz_seconds=${PHOBOS_FUZZ_SECONDS:-60}
difffuzz_seconds=${PHOBOS_DIFFFUZZ_SECONDS:-60}

ninja -C "$build_dir" all mlir-doc
# lit and the unit tests run side by side; the unit tests' output is shown
# after lit's.
ctest_log=$(mktemp)
trap 'rm -f "$ctest_log"' EXIT
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error \
  -j "$(nproc)" >"$ctest_log" 2>&1 &
ctest_pid=$!
echo "== lit"
lit_status=0
/usr/lib/llvm-22/bin/lit -sv -j "$(nproc)" "$build_dir/test" || lit_status=$?
ctest_status=0
wait "$ctest_pid" || ctest_status=$?
echo "== ctest"
cat "$ctest_log"
echo "== pytest"
"$root/scripts/python-venv.sh"
pytest_status=0
PHOBOS_HOME="$build_dir" "$build_dir/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$root/python/tests" || pytest_status=$?
if [ "$lit_status" -ne 0 ] || [ "$ctest_status" -ne 0 ] || [ "$pytest_status" -ne 0 ]; then
  echo "test: lit exited $lit_status, ctest exited $ctest_status, pytest exited $pytest_status" >&2
  exit 1
fi
echo "== install (an out-of-tree *-opt against the installed package)"
"$root/scripts/test-install.sh"
echo "== self-contained tools (configure)"
PHOBOS_STATIC_BUILD_DIR="$build_dir/static-configure" \
  "$root/scripts/build-static.sh" --configure-only
if [ "$difffuzz_seconds" -gt 0 ]; then
  # Random kernels must import, verify, compile to PTX (that ptxas accepts,
  # where it is installed) and run on the interpreter. Seeds continue from
  # the last run in this tree; failures stay in build/difffuzz/failures.
  echo "== difffuzz ($difffuzz_seconds s, interpreter)"
  "$root/tools/phobos-difffuzz/phobos-difffuzz" --mode interpret \
    --tools "$build_dir/bin" --seconds "$difffuzz_seconds" \
    --state "$build_dir/difffuzz" --reduce-budget 60 \
    --jobs "$(nproc)" --cpu-threads 1
fi
if [ "$fuzz_seconds" -gt 0 ]; then
  "$root/scripts/fuzz.sh" "$fuzz_seconds" all
fi
echo "test: all passed"
