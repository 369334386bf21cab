"""The package's modules import each other without a circle.

Every import of a phobos module counts, at module level or inside a
function: an import moved into a function to break a circle leaves the
circle in the design, and the order in which modules happen to load decides
whether it works.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "phobos"
MODULES = {path.stem for path in PACKAGE.glob("*.py")}


def imported(path: Path) -> set[str]:
    """The phobos modules `path` imports ("__init__": the package's own names)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "phobos":
                    found.add(parts[1] if len(parts) > 1 else "__init__")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != "phobos":
                continue
            if len(parts) > 1:
                found.add(parts[1])
            else:  # from phobos import _library (a module) or Kernel (a name)
                found.update(alias.name if alias.name in MODULES else "__init__"
                             for alias in node.names)
    found.discard(path.stem)
    return found


def test_no_import_circle():
    graph = {path.stem: imported(path) for path in PACKAGE.glob("*.py")}
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                circle = stack[stack.index(target):] + [target]
                raise AssertionError("import circle: " + " -> ".join(circle))
            if target not in state:
                visit(target)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_the_check_sees_circles(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("def f():\n    from phobos import b\n")
    (tmp_path / "b.py").write_text("from phobos.a import f\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "MODULES", {"a", "b"})
    try:
        test_no_import_circle()
    except AssertionError as error:
        assert "a -> b -> a" in str(error)
    else:
        raise AssertionError("the circle a <-> b was not found")
