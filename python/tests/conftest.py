"""Shared fixtures: a kernel cache per test session, and kernels written to
files (the package reads a kernel's source from its file)."""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
_counter = itertools.count()


def tool_dir() -> Path:
    home = os.environ.get("PHOBOS_HOME")
    return Path(home) / "bin" if home else REPO / "build" / "bin"


@pytest.fixture(scope="session", autouse=True)
def phobos_environment(tmp_path_factory):
    """Tools from the build, and a fresh kernel cache for the session."""
    if "PHOBOS_HOME" not in os.environ:
        os.environ["PHOBOS_HOME"] = str(REPO / "build")
    if not (tool_dir() / "phobos-compile").exists():
        pytest.exit(f"the Phobos tools are not built ({tool_dir()}); run scripts/setup.sh", 2)
    cache = tmp_path_factory.mktemp("kernel-cache")
    os.environ["PHOBOS_CACHE_DIR"] = str(cache)
    yield cache


@pytest.fixture
def write_module(tmp_path):
    """Writes Python source to a file, imports it and returns the module."""
    def write(text: str, name: str | None = None):
        name = name or f"kernels_{next(_counter)}"
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return write


HEADER = "from __future__ import annotations\n\nimport phobos.lang as ph\n\n\n"
