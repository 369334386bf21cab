"""Compiler and interpreter diagnostics for a Python kernel name the Python
file, line and column, with the Python line and a caret."""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import HEADER
from phobos import ArgumentError, CompileError, KernelRuntimeError


def _place(module, error) -> tuple[str, int, int, str, str]:
    first, line_text, caret = str(error).splitlines()[:3]
    match = re.match(r"(.*):(\d+):(\d+): (error|warning|note): (.*)", first)
    assert match, first
    assert match.group(1) == module.__file__
    return match.group(1), int(match.group(2)), int(match.group(3)), line_text, caret


def test_type_error(write_module):
    module = write_module(HEADER + '''@ph.kernel
def count_up(a: ph.tensor[ph.f32][N]):
    count: ph.var = 0
    count += a[0]
''')
    with pytest.raises(CompileError) as error:
        module.count_up.contract()
    _, line, col, text, caret = _place(module, error.value)
    assert (line, col) == (9, 15)
    assert "cannot convert f32 to i32 implicitly for 'count'" in str(error.value)
    assert text == "    count += a[0]"
    assert caret == " " * 14 + "^"


def test_shape_error(write_module):
    module = write_module(HEADER + '''@ph.kernel
def mismatch(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N]):
    z: ph.let = x[0:+64] + \\
        y[0:+32]
    y[0:+64] = z
''')
    with pytest.raises(CompileError) as error:
        module.mismatch.contract()
    _, line, col, text, caret = _place(module, error.value)
    assert "shapes do not broadcast: tile<f32>[64] + tile<f32>[32]" in str(error.value)
    assert (line, col, text) == (8, 26, "    z: ph.let = x[0:+64] + \\")
    assert caret.index("^") == 25


def test_bad_variant(write_module):
    module = write_module(HEADER + '''@ph.kernel
@ph.autotune(BLOCK=[16, 1024])
def scale(x: ph.tensor[ph.f32][N]):
    base: ph.let = ph.ctx.block.x * BLOCK
    x[base:+BLOCK] = 2.0 * x[base:+BLOCK]
''')
    with pytest.raises(CompileError) as error:
        module.scale.contract(BLOCK=1000)
    _, line, col, text, _ = _place(module, error.value)
    assert "BLOCK=1000 is not in the search space of 'BLOCK'" in str(error.value)
    assert (line, col, text) == (7, 14, "@ph.autotune(BLOCK=[16, 1024])")
    # The launcher reports the same, before anything runs.
    x = np.zeros(100, np.float32)
    with pytest.raises(CompileError, match="not in the search space"):
        module.scale[None](x, BLOCK=1000)


def test_an_error_only_in_one_variant_names_the_variant(write_module):
    module = write_module(HEADER + '''@ph.kernel
@ph.autotune(B=[16, 512])
def big(x: ph.tensor[ph.f32][N]):
    acc: ph.var[ph.tile[ph.f32][B, B, B]] = 0.0
    x[0] = 1.0
''')
    module.big.contract()  # B=16 is fine
    with pytest.raises(CompileError) as error:
        module.big.contract(B=512)
    lines = str(error.value).splitlines()
    assert lines[0].endswith("error: tile [512, 512, 512] has more than 16777216 elements")
    assert lines[0].startswith(f"{module.__file__}:9:")
    assert any(line.startswith(f"{module.__file__}:9:") and "note: in variant B=512" in line
               for line in lines)


def test_interpreter_errors_name_the_python_line(write_module):
    module = write_module(HEADER + '''@ph.kernel
def peek(a: ph.tensor[ph.f32][N], i: ph.i32):
    a[0] = a[i]
''')
    a = np.zeros(4, np.float32)
    with pytest.raises(KernelRuntimeError) as error:
        module.peek[(1,)](a, 7)
    assert str(error.value).startswith(f"{module.__file__}:8:")
    assert "    a[0] = a[i]" in str(error.value)


