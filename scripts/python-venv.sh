#!/usr/bin/env bash
# Installs the Python package (python/) into a virtual environment in the
# build folder (build/venv), offline: Debian's setuptools, NumPy and pytest
# come from the system site packages.
# Usage: scripts/python-venv.sh   (scripts/setup.sh and scripts/test.sh run it)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_BUILD_DIR:-$root/build}
venv=$build_dir/venv

if [ ! -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
# Build in a copy: setuptools writes build/ and *.egg-info beside the sources.
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
cp -r "$root/python/pyproject.toml" "$root/python/README.md" "$root/python/phobos" "$staging/"
rm -rf "$staging/phobos/__pycache__"
"$venv/bin/python" -m pip install --quiet --no-index --no-build-isolation \
  --disable-pip-version-check --force-reinstall --no-deps "$staging" >/dev/null
echo "python: phobos installed into $venv"
