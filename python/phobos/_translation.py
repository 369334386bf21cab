"""What the front end makes of a kernel: the Phobos text with its span map
(for each piece of generated text, the Python line and column it came from),
the emitter that records the spans as it writes, and positions in the Python
source (ast's, in UTF-8 bytes). phobos._frontend's translator writes through
these; the compiler reads the map with ``--span-map``.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from typing import Any

Pos = tuple  # (line, col): 1-based line, 1-based column in UTF-8 bytes


@dataclasses.dataclass
class Param:
    """A kernel parameter as the signature spells it."""
    name: str
    kind: str  # "tensor" or "scalar"
    dtype: str
    dims: list[str]  # tensors: a name or the digits of a literal per axis


@dataclasses.dataclass
class Translation:
    """What the front end makes of one kernel."""
    name: str
    source: str  # the Phobos program, without a final newline
    spans: list[tuple[int, int, int, int, int]]  # gen line, gen col, length, py line, py col
    python_file: str
    python_text: str
    def_pos: Pos
    params: list[Param]
    autotune: list[tuple[str, list[int]]]  # as written, in source order

    def span_map(self) -> dict[str, Any]:
        """The map the compiler reads with --span-map (format 1)."""
        return {"format": 1, "kernel": self.name, "python_file": self.python_file,
                "python_source": self.python_text,
                "default": [self.def_pos[0], self.def_pos[1]],
                "spans": [list(s) for s in self.spans]}

    def span_map_json(self) -> str:
        return json.dumps(self.span_map())

    def python_pos(self, gen_line: int, gen_col: int) -> Pos:
        """The Python position of generated ``line:col`` (what the compiler
        does with the map, for the package's own messages)."""
        best = None
        for line, col, length, py_line, py_col in self.spans:
            if line != gen_line or col > gen_col:
                continue
            inside = gen_col < col + length
            key = (inside, col if not inside else -length)
            if best is None or key > best[0]:
                best = (key, (py_line, py_col))
        return best[1] if best else self.def_pos


class _Emitter:
    """Builds the Phobos text and records where each piece came from."""

    def __init__(self) -> None:
        self.lines: list[str] = [""]
        self.spans: list[tuple[int, int, int, int, int]] = []
        self.indent = 0

    def emit(self, text: str, pos: Pos | None = None) -> None:
        line = len(self.lines)
        col = len(self.lines[-1]) + 1
        self.lines[-1] += text
        if pos is not None and text:
            self.spans.append((line, col, len(text), pos[0], pos[1]))

    def start_line(self) -> None:
        if self.lines[-1]:
            self.lines.append("")
        self.lines[-1] = "    " * self.indent

    def newline(self) -> None:
        self.lines.append("")

    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n")


class _SourceFile:
    """A Python file's text, by line, in bytes (ast's columns count UTF-8 bytes)."""

    def __init__(self, filename: str, text: str) -> None:
        self.filename = filename
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.blines = [line.encode("utf-8") for line in self.lines]

    def line(self, number: int) -> str | None:
        return self.lines[number - 1] if 1 <= number <= len(self.lines) else None

    def find(self, start: Pos, end: Pos, token: str) -> Pos | None:
        """The first ``token`` between two positions, outside comments (the
        text between two operands holds only the operator, brackets, space
        and comments)."""
        want = token.encode()
        line, col = start
        while line <= min(end[0], len(self.blines)):
            text = self.blines[line - 1]
            stop = end[1] - 1 if line == end[0] else len(text)
            index = col - 1
            while index < stop:
                if text[index:index + 1] == b"#":
                    break
                if text.startswith(want, index):
                    if token.isalpha():
                        before = text[index - 1:index] if index else b" "
                        after = text[index + len(want):index + len(want) + 1]
                        if before.isalnum() or before == b"_" or after.isalnum() or after == b"_":
                            index += 1
                            continue
                    return (line, index + 1)
                index += 1
            line, col = line + 1, 1
        return None


def _pos(node: ast.AST) -> Pos:
    return (node.lineno, node.col_offset + 1)


def _end(node: ast.AST) -> Pos:
    return (node.end_lineno, node.end_col_offset + 1)


def _relocate(tree: ast.AST, line: int, col: int) -> None:
    """Moves a tree parsed from a string literal's contents to the literal's
    place (``line``, 0-based ``col`` of its first character)."""
    for node in ast.walk(tree):
        if "lineno" in node._attributes and hasattr(node, "lineno"):
            if node.lineno == 1:
                node.col_offset += col
            if getattr(node, "end_lineno", None) == 1:
                node.end_col_offset += col
            node.lineno += line - 1
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += line - 1
