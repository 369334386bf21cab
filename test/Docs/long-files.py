"""Checks the rule of docs/architecture.md ("Long files"): a source file of
more than 1,000 lines says why in its header, in a line that starts with
"Why this file is long:" (C++, TableGen and JavaScript: in the // comment
lines that open the file; Python: in the module docstring or the comment
lines that open the module; CSS, and JavaScript that opens with one: in the
opening /* */ comment; HTML: in the opening <!-- --> comment, after a
<!DOCTYPE> line if there is one).

Sources: C++ (.cpp, .h, .c) under lib/, include/, tools/ and unittests/;
TableGen (.td) under include/ and lib/; the visualizer's page and any other
web file (.js, .css, .html) under lib/, tools/ and python/phobos/; Python
under python/phobos/, python/tests/, python/tutorials/, bench/, scripts/ and
test/ (the lit tests' harnesses and these checks).

Usage: python3 long-files.py SOURCE_ROOT
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_LINES = 1000
MARKER = "Why this file is long:"
CPP = ({"lib", "include", "tools", "unittests"}, {".cpp", ".h", ".c"})
TABLEGEN = ({"include", "lib"}, {".td"})
WEB = ({"lib", "tools", "python/phobos"}, {".js", ".css", ".html"})
PYTHON = ({"python/phobos", "python/tests", "python/tutorials", "bench", "scripts", "test"},
          {".py"})

# The block comment each language may open with.
BLOCK = {".css": ("/*", "*/"), ".js": ("/*", "*/"), ".html": ("<!--", "-->")}


def block_header(path: Path, text: str) -> list[str]:
    """The lines of the block comment that opens the file (after blank
    lines and, in HTML, a <!DOCTYPE> line); empty when it opens otherwise."""
    opener, closer = BLOCK[path.suffix]
    rest = text.lstrip()
    if path.suffix == ".html" and rest.lower().startswith("<!doctype"):
        rest = rest.split("\n", 1)[1].lstrip() if "\n" in rest else ""
    if not rest.startswith(opener):
        return []
    body = rest[len(opener):].split(closer, 1)[0]
    return [line.strip().lstrip("*").strip() for line in body.splitlines()]


def header(path: Path, text: str) -> str:
    """The file's opening comment (// lines, Python # lines, or a block
    comment where the language has one) and, for Python, its module
    docstring."""
    if path.suffix in BLOCK:
        lines = block_header(path, text)
        if lines or path.suffix != ".js":
            return "\n".join(lines)
    comment = "#" if path.suffix == ".py" else "//"
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
    for folders, suffixes in (CPP, TABLEGEN, WEB, PYTHON):
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
