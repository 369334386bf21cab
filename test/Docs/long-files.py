"""Checks the rule of docs/architecture.md ("Long files"): a source file of
more than 1,000 lines says why in its header, in a line that starts with
"Why this file is long:" (C++: in the comment lines that open the file;
Python: in the module docstring or the comment lines that open the module).

Sources: C++ (.cpp, .h, .c) under lib/, include/, tools/ and unittests/;
Python under python/phobos/, bench/ and scripts/.

Usage: python3 long-files.py SOURCE_ROOT
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_LINES = 1000
MARKER = "Why this file is long:"
CPP = ({"lib", "include", "tools", "unittests"}, {".cpp", ".h", ".c"})
PYTHON = ({"python/phobos", "bench", "scripts"}, {".py"})


def header(path: Path, text: str) -> str:
    """The file's opening comment (C++ // lines, Python # lines) and, for
    Python, its module docstring."""
    comment = "//" if path.suffix != ".py" else "#"
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(comment):
            break
        lines.append(stripped.lstrip(comment + "/").strip())
    if path.suffix == ".py":
        try:
            lines += (ast.get_docstring(ast.parse(text)) or "").splitlines()
        except SyntaxError:
            pass
    return "\n".join(lines)


def sources(root: Path):
    for folders, suffixes in (CPP, PYTHON):
        for folder in sorted(folders):
            base = root / folder
            if base.is_dir():
                for path in sorted(base.rglob("*")):
                    if path.suffix in suffixes and path.is_file() and \
                            "__pycache__" not in path.parts:
                        yield path


def main() -> int:
    root = Path(sys.argv[1])
    errors = []
    long_files = 0
    for path in sources(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if count <= MAX_LINES:
            continue
        long_files += 1
        if not any(line.startswith(MARKER) for line in header(path, text).splitlines()):
            errors.append(f"{path.relative_to(root)}: {count} lines, and its header does not "
                          f"say why ('{MARKER} ...'): split it by concern, or give the reason")
    for error in errors:
        print(error)
    print(f"{long_files} files over {MAX_LINES} lines, {len(errors)} without a reason")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
