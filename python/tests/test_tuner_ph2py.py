"""The autotuner on the CPU, and ph2py's command line."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import HEADER, EXAMPLES
from phobos import PhobosError
from phobos.ph2py import convert, main

KERNEL = HEADER + '''@ph.kernel
@ph.autotune(BLOCK=[16, 64], BAD=[1, 2])
def shifted(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N]):
    base: ph.let = ph.ctx.block.x * BLOCK
    y[base:+BLOCK] = x[base:+BLOCK] + ph.f32(BAD - 1)
'''


def test_tune_checks_times_and_remembers(write_module):
    kernel = write_module(KERNEL).shifted
    x = np.arange(100, dtype=np.float32)
    y = np.zeros(100, np.float32)
    grid = lambda meta: (-(-meta["N"] // meta["BLOCK"]),)
    result = kernel.tune(grid, x, y, reference=lambda x, y: x.astype(np.float64))
    by_variant = {tuple(r["variant"].items()): r for r in result.results}
    assert len(by_variant) == 6
    assert all(r["status"] == "wrong" for v, r in by_variant.items() if dict(v)["BAD"] == 2)
    assert all(r["status"] == "ok" for v, r in by_variant.items() if dict(v)["BAD"] == 1)
    assert result.best["BAD"] == 1
    np.testing.assert_array_equal(y, x)  # the outputs hold the best variant's result
    assert "ms" in result.table()
    # Launches without keywords now use the tuned choice for these dims.
    from phobos._kernel import describe
    chosen = dict(kernel._choose({}, [describe(x), describe(y)], "interpreter"))
    assert chosen == result.best
    fresh = type(kernel)(kernel.translation)
    assert dict(fresh._choose({}, [describe(x), describe(y)], "interpreter")) == result.best


SEARCHING = HEADER + '''@ph.kernel
@ph.autotune(BLOCK=[16, 64], BAD=[1, 2], search=True)
def searched(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N]):
    base: ph.let = ph.ctx.block.x * BLOCK
    y[base:+BLOCK] = x[base:+BLOCK] + ph.f32(BAD - 1)
'''


def test_search_at_the_first_launch_of_a_shape_only(write_module):
    # Not `shifted`: the tuning cache (one per test session) knows it.
    kernel = write_module(SEARCHING).searched
    grid = lambda meta: (-(-meta["N"] // meta["BLOCK"]),)
    x = np.arange(100, dtype=np.float32)
    y = np.zeros(100, np.float32)
    kernel[grid](x, y)  # searches: BAD=2 fails the interpreter's check
    assert kernel.searches == 1
    np.testing.assert_array_equal(y, x)
    y[:] = 0
    kernel[grid](x, y)  # the same shape: the winner, no search
    assert kernel.searches == 1
    np.testing.assert_array_equal(y, x)
    # A fresh kernel object (another process) finds the winner in the
    # tuning cache.
    fresh = type(kernel)(kernel.translation)
    fresh.tune_options = dict(kernel.tune_options)
    y[:] = 0
    fresh[grid](x, y)
    assert fresh.searches == 0
    np.testing.assert_array_equal(y, x)
    # Another shape is searched.
    x2 = np.arange(300, dtype=np.float32)
    y2 = np.zeros(300, np.float32)
    kernel[grid](x2, y2)
    assert kernel.searches == 2
    np.testing.assert_array_equal(y2, x2)


def test_tune_without_a_passing_variant(write_module):
    kernel = write_module(KERNEL).shifted
    x = np.ones(10, np.float32)
    with pytest.raises(PhobosError, match="no variant passed"):
        kernel.tune(None, x, np.zeros(10, np.float32), reference=lambda x, y: x * 7, BAD=2,
                    BLOCK=16)


def test_a_huge_space_is_refused_not_built(write_module):
    # 40 dimensions of two values: 2^40 variants, never enumerated.
    names = ", ".join(f"A{i}=[1, 2]" for i in range(40))
    kernel = write_module(HEADER + f"""@ph.kernel
@ph.autotune({names})
def huge(x: ph.tensor[ph.f32][N]):
    x[0] = ph.f32(A0)
""").huge
    with pytest.raises(PhobosError, match="has 1099511627776 variants, more than the 4096"):
        kernel.variants()


def test_ph2py_command(tmp_path, capsys):
    out = tmp_path / "saxpy.py"
    assert main([str(EXAMPLES / "saxpy_fp32.ph"), "-o", str(out)]) == 0
    text = out.read_text()
    assert "@ph.autotune(BLOCK=[16, 8192])" in text
    assert "    out[base:+BLOCK] = alpha * x[base:+BLOCK] + y[base:+BLOCK]" in text
    assert text.startswith("# Written by ph2py from saxpy_fp32.ph.")
    assert "# saxpy: out[i] = alpha * x[i] + y[i]" in text


@pytest.mark.parametrize("source,reason", [
    ("kernel k(lambda: tensor<f32>[N]) {\n}\n", "'lambda' is a Python keyword"),
    ("@weird\nkernel k(a: tensor<f32>[N]) {\n}\n", "unknown attribute '@weird'"),
    ("kernel k(a: tensor<f32>[N]) {\n    let x = 1 $ 2\n}\n", "unexpected character"),
])
def test_ph2py_errors_name_the_place(tmp_path, capsys, source, reason):
    path = tmp_path / "bad.ph"
    path.write_text(source)
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ph2py: {path}:") and reason in err


def test_ph2py_spells_operators_python_reads_the_same_way():
    text = convert("kernel k(a: tensor<f32>[N], b: bool, n: i32) {\n"
                   "    let x = !b == (n < 2)\n"
                   "    let y = a[n :+ 2 * n, 0 : n + 1] \n"
                   "    let z = -(n - 1) * (n + 2) % 3 || b && !(n != 0)\n"
                   "}\n")
    assert "    x: ph.let = (not b) == (n < 2)" in text
    assert "    y: ph.let = a[n:+2 * n, 0:n + 1]" in text
    assert "    z: ph.let = -(n - 1) * (n + 2) % 3 or b and not n != 0" in text
