#!/usr/bin/env bash
# Installs the build into a fresh prefix, builds test/Install/embed-opt (an
# out-of-tree *-opt tool) against the installed Phobos package alone, and
# runs --phobos-to-nvvm through it on an imported example; then builds
# test/Install/capi-c (a C program) against the installed C API and
# libphobos, which compiles and interprets saxpy through it.
# Usage: scripts/test-install.sh   (after scripts/setup.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_BUILD_DIR:-$root/build}
work=${PHOBOS_INSTALL_TEST_DIR:-$build_dir/install-test}
rm -rf "$work/prefix"
mkdir -p "$work"

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/lib/cmake/phobos/PhobosConfig.cmake"
test -f "$work/prefix/include/Phobos/Dialect/Tile/IR/TileOps.h.inc"
test -f "$work/prefix/include/Phobos/Dialect/Tile/IR/TileOps.td"
test -f "$work/prefix/include/phobos-c/Dialects.h"
test -f "$work/prefix/include/phobos-c/Compiler.h"
test -f "$work/prefix/lib/libphobos.so"
test -x "$work/prefix/bin/phobos-compile"

export CCACHE_BASEDIR="$root"
cmake -G Ninja -S "$root/test/Install/embed-opt" -B "$work/embed-opt" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld >/dev/null
ninja -C "$work/embed-opt" >/dev/null

"$build_dir/bin/phobos-translate" --import-phobos "$root/examples/saxpy_fp32.ph" \
  >"$work/saxpy.mlir"
"$work/embed-opt/embed-opt" "$work/saxpy.mlir" --phobos-to-nvvm=chip=sm_90 \
  >"$work/saxpy.nvvm.mlir"
grep -q "gpu.module @phobos_kernels" "$work/saxpy.nvvm.mlir"
grep -q "nvvm.read.ptx.sreg.tid.x" "$work/saxpy.nvvm.mlir"
if grep -q "phobos\.\(load\|store\)" "$work/saxpy.nvvm.mlir"; then
  echo "test-install: phobos ops left after --phobos-to-nvvm" >&2
  exit 1
fi
echo "test-install: embed-opt (built against $work/prefix) lowered saxpy to nvvm"

# A C program against the installed C API alone (no C++, no MLIR headers).
mkdir -p "$work/capi-c"
clang-22 -std=c11 -Wall -Werror -I"$work/prefix/include" \
  "$root/test/Install/capi-c/capi.c" -L"$work/prefix/lib" -lphobos -lm \
  -Wl,-rpath,"$work/prefix/lib" -fuse-ld=lld -o "$work/capi-c/capi"
(cd "$work" && PHOBOS_CACHE_DIR="$work/capi-c/cache" "$work/capi-c/capi" \
  "$root/examples/saxpy_fp32.ph")
