#!/usr/bin/env bash
# Builds the front-end fuzzer in an instrumented tree (build-fuzz/) and runs
# it for the given number of seconds over a corpus seeded from examples/ and
# the front-end tests. A crash leaves its input in build-fuzz/artifacts/.
# Usage: scripts/fuzz.sh [seconds]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
fuzz_dir=${PHOBOS_FUZZ_BUILD_DIR:-$root/build-fuzz}
flags="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer"
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

cmake -G Ninja -S "$root" -B "$fuzz_dir" \
  -DCMAKE_BUILD_TYPE=Release -DPHOBOS_ENABLE_FUZZER=ON \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DLLVM_USE_LINKER=lld -DLLVM_ENABLE_ASSERTIONS=ON \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" \
  >/dev/null
ninja -C "$fuzz_dir" phobos-fuzz-frontend

corpus="$fuzz_dir/corpus"
mkdir -p "$corpus" "$fuzz_dir/artifacts"
# Seeds are named after their path: test directories reuse file names.
while IFS= read -r -d '' seed; do
  relative=${seed#"$root"/}
  cp "$seed" "$corpus/${relative//\//_}"
done < <(find "$root/examples" "$root/test/Frontend" -name '*.ph' -print0)
log="$fuzz_dir/fuzz.log"
# The installed LLVM is not built with ASan: its allocators do not unpoison
# what headers compiled with ASan poisoned, so manual poisoning is turned off.
status=0
ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0 \
  "$fuzz_dir/bin/phobos-fuzz-frontend" "$corpus" \
  -dict="$root/tools/phobos-fuzz/phobos.dict" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=8192 \
  -artifact_prefix="$fuzz_dir/artifacts/" -print_final_stats=1 >"$log" 2>&1 ||
  status=$?
grep -E "^(#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|Test unit written)" "$log" || true
if [ "$status" -ne 0 ]; then
  tail -n 40 "$log"
  echo "fuzz: the fuzzer found a crash (exit $status); see $fuzz_dir/artifacts/"
  exit 1
fi
echo "fuzz: no crash in $seconds s"
