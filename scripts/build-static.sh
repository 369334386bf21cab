#!/usr/bin/env bash
# Builds phobos-compile, phobos-run, phobos-tune, the cluster runtime (phobos-sched,
# phobos-pod, phobos-tensor) and libphobos (the C API the Python package
# loads, and libphobos-python, its launch fast path) with LLVM/MLIR linked statically, and gRPC,
# protobuf, Abseil and OpenSSL from Debian's static archives, for the GPU
# machine (which has CUDA but no LLVM or gRPC), and packs them, stripped and
# xz-compressed, into build-static/dist/phobos-tools.tar.xz. They need only
# the C library (and libcuda, opened at run time).
# Usage: scripts/build-static.sh [--configure-only]
#   --configure-only: stop after CMake (CI checks that the static LLVM,
#   zlib, zstd, gRPC, protobuf, Abseil and OpenSSL archives are found
#   without spending the link time).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_STATIC_BUILD_DIR:-$root/build-static}
export CCACHE_BASEDIR="$root"

# The compilers by a fixed path: CMake wipes its cache (and with it the
# options below) when the path a name resolves to changes between runs,
# e.g. with /usr/lib/llvm-22/bin first on PATH.
cc=clang-22 cxx=clang++-22
if [ -x /usr/bin/clang-22 ] && [ -x /usr/bin/clang++-22 ]; then
  cc=/usr/bin/clang-22 cxx=/usr/bin/clang++-22
fi
cmake -G Ninja -S "$root" -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=Release -DPHOBOS_STATIC_TOOLS=ON \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DLLVM_USE_LINKER=lld -DLLVM_ENABLE_ASSERTIONS=ON >/dev/null
if [ "${1:-}" = "--configure-only" ]; then
  echo "build-static: configured $build_dir"
  exit 0
fi
tools=(phobos-compile phobos-run phobos-tune phobos-sched phobos-pod phobos-tensor)
ninja -C "$build_dir" -j "$(nproc)" "${tools[@]}" phobos phobos-python

dist="$build_dir/dist"
rm -rf "$dist" && mkdir -p "$dist/bin" "$dist/lib"
for tool in "${tools[@]}"; do
  cp "$build_dir/bin/$tool" "$dist/bin/"
  /usr/lib/llvm-22/bin/llvm-strip "$dist/bin/$tool"
done
cp "$build_dir/lib/libphobos.so" "$build_dir/lib/libphobos-python.so" "$dist/lib/"
/usr/lib/llvm-22/bin/llvm-strip --strip-unneeded "$dist/lib/libphobos.so" \
  "$dist/lib/libphobos-python.so"
cp "$root/scripts/cluster-credentials.sh" "$dist/bin/"
tar -C "$dist" -cJf "$dist/phobos-tools.tar.xz" bin lib
ls -l "$dist/bin" "$dist/lib" "$dist/phobos-tools.tar.xz"
for file in "${tools[@]/#/bin/}" lib/libphobos.so; do
  # Only the C library's parts may be shared (the GPU machine lacks z3,
  # LLVM, gRPC and the rest).
  if ldd "$dist/$file" | grep -v -E 'linux-vdso|ld-linux|lib(c|m|dl|rt|pthread)\.so' | grep -q .; then
    echo "build-static: $file still links a shared library it should carry:" >&2
    ldd "$dist/$file" >&2
    exit 1
  fi
done