def test_a_loop_past_the_step_limit_names_the_python_line(write_module):
    module = write_module(HEADER + '''@ph.kernel
def spin(X: ph.tensor[ph.f32][N], n: ph.i32):
    k: ph.var = 0
    while k < n:
        k = k * 2
    X[0] = 1.0
''')
    # A small budget finds the hang at once (the default takes ~10 s).
    module.spin.step_limit = 1000
    with pytest.raises(KernelRuntimeError) as error:
        module.spin[(1,)](np.zeros(4, np.float32), 1)
    assert str(error.value).startswith(
        f"{module.__file__}:9:5: error: the kernel did not finish within 1000 steps per CTA")
    assert "    while k < n:" in str(error.value)


def test_a_broken_aligned_promise_names_the_python_line(write_module):
    module = write_module(HEADER + '''@ph.kernel
@ph.autotune(B=[16])
@ph.aligned(N="B")
def copy(X: ph.tensor[ph.f32][N], Y: ph.tensor[ph.f32][N]):
    base: ph.let = ph.program_id(0) * B
    Y[base:+B] = X[base:+B]
''')
    x, y = np.zeros(30, np.float32), np.zeros(30, np.float32)
    with pytest.raises(ArgumentError) as error:
        module.copy[(2,)](x, y)
    assert error.value.reason == (f"breaks @aligned(N = 16): N is 30 "
                                  f"(the promise is at {module.__file__}:8:16)")


def test_warnings_name_the_python_line(write_module, capfd):
    module = write_module(HEADER + '''@ph.kernel
@ph.autotune(B=[16, 100])
def odd(x: ph.tensor[ph.f32][N]):
    x[0:+B] = 1.0
''')
    # A doubling range that misses its bound warns; compiling still works.
    contract = module.odd.contract()
    assert contract.kernel == "odd"
    err = capfd.readouterr().err
    assert f"{module.__file__}:7:21: warning: doubling from 16 does not reach 100" in err
    assert "@ph.autotune(B=[16, 100])" in err


LINES = HEADER + '''@ph.kernel
@ph.autotune(B=[128])
def lines(X: ph.tensor[ph.f32][N], Y: ph.tensor[ph.f32][N], i: ph.i32):
    base: ph.let = ph.program_id(0) * B
    t: ph.let = X[base:+B] * 2.0
    Y[base:+B] = t
    Y[i] = 1.0
'''


def _access_lines(ptx: bytes) -> set[tuple[int, str]]:
    """Each global load and store with the line of the last .loc before it."""
    lines, line = set(), None
    for text in ptx.decode().splitlines():
        fields = text.split()
        if fields[:1] == [".loc"]:
            line = int(fields[2])
        elif fields and fields[0].split(".")[:2] in (["ld", "global"], ["st", "global"]):
            lines.add((line, fields[0].split(".")[0]))
    return lines


def test_the_ptx_line_info_names_the_python_lines(write_module, tmp_path, monkeypatch):
    # compute-sanitizer and Nsight Compute read the PTX's .file and .loc: the
    # Python file, and the line of each statement (10: the load, 11 and 12:
    # the stores).
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    module = write_module(LINES)
    ptx = module.lines.compile(chip="sm_90a").ptx
    assert f'.file\t1 "{module.__file__}"'.encode() in ptx
    assert _access_lines(ptx) == {(10, "ld"), (11, "st"), (12, "st")}
    assert b", debug" not in ptx and b".debug_info" not in ptx


def test_lineinfo_false_leaves_it_out(write_module, tmp_path, monkeypatch):
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    module = write_module(LINES.replace("@ph.kernel\n", "@ph.kernel(lineinfo=False)\n"))
    kernel = module.lines
    assert kernel.lineinfo is False
    plain = kernel.compile(chip="sm_90a")
    assert b".loc" not in plain.ptx and b".file" not in plain.ptx
    kernel.lineinfo = True
    lined = kernel.compile(chip="sm_90a")
    assert b".loc" in lined.ptx and lined.directory != plain.directory
    # The same code: only the line info differs.
    kept = [line for line in lined.ptx.decode().splitlines()
            if not re.match(r"\s*(\.loc|\.file)\s|\s*\.section\s+\.debug_macinfo|"
                            r"\$L__(tmp|func_begin|func_end)\d+:", line)]
    assert kept == plain.ptx.decode().splitlines()
