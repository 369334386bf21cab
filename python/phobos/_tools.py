"""Finding and running the Phobos tools (phobos-tune for searches; the
compiler and the interpreter are in process, phobos._library).

The tools are looked for in ``$PHOBOS_HOME/bin`` (or ``$PHOBOS_HOME``), next
to the package (``phobos/bin``, or ``build/bin`` of the checkout the package
sits in), then on ``PATH``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

from phobos._errors import ToolNotFoundError
from phobos._library import install_places

_lock = threading.Lock()
_found: dict[str, str] = {}


def _candidates(name: str) -> list[Path]:
    return install_places("bin", name)


def find_tool(name: str) -> str:
    """The path of tool ``name``; raises ToolNotFoundError naming where it looked."""
    with _lock:
        if name in _found:
            return _found[name]
    places = _candidates(name)
    for place in places:
        if place.is_file() and os.access(place, os.X_OK):
            path = str(place)
            break
    else:
        which = shutil.which(name)
        if which is None:
            looked = ", ".join(str(p.parent) for p in places)
            raise ToolNotFoundError(
                f"cannot find {name}: looked in {looked} and on PATH; build the tools "
                "(scripts/setup.sh, or scripts/build-static.sh for a machine without LLVM) "
                "and set PHOBOS_HOME to the folder that holds bin/")
        path = which
    with _lock:
        _found[name] = path
    return path


def reset() -> None:
    """Forgets the tools found (after PHOBOS_HOME changes)."""
    with _lock:
        _found.clear()


def run_tool(args: list[str]) -> subprocess.CompletedProcess[str]:
    """Runs a tool with the locale of a terminal (errors are UTF-8 text)."""
    return subprocess.run(args, capture_output=True, text=True, encoding="utf-8",
                          errors="replace")
