#!/usr/bin/env bash
# Regenerates the dialect reference (docs/dialects/*.md) from the ODS files.
# test/Docs/dialect-docs.test fails until the checked-in copies match.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_BUILD_DIR:-$root/build}
ninja -C "$build_dir" mlir-doc >/dev/null
mkdir -p "$root/docs/dialects"
cp "$build_dir"/docs/Dialects/*.md "$root/docs/dialects/"
echo "updated: $(ls "$root/docs/dialects")"
