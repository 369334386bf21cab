"""Every example, turned into Python by ph2py: the module imports, its
``.source`` imports to the same tile IR as the .ph file, and the kernel runs
through the Python launcher on the CPU interpreter, checked against a
float64 NumPy reference."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from conftest import EXAMPLES, tool_dir
from example_cases import CASES
from phobos import Kernel
from phobos.ph2py import convert

ALL_EXAMPLES = sorted(path.stem for path in EXAMPLES.glob("*.ph"))


def test_every_example_has_a_case():
    assert sorted(CASES) == ALL_EXAMPLES


def load_example(name: str, tmp_path) -> list[Kernel]:
    module_path = tmp_path / f"{name}.py"
    module_path.write_text(convert((EXAMPLES / f"{name}.ph").read_text(), f"{name}.ph"))
    spec = importlib.util.spec_from_file_location(f"example_{name}", module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return [value for value in vars(module).values() if isinstance(value, Kernel)]


def import_ir(path, *extra) -> str:
    result = subprocess.run([str(tool_dir() / "phobos-translate"), "--import-phobos", str(path),
                             *extra], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_ph2py_round_trips_to_the_same_tile_ir(name, tmp_path):
    kernels = load_example(name, tmp_path)
    assert kernels
    for kernel in kernels:
        generated = tmp_path / f"{kernel.name}.gen.ph"
        generated.write_text(kernel.source + "\n")
        original = EXAMPLES / f"{name}.ph"
        assert import_ir(generated) == import_ir(original, "--kernel", kernel.name)
        last = ",".join(f"{n}={v[-1]}" for n, v in kernel.space.items())
        if last:
            assert import_ir(generated, "--variant", last) == \
                import_ir(original, "--kernel", kernel.name, "--variant", last)


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_example_runs_from_python_on_the_interpreter(name, tmp_path):
    (kernel,) = load_example(name, tmp_path)
    make, reference, tolerance, variant = CASES[name]
    if make is None:
        pytest.skip(f"{name} takes bf16 arrays, which NumPy does not have")
    args = make()
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel[None](*args, **variant)
    expected = reference(before)
    names = [p.name for p in kernel.translation.params]
    for output, want in expected.items():
        got = args[names.index(output)].astype(np.float64)
        assert np.all(np.isfinite(got)), f"{output} has unwritten (NaN) elements"
        error = np.max(np.abs(got - want)) / np.max(np.abs(want))
        assert error <= tolerance, f"{name}: {output} max rel err {error:.3g} > {tolerance}"


REPO_PH_FILES = sorted(str(path.relative_to(EXAMPLES.parent))
                       for folder in (EXAMPLES, EXAMPLES.parent / "test")
                       for path in folder.rglob("*.ph"))


@pytest.mark.parametrize("relative", REPO_PH_FILES)
def test_ph2py_agrees_with_the_library_parser(relative, tmp_path):
    """ph2py has a parser of its own; on every .ph of the repository (the
    examples and every lit input, valid or not) it agrees with the
    library's front end: what it converts imports to the same tile IR,
    kernel by kernel, or is refused by the library the same way; what it
    refuses the library refuses too, or has no Python spelling."""
    from phobos import CompileError, KernelSyntaxError
    from phobos.ph2py import Ph2PyError
    path = EXAMPLES.parent / relative
    text = path.read_text(errors="replace")
    whole = subprocess.run([str(tool_dir() / "phobos-translate"), "--import-phobos", str(path)],
                           capture_output=True, text=True)
    try:
        python = convert(text, path.name)
    except Ph2PyError as error:
        assert whole.returncode != 0 or "has no Python spelling" in str(error), str(error)
        assert f"{path.name}:" in str(error)  # at its place
        return
    module_path = tmp_path / "converted.py"
    module_path.write_text(python)
    spec = importlib.util.spec_from_file_location(f"converted_{abs(hash(relative))}", module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except KernelSyntaxError as error:  # the Python front end refuses it as the library does
        assert whole.returncode != 0, str(error)
        return
    kernels = [value for value in vars(module).values() if isinstance(value, Kernel)]
    for kernel in kernels:
        original = subprocess.run([str(tool_dir() / "phobos-translate"), "--import-phobos",
                                   str(path), "--kernel", kernel.name],
                                  capture_output=True, text=True)
        generated = tmp_path / f"{kernel.name}.gen.ph"
        generated.write_text(kernel.source + "\n")
        if original.returncode == 0:
            assert import_ir(generated) == original.stdout
        else:
            with pytest.raises(CompileError):
                kernel.contract()
    if whole.returncode != 0 and not kernels:
        pytest.fail("the library refuses a file ph2py converts to no kernel")
