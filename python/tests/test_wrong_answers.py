"""No silent wrong answer on the CPU path (issue 48): aliased outputs refused,
persistent grids, references with infinities and NaNs, and ph2py's output."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import HEADER
from phobos import PhobosError
from phobos.ph2py import Ph2PyError, convert

TWO_OUTPUTS = HEADER + '''@ph.kernel
def halves(x: ph.tensor[ph.f32][N], a: ph.tensor[ph.f32][N], b: ph.tensor[ph.f32][N]):
    i: ph.let = ph.ctx.block.x * 16
    a[i:+8] = x[i:+8] + 1.0
    b[i + 8:+8] = x[i + 8:+8] + 2.0
'''


def test_one_array_for_two_outputs_is_refused(write_module):
    # A kernel may assume that its tensor arguments do not overlap when it
    # writes one (docs/language.md, "The memory model"): the GPU orders one
    # tensor's accesses inside a CTA, not two tensors'. One array for two
    # outputs, or overlapping views, is refused before anything runs,
    # naming both arguments, on the CPU path as on the GPU.
    kernel = write_module(TWO_OUTPUTS).halves
    x = np.zeros(32, np.float32)
    out = np.full(32, -5, np.float32)
    with pytest.raises(PhobosError, match="argument 'b': overlaps argument 'a' in memory, "
                       "and the kernel writes 'a'"):
        kernel[(2,)](x, out, out)
    whole = np.full(48, -5, np.float32)
    with pytest.raises(PhobosError, match="argument 'b': overlaps argument 'a'"):
        kernel[(2,)](x, whole[:32], whole[16:])
    np.testing.assert_array_equal(out, np.full(32, -5, np.float32))
    np.testing.assert_array_equal(whole, np.full(48, -5, np.float32))
    # Views that do not overlap are separate tensors.
    apart = np.full(64, -5, np.float32)
    kernel[(2,)](x, apart[:32], apart[32:])
    np.testing.assert_array_equal(apart[:8], np.ones(8, np.float32))
    np.testing.assert_array_equal(apart[40:48], np.full(8, 2.0, np.float32))


PERSISTENT = HEADER + '''@ph.kernel
@ph.persistent
def doubled(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N]):
    base: ph.let = ph.ctx.block.x * 8
    y[base:+8] = 2.0 * x[base:+8]
'''


def test_persistent_kernel_takes_only_its_tile_grid_on_the_cpu(write_module):
    kernel = write_module(PERSISTENT).doubled
    x = np.arange(32, dtype=np.float32)
    y = np.zeros(32, np.float32)
    # Two CTAs would leave half of y unwritten; the GPU path refuses it.
    with pytest.raises(PhobosError, match=r"the kernel is persistent: its CTAs walk the grid "
                       r"\(4, 1, 1\) of its tiles, and the launcher chooses how many it starts; "
                       r"a grid \(2, 1, 1\) cannot be given"):
        kernel[(2,)](x, y)
    kernel[(4,)](x, y)
    np.testing.assert_array_equal(y, 2 * x)
    y[:] = 0
    kernel[None](x, y)
    np.testing.assert_array_equal(y, 2 * x)


INFINITIES = HEADER + '''@ph.kernel
@ph.autotune(BAD=[1, 2], SIGN=[1, 2])
def first_infinite(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N]):
    base: ph.let = ph.ctx.block.x * 16
    y[base:+16] = x[base:+16] + ph.f32(BAD - 1)
    if ph.ctx.block.x == 0:
        y[0] = x[0] * 0.0 + ph.f32(3 - 2 * SIGN) * 3.0e38 * 10.0
'''


def _infinite_first(x, y):
    expected = x.astype(np.float64)
    expected[0] = np.inf
    return expected


def test_an_infinity_in_the_reference_hides_no_error(write_module):
    kernel = write_module(INFINITIES).first_infinite
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    result = kernel.tune((4,), x, y, reference=_infinite_first, quiet=True, force=True)
    status = {(r["variant"]["BAD"], r["variant"]["SIGN"]): r["status"] for r in result.results}
    # Off by one everywhere but the infinity (BAD=2), a flipped infinity
    # (SIGN=2): wrong.
    assert status == {(1, 1): "ok", (2, 1): "wrong", (1, 2): "wrong", (2, 2): "wrong"}
    assert result.best == {"BAD": 1, "SIGN": 1}
    assert y[0] == np.inf and np.array_equal(y[1:], x[1:])


def test_a_reference_with_no_finite_element_is_refused(write_module):
    kernel = write_module(INFINITIES).first_infinite
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    with pytest.raises(PhobosError, match="--expect y: no element of the expected output is "
                       "finite"):
        kernel.tune((4,), x, y, reference=lambda x, y: np.full(x.shape, np.nan), quiet=True,
                    force=True)
    # NaN where the kernel writes a number is a mismatch: nothing passes.
    def nan_first(x, y):
        expected = _infinite_first(x, y)
        expected[1] = np.nan
        return expected
    with pytest.raises(PhobosError, match="no variant passed"):
        kernel.tune((4,), x, y, reference=nan_first, quiet=True, force=True)


def _nested(kind: str, depth: int) -> str:
    lines = ["kernel k(o: tensor<f32>[N]) {", "    var acc = 0.0"]
    for level in range(depth):
        head = f"for i{level} in range(0, 2) {{" if kind == "for" else "if acc < 1.0 {"
        lines.append("    " * (level + 1) + head)
    lines.append("    " * (depth + 1) + "acc = acc + 1.0")
    lines += ["    " * (level + 1) + "}" for level in reversed(range(depth))]
    return "\n".join(lines + ["    o[0] = acc", "}"]) + "\n"


@pytest.mark.parametrize("kind,fits,reason", [
    ("for", 20, "loops nest 21 deep here; Python compiles at most 20 nested loops in a "
                "function, so this kernel has no Python spelling"),
    ("if", 98, "blocks nest 99 deep here; Python allows at most 98 nested blocks in a "
               "function, so this kernel has no Python spelling"),
])
def test_ph2py_refuses_nesting_python_cannot_compile_at_its_place(kind, fits, reason):
    compile(convert(_nested(kind, fits), "deep.ph"), "deep.py", "exec")
    with pytest.raises(Ph2PyError) as error:
        convert(_nested(kind, fits + 1), "deep.ph")
    line = fits + 3  # the innermost statement's header
    assert str(error.value).startswith(f"deep.ph:{line}:")
    assert reason in str(error.value)
