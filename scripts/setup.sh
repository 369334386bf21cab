#!/usr/bin/env bash
# Installs what Phobos needs on Debian 12 (apt) and builds it into build/.
# Usage: scripts/setup.sh   (as root, or with sudo available)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_BUILD_DIR:-$root/build}

packages=(
  cmake ninja-build ccache git
  clang-22 lld-22 libclang-rt-22-dev
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev libzstd-dev zlib1g-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libssl-dev pkg-config openssl
  python3 python3-dev python3-numpy python3-pytest python3-venv python3-setuptools python3-pip-whl
  python3-matplotlib
  # The visualizer's browser test (test/Tools/phobos-viz/browser.test).
  chromium chromium-driver python3-selenium
  # The cluster's Slurm test (test/Tools/cluster-runtime/slurm.test) starts
  # its own slurmctld and slurmd; the packages' services are not used.
  slurmctld slurmd slurm-client
)

missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Clones at other paths hit the same cache entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
cmake -G Ninja -S "$root" -B "$build_dir" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DLLVM_USE_LINKER=lld -DLLVM_ENABLE_ASSERTIONS=ON >/dev/null
# Two cores and MLIR translation units of ~1 GiB each: one job per core.
ninja -C "$build_dir" -j "$(nproc)" all
"$root/scripts/python-venv.sh"
echo "setup: built into $build_dir"
