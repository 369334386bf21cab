#!/usr/bin/env bash
# Builds the libFuzzer targets in an instrumented tree (build-fuzz/: ASan and
# coverage) and runs them for the given number of seconds each:
#   frontend  phobos-fuzz-frontend: bytes through the lexer, parser, Sema,
#             MLIRGen and the verifier; seeded from examples/ and the
#             front-end tests.
#   ir        phobos-fuzz-ir: IR-level mutations (dropped ops, changed
#             types and shapes, swapped operands, other pass orders) through
#             phobos-opt's passes and the --phobos-to-nvvm pipeline; seeded
#             from the examples and the pass and conversion tests.
# A crash leaves its input in build-fuzz/artifacts/<target>/; replay it with
# build-fuzz/bin/phobos-fuzz-<target> FILE, and make it a regression test.
# Usage: scripts/fuzz.sh [seconds] [frontend|ir|all]   (default: 60 all)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
which=${2:-all}
fuzz_dir=${PHOBOS_FUZZ_BUILD_DIR:-$root/build-fuzz}
flags="-fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer"
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
case $which in
  frontend) targets=(frontend) ;;
  ir) targets=(ir) ;;
  all) targets=(frontend ir) ;;
  *) echo "fuzz: unknown target '$which' (frontend, ir or all)" >&2; exit 2 ;;
esac

cmake -G Ninja -S "$root" -B "$fuzz_dir" \
  -DCMAKE_BUILD_TYPE=Release -DPHOBOS_ENABLE_FUZZER=ON \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DLLVM_USE_LINKER=lld -DLLVM_ENABLE_ASSERTIONS=ON \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" \
  >/dev/null
ninja -C "$fuzz_dir" "${targets[@]/#/phobos-fuzz-}"

# Seeds are named after their path: test directories reuse file names.
seed_frontend() {
  local corpus=$1 seed relative
  while IFS= read -r -d '' seed; do
    relative=${seed#"$root"/}
    cp "$seed" "$corpus/${relative//\//_}"
  done < <(find "$root/examples" "$root/test/Frontend" -name '*.ph' -print0)
}
# IR seeds: the examples as source (the target imports them), and every case
# of the pass and conversion tests headed by the pipeline its RUN line runs.
seed_ir() {
  local corpus=$1 seed relative pipeline
  for seed in "$root"/examples/*.ph; do
    relative=${seed#"$root"/}
    { echo "// pipeline: phobos-to-nvvm"; cat "$seed"; } >"$corpus/${relative//\//_}"
  done
  while IFS= read -r -d '' seed; do
    relative=${seed#"$root"/}
    case $seed in
      */Transforms/tile-*) pipeline="builtin.module(phobos.kernel($(basename "$seed" .mlir)))" ;;
      */convert-tile-to-gpu/*) pipeline="builtin.module(convert-tile-to-gpu)" ;;
      *) pipeline="phobos-to-nvvm" ;;
    esac
    awk -v out="$corpus/${relative//\//_}" -v head="// pipeline: $pipeline" '
      BEGIN { n = 0; file = out "." n; print head > file }
      /^\/\/ -----/ { close(file); n++; file = out "." n; print head > file; next }
      { print > file }' "$seed"
  done < <(find "$root/test/Transforms" "$root/test/Conversion" -name '*.mlir' -print0)
}

# The installed LLVM is not built with ASan: its allocators do not unpoison
# what headers compiled with ASan poisoned, so manual poisoning is turned off.
status=0
for target in "${targets[@]}"; do
  corpus="$fuzz_dir/corpus-$target"
  [ "$target" = frontend ] && corpus="$fuzz_dir/corpus"
  artifacts="$fuzz_dir/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  "seed_$target" "$corpus"
  if [ "$target" = frontend ]; then
    options=(-dict="$root/tools/phobos-fuzz/phobos.dict" -timeout=10 -max_len=8192)
  else
    # A pipeline (and ptxas-free PTX) of a kernel within the resource
    # limits takes seconds; 60 s is a hang.
    options=(-timeout=60 -max_len=262144)
  fi
  log="$fuzz_dir/fuzz-$target.log"
  echo "== fuzz $target ($seconds s)"
  target_status=0
  ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0 \
    "$fuzz_dir/bin/phobos-fuzz-$target" "$corpus" "${options[@]}" \
    -max_total_time="$seconds" -rss_limit_mb=4096 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 ||
    target_status=$?
  grep -E "^(#[0-9]+.*(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|Test unit written)" "$log" || true
  if [ "$target_status" -ne 0 ]; then
    tail -n 40 "$log"
    echo "fuzz: phobos-fuzz-$target found a crash (exit $target_status); see $artifacts/"
    status=1
  else
    echo "fuzz: phobos-fuzz-$target: no crash in $seconds s"
  fi
done
exit "$status"
