"""Checks docs/architecture.md's source-tree table against the tree: every
top-level folder under lib/, include/Phobos/, tools/ and python/ (and the
folders inside those that only group others, such as lib/Conversion), every
module of python/phobos/ and every script of bench/ (.py, .sh) is named in
the table, and every path the table's first column names exists. Build
outputs that .gitignore leaves out (python/build/, *.egg-info/) are not
checked.

Usage: python3 source-tree.py SOURCE_ROOT
"""

from __future__ import annotations

import glob
import re
import sys
from pathlib import Path


def table_cells(architecture: str) -> list[tuple[str, str]]:
    """(first column, second column) of each row of section 2's table."""
    section = architecture.split("\n## 2. Source tree", 1)[1].split("\n### ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and line.startswith("|") and not set(cells[0]) <= {"-", " "}:
            rows.append((cells[0], cells[1]))
    return rows[1:]  # the header


def spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def path_ignored(path: str) -> bool:
    """Build outputs .gitignore leaves out where a check walks."""
    return path == "python/build" or path.endswith(".egg-info")


def grouping(folder: Path) -> bool:
    """A folder that only groups others (lib/Conversion, lib/Dialect/Tile):
    its sub-folders are checked as well."""
    return all(entry.is_dir() or entry.name == "CMakeLists.txt" for entry in folder.iterdir())


def main() -> int:
    root = Path(sys.argv[1])
    rows = table_cells((root / "docs" / "architecture.md").read_text())
    # Each row's folders (first column) and the names its text gives.
    rows = [([span.rstrip("/") for span in spans(first)],
             {span.rstrip("/") for span in spans(second)}) for first, second in rows]
    folders = [folder for row_folders, _ in rows for folder in row_folders]
    errors = []

    def named(path: str, name: str, parent: str) -> bool:
        """In the first column, or by name in the row of its parent folder
        (`tools/`: `phobos-opt`; `lib/ClusterRuntime`: `Storage/`)."""
        if any(folder == path or folder.startswith(path + "/") for folder in folders):
            return True
        return any(parent in row_folders and name in names for row_folders, names in rows)

    def check(parent: str) -> None:
        for entry in sorted((root / parent).iterdir()):
            if not entry.is_dir() or entry.name.startswith((".", "__")) or \
                    path_ignored(f"{parent}/{entry.name}"):
                continue
            path = f"{parent}/{entry.name}"
            if not named(path, entry.name, parent):
                errors.append(f"{path}/ is not in the table")
            elif grouping(entry):
                check(path)

    for parent in ("lib", "include/Phobos", "tools", "python"):
        check(parent)
    package = next((names for row_folders, names in rows if "python/phobos" in row_folders), set())
    for module in sorted((root / "python" / "phobos").glob("*.py")):
        if module.name not in package:
            errors.append(f"python/phobos/{module.name} is not in the table")
    bench = next((names for row_folders, names in rows if "bench" in row_folders), set())
    for script in sorted((root / "bench").glob("*")):
        if script.suffix in (".py", ".sh") and script.name not in bench:
            errors.append(f"bench/{script.name} is not in the table")
    for folder in folders:
        if "/" in folder and not glob.glob(str(root / folder)):
            errors.append(f"the table names {folder}, which does not exist")
    for error in errors:
        print(f"docs/architecture.md §2: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
