"""Kernels translated from source text that is read and never run.

``translate_source`` reads a module's text, binds the names its imports of
phobos would bind (``import phobos.lang as ph``), and translates its
``@ph.kernel`` functions; the tests and tools that check source without
importing it use it. It lives apart from the front end because it needs
``phobos.lang`` itself, which depends on the front end through the kernel
object.
"""

from __future__ import annotations

import ast
from typing import Any, Mapping

import phobos
from phobos import lang
from phobos._frontend import parse_source, translate_tree
from phobos._translation import Translation


def globals_from_imports(tree: ast.Module) -> dict[str, Any]:
    """The names a module's imports of phobos bind, and its module-level
    constants written as literals (``LOG2E = 1.4426950408889634``, with or
    without an annotation), which kernels read as literals."""
    names: dict[str, Any] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and value is not None:
            try:
                constant = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if type(constant) in (bool, int, float):
                names[target.id] = constant
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "phobos.lang" and alias.asname:
                    names[alias.asname] = lang
                elif alias.name in ("phobos", "phobos.lang"):
                    names["phobos"] = phobos
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            for alias in node.names:
                bound = alias.asname or alias.name
                if node.module == "phobos" and alias.name == "lang":
                    names[bound] = lang
                elif node.module == "phobos.lang" and hasattr(lang, alias.name):
                    names[bound] = getattr(lang, alias.name)
    return names


def translate_source(text: str, filename: str = "<kernel>", name: str | None = None,
                     module_globals: Mapping[str, Any] | None = None) -> list[Translation]:
    """Translates every ``@ph.kernel`` function of a module's source (or only
    ``name``) without running it; the module's phobos imports are read from
    its import statements unless ``module_globals`` is given."""
    tree = parse_source(filename, text)
    names = dict(module_globals) if module_globals is not None else globals_from_imports(tree)
    return translate_tree(tree, text, filename, names, name)
