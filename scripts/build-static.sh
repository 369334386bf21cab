#!/usr/bin/env bash
# Builds phobos-compile and phobos-run with LLVM/MLIR linked statically, for
# the GPU machine (which has CUDA but no LLVM), and packs them, stripped and
# xz-compressed, into build-static/dist/phobos-tools.tar.xz.
# Usage: scripts/build-static.sh [--configure-only]
#   --configure-only: stop after CMake (CI checks that the static LLVM,
#   zlib and zstd archives are found without spending the link time).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_STATIC_BUILD_DIR:-$root/build-static}
export CCACHE_BASEDIR="$root"

cmake -G Ninja -S "$root" -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=Release -DPHOBOS_STATIC_TOOLS=ON \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DLLVM_USE_LINKER=lld -DLLVM_ENABLE_ASSERTIONS=ON >/dev/null
if [ "${1:-}" = "--configure-only" ]; then
  echo "build-static: configured $build_dir"
  exit 0
fi
ninja -C "$build_dir" phobos-compile phobos-run

dist="$build_dir/dist"
rm -rf "$dist" && mkdir -p "$dist/bin"
for tool in phobos-compile phobos-run; do
  cp "$build_dir/bin/$tool" "$dist/bin/"
  /usr/lib/llvm-22/bin/llvm-strip "$dist/bin/$tool"
done
tar -C "$dist" -cJf "$dist/phobos-tools.tar.xz" bin
ls -l "$dist/bin" "$dist/phobos-tools.tar.xz"
if ldd "$dist/bin/phobos-run" | grep -q -i llvm; then
  echo "build-static: phobos-run still links a shared LLVM" >&2
  exit 1
fi
