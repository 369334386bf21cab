#!/usr/bin/env bash
# Regenerates the dialect and pass references (docs/dialects, docs/passes)
# from the ODS and Passes.td files; test/Docs fails until they match.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${PHOBOS_BUILD_DIR:-$root/build}
ninja -C "$build_dir" mlir-doc >/dev/null
mkdir -p "$root/docs/dialects" "$root/docs/passes"
cp "$build_dir"/docs/Dialects/*.md "$root/docs/dialects/"
cp "$build_dir"/docs/Passes/*.md "$root/docs/passes/"
echo "updated: $(ls "$root/docs/dialects" "$root/docs/passes")"
