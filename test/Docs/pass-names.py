"""Checks every pass's CLI name against the rule of docs/architecture.md
("Pass names"): the prefix says which IR the pass works on, and the ODS
record is the CLI name in CamelCase, less a leading `phobos-`.

Usage: python3 pass-names.py SOURCE_ROOT
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# Passes.td (under include/Phobos) -> the prefixes its passes may take and
# the op they must be anchored on (None: any).
RULES: dict[str, list[tuple[str, str | None]]] = {
    "Dialect/Tile/Transforms/Passes.td": [("tile-", "::phobos::tile::KernelOp")],
    "Dialect/Cluster/Transforms/Passes.td": [("phobos-cluster-", "::mlir::ModuleOp")],
    "Conversion/Passes.td": [("convert-tile-to-", None), ("phobos-", None)],
}
PASS = re.compile(r'^def (\w+)\s*:\s*(?:Interface)?Pass<"([^"]+)"(?:,\s*"([^"]+)")?', re.M)


def main() -> int:
    include = Path(sys.argv[1]) / "include" / "Phobos"
    errors = []
    declared = {str(path.relative_to(include)) for path in include.rglob("*.td")
                if PASS.search(path.read_text())}
    for extra in sorted(declared - RULES.keys()):
        errors.append(f"{extra}: declares passes, but the naming rule has no row for it")
    count = 0
    for file, allowed in RULES.items():
        for record, name, anchor in PASS.findall((include / file).read_text()):
            count += 1
            rule = next(((prefix, want) for prefix, want in allowed if name.startswith(prefix)),
                        None)
            if rule is None or (file == "Conversion/Passes.td" and
                                name.startswith("phobos-cluster-")):
                errors.append(f"{file}: '{name}' starts with none of "
                              + ", ".join(prefix for prefix, _ in allowed))
            elif rule[1] is not None and anchor != rule[1]:
                errors.append(f"{file}: '{name}' runs on {anchor or 'any op'}, not {rule[1]}")
            camel = "".join(word.capitalize()
                            for word in name.removeprefix("phobos-").split("-"))
            if record.lower() != camel.lower():
                errors.append(f"{file}: the record of '{name}' is {record}, not {camel}")
    if count == 0:
        errors.append("no passes found: has the Passes.td syntax changed?")
    for error in errors:
        print(error)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
