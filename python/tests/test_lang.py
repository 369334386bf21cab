"""Every Python construct the front end accepts, the Phobos it spells, and
the constructs it refuses (at their line and column, with the reason)."""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import HEADER, tool_dir
import phobos.lang as ph
from phobos import KernelSyntaxError
from phobos._source import translate_source

EVERYTHING = HEADER + '''@ph.kernel
@ph.autotune(BM=[16], BN=[64, 32], B=[16, 64])
@ph.cluster(BM=[16])
@ph.launch(128, 2, 64)
@ph.pipeline
@ph.tensorcore(ph.tf32)
@ph.aligned(N="BN * 2", M=16)
def everything(X: ph.tensor[ph.f32][M, N], Y: ph.tensor[ph.f16][M, 64], W: ph.tensor[ph.bf16][BN],
               I: ph.tensor[ph.i32][M], J: ph.tensor[ph.i64][M], F: ph.tensor[ph.f64][M],
               P: ph.tensor[ph.bool][M], alpha: ph.f32, n: ph.i32, flag: ph.bool):
    """A docstring is dropped."""
    row: ph.let = ph.ctx.block.x * BM
    col: ph.let = ph.ctx.block.y + ph.ctx.block.z + ph.ctx.grid.x + ph.ctx.grid.y + ph.ctx.grid.z
    pid: ph.let = ph.program_id(0)
    acc: ph.var[ph.tile[ph.f32][BM, BN]] = 0.0
    count: ph.var = 0
    total: ph.var[ph.f32] = 1.5e-3
    x: ph.let = X[row:+BM, 0:+BN]
    whole: ph.let = Y[row:+BM, :]
    window: ph.let = X[row:row + 16, pid * 4:pid * 4 + 4]
    point: ph.let = X[row, 0]
    spine: ph.let = X[0:+BM * 2, 0:+BN]
    acc += ph.dot(ph.dot_t(x, x), ph.transpose(ph.transpose(x)))
    acc -= ph.exp(x) * ph.log(x) / ph.sqrt(x) - ph.rsqrt(x) + ph.tanh(x) + abs(x)
    acc += ph.exp2(x) - ph.log2(x)
    acc *= ph.tmax(x, ph.tmin(x, 0.0)) + ph.where(x < 0.0, x, -x)
    acc /= ph.rowmax(x) + ph.rowsum(x) + ph.rowmin(x) + ph.colmax(x) + ph.colsum(x) + ph.colmin(x)
    c: ph.let = ph.cumsum(x) + ph.tril(x) + ph.reshape(ph.arange(BN), 1, BN)
    h: ph.let[ph.f16] = ph.f16(alpha) + ph.bf16(1.0) + ph.f32(n) + ph.f64(2) + ph.i32(1.0) + ph.i64(n)
    b: ph.let = ph.bool(n)
    for i in range(0, n, 2):
        count += i % 3
    for k in range(n):
        count = count - k
    while count > 0 and not flag or n >= 2 and n <= 3:
        count -= 1
    if n == 1:
        total = 2.0
    elif n != 2:
        total = 3.0
    else:
        pass
    if (n < 1) == True and flag != False:
        total = -total
    X[row:+BM, 0:+BN] = acc
    I[0] = n
    P[0] = True
'''

EXPECTED = '''@autotune(BM in [16], BN in [64, 32], B in [16, 64])
@cluster(BM in [16])
@launch(128, 2, 64)
@pipeline
@tensorcore(tf32)
@aligned(N = BN * 2, M = 16)
kernel everything(X: tensor<f32>[M, N], Y: tensor<f16>[M, 64], W: tensor<bf16>[BN], I: tensor<i32>[M], J: tensor<i64>[M], F: tensor<f64>[M], P: tensor<bool>[M], alpha: f32, n: i32, flag: bool) {
    let row = ctx.block.x * BM
    let col = ctx.block.y + ctx.block.z + ctx.grid.x + ctx.grid.y + ctx.grid.z
    let pid = program_id(0)
    var acc: tile<f32>[BM, BN] = 0.0
    var count = 0
    var total: f32 = 1.5e-3
    let x = X[row :+ BM, 0 :+ BN]
    let whole = Y[row :+ BM, :]
    let window = X[row : row + 16, pid * 4 : pid * 4 + 4]
    let point = X[row, 0]
    let spine = X[0 :+ BM * 2, 0 :+ BN]
    acc += dot(dot_t(x, x), transpose(transpose(x)))
    acc -= exp(x) * log(x) / sqrt(x) - rsqrt(x) + tanh(x) + abs(x)
    acc += exp2(x) - log2(x)
    acc *= tmax(x, tmin(x, 0.0)) + where(x < 0.0, x, -x)
    acc /= rowmax(x) + rowsum(x) + rowmin(x) + colmax(x) + colsum(x) + colmin(x)
    let c = cumsum(x) + tril(x) + reshape(arange(BN), 1, BN)
    let h: f16 = f16(alpha) + bf16(1.0) + f32(n) + f64(2) + i32(1.0) + i64(n)
    let b = bool(n)
    for i in range(0, n, 2) {
        count += i % 3
    }
    for k in range(0, n) {
        count = count - k
    }
    while count > 0 && !flag || n >= 2 && n <= 3 {
        count -= 1
    }
    if n == 1 {
        total = 2.0
    } else if n != 2 {
        total = 3.0
    } else {
    }
    if n < 1 == true && flag != false {
        total = -total
    }
    X[row :+ BM, 0 :+ BN] = acc
    I[0] = n
    P[0] = true
}'''


def test_every_construct_spells_its_phobos(tmp_path):
    (translation,) = translate_source(EVERYTHING, "everything.py")
    assert translation.source == EXPECTED
    # ... and the compiler accepts that Phobos.
    path = tmp_path / "everything.ph"
    path.write_text(translation.source + "\n")
    result = subprocess.run([str(tool_dir() / "phobos-translate"), "--import-phobos", str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_imported_names_and_other_aliases():
    text = '''from __future__ import annotations
from phobos import lang as tl
from phobos.lang import kernel, dot, f32 as F32, tensor, let, ctx

@kernel
def k(a: tensor[F32][N, N], c: "tl.tensor[tl.f32][N, N]"):
    t: let = a[0:+16, 0:+16]
    c[ctx.block.x * 16:+16, 0:+16] = dot(t, tl.dot(t, t))
'''
    (translation,) = translate_source(text, "aliases.py")
    assert translation.source == '''kernel k(a: tensor<f32>[N, N], c: tensor<f32>[N, N]) {
    let t = a[0 :+ 16, 0 :+ 16]
    c[ctx.block.x * 16 :+ 16, 0 :+ 16] = dot(t, dot(t, t))
}'''


def test_module_constants_are_inlined_as_literals():
    text = '''from __future__ import annotations
import phobos.lang as ph
LOG2E = 1.4426950408889634
TINY = 1e-30
NEG = -0.5
BLOCK = 64
SHIFT = -3
CAUSAL = True
N = 7            # shadowed by the dim N
BR = 9           # shadowed by the @autotune name
OTHER = [1, 2]   # not a number: left to the compiler

@ph.kernel
@ph.autotune(BR=[16])
def k(a: ph.tensor[ph.f32][N], s: ph.f32):
    x: ph.let = a[0:+BLOCK] * LOG2E + TINY - NEG * s
    y: ph.let = ph.where(CAUSAL, SHIFT + N + BR, 0)
    a[0:+BR] = a[0:+BR] * OTHER
'''
    (translation,) = translate_source(text, "constants.py")
    assert translation.source == """@autotune(BR in [16])
kernel k(a: tensor<f32>[N], s: f32) {
    let x = a[0 :+ 64] * 1.4426950408889634 + 1.0e-30 - (-0.5) * s
    let y = where(true, (-3) + N + BR, 0)
    a[0 :+ BR] = a[0 :+ BR] * OTHER
}"""
    for value, reason in (("1e999", "'C' is inf; a float constant must be finite"),
                          ("2 ** 64", "'C' is 18446744073709551616, outside the range of i64")):
        bad = text.replace("OTHER = [1, 2]", f"C = {value}").replace("* OTHER", "* C")
        with pytest.raises(KernelSyntaxError, match=re.escape(reason)) as info:
            # As the kernel object sees it, with the module's values.
            translate_source(bad, "constants.py",
                             module_globals={"ph": ph, "C": eval(value)})
        assert "constants.py:18:" in str(info.value)


def test_the_kernel_object_comes_from_the_file(write_module):
    module = write_module(HEADER + '''@ph.kernel
def copy(a: ph.tensor[ph.f32][N], b: ph.tensor[ph.f32][N]):
    b[ph.ctx.block.x * 64:+64] = a[ph.ctx.block.x * 64:+64]
''')
    assert module.copy.name == "copy"
    assert "kernel copy(a: tensor<f32>[N], b: tensor<f32>[N]) {" in module.copy.source
    with pytest.raises(TypeError, match=r"copy\[grid\]"):
        module.copy(1, 2)


REFUSED = [
    ("    print(a)\n", 5, "call to an unknown function 'print'"),
    ("    x: ph.let = [v for v in a]\n", 17, "comprehensions"),
    ("    return 1\n", 5, "return nothing"),
    ("    x: ph.let = foo(a)\n", 17, "call to an unknown function 'foo'"),
    ("    x: ph.let = max(1, 2)\n", 17, "ph.tmax"),
    ("    x: ph.let = 1 if n else 2\n", 17, "ph.where"),
    ("    x: ph.let = 1 < n < 3\n", 23, "do not chain"),
    ("    x: ph.let = n // 2\n", 19, "floor division"),
    ("    x: ph.let = n ** 2\n", 19, "power"),
    ("    x: ph.let = n & 2\n", 19, "bitwise '&'"),
    ("    x: ph.let = a[1:]\n", 20, "open-ended"),
    ("    x: ph.let = a[0:8:2]\n", 23, "no step"),
    ("    y = 3\n", 5, "'y' is not declared"),
    ("    x: ph.let = 'text'\n", 17, "no strings"),
    ("    x: ph.let = +n\n", 17, "unary '+'"),
    ("    x: int = 3\n", 8, "ph.let"),
    ("    x: ph.let\n", 5, "needs a value"),
    ("    for i in [1, 2]:\n        pass\n", 14, "range"),
    ("    while n > 0: break\n", 18, "'break'"),
    ("    a[0], a[1] = 1.0, 2.0\n", 5, "tuple assignment"),
    ("    x: ph.let = n is None\n", 19, "'is'"),
    ("    x: ph.let = ph.ctx.thread.x\n", 17, "not a Phobos value"),
    ("    x: ph.let = ph.dot\n", 17, "not a value"),
    ("    n %= 2\n", 5, "'%='"),
    ("    import math\n", 5, "cannot import"),
    ("    x: ph.let = lambda: 1\n", 17, "lambdas"),
    ("    assert n > 0\n", 5, "assert"),
    ("    x: ph.let = ph.exp(a, axis=0)\n", 27, "keyword arguments"),
]


@pytest.mark.parametrize("body,col,reason", REFUSED, ids=[r[2] for r in REFUSED])
def test_refused_constructs_name_line_and_column(body, col, reason):
    text = HEADER + "@ph.kernel\ndef k(a: ph.tensor[ph.f32][N], n: ph.i32):\n" + body
    with pytest.raises(KernelSyntaxError) as error:
        translate_source(text, "bad.py")
    assert error.value.lineno == 8
    assert error.value.col == col, str(error.value)
    assert reason in error.value.reason
    message = str(error.value)
    assert message.startswith(f"bad.py:8:{col}: error: ")
    lines = message.splitlines()
    assert lines[1] == body.splitlines()[0]
    assert lines[2] == " " * (col - 1) + "^"


@pytest.mark.parametrize("decorators,reason", [
    ("@ph.kernel\n@ph.autotune(16)", "keywords"),
    ("@ph.kernel\n@ph.autotune(B=16)", "list of integer literals"),
    ("@ph.kernel\n@ph.launch(threads=256)", "positional"),
    ("@ph.kernel\n@ph.pipeline(2, 3)", "at most one argument"),
    ("@ph.kernel\n@ph.pipeline(STAGES)", "string holding"),
    ("@ph.kernel\n@ph.warp_specialize(1, 0)", "at most one argument"),
    ("@ph.kernel\n@ph.warp_specialize(WS)", "string holding"),
    ("@ph.kernel\n@ph.launch(TILE)", "string holding"),
    ("@ph.kernel\n@ph.launch(128, \"B\")", "integer literals"),
    ("@ph.kernel\n@ph.tensorcore(ph.f64)", "precision"),
    ("@ph.kernel\n@ph.aligned(M=TILE)", "string"),
    ("@ph.kernel\n@staticmethod", "not a Phobos attribute"),
    ("@ph.autotune(B=[16])", "not decorated with @ph.kernel"),
])
def test_refused_attributes(decorators, reason):
    text = HEADER + decorators + "\ndef k(a: ph.tensor[ph.f32][N]):\n    pass\n"
    with pytest.raises(KernelSyntaxError, match=reason):
        translate_source(text, "attrs.py", name="k")


def test_tuned_launch_and_pipeline():
    """The thread count and the stage count may be expressions of the
    @autotune names, passed as strings (the decorator's arguments run as
    Python, where the names do not exist)."""
    text = HEADER + (
        '@ph.kernel\n@ph.autotune(TILE_M=[64, 128], STAGES=[3, 1])\n'
        '@ph.launch("2 * TILE_M", 1)\n@ph.pipeline("STAGES")\n'
        'def k(a: ph.tensor[ph.f32][N]):\n    a[0] = 1.0\n')
    source = translate_source(text, "tuned.py", name="k")[0].source
    assert "@launch(2 * TILE_M, 1)" in source
    assert "@pipeline(STAGES)" in source
    fixed = translate_source(HEADER + "@ph.kernel\n@ph.pipeline(2)\ndef k(a: ph.tensor[ph.f32][N]):\n"
                             "    a[0] = 1.0\n", "fixed.py", name="k")[0].source
    assert "@pipeline(2)" in fixed


@pytest.mark.parametrize("name", ["warp_specialize", "persistent"])
def test_flag_attributes(name):
    """@ph.warp_specialize and @ph.persistent, bare, with 1 or 0, or with an
    expression of the @autotune names, spell @warp_specialize and
    @persistent."""
    tail = "def k(a: ph.tensor[ph.f32][N]):\n    a[0] = 1.0\n"
    bare = translate_source(HEADER + f"@ph.kernel\n@ph.pipeline\n@ph.{name}\n" + tail,
                            "ws.py", name="k")[0].source
    assert f"@{name}\n" in bare
    tuned = translate_source(HEADER + '@ph.kernel\n@ph.autotune(WS=[1, 2])\n@ph.pipeline\n'
                             f'@ph.{name}("WS - 1")\n' + tail, "ws.py", name="k")[0].source
    assert f"@{name}(WS - 1)" in tuned


@pytest.mark.parametrize("signature,reason", [
    ("a", "needs a type"),
    ("a: ph.tensor[ph.f32][N] = None", "no default"),
    ("*a: ph.f32", "plain positional"),
    ("a: ph.tensor[ph.u8][N]", "element type"),
    ("a: ph.tensor[ph.f32][N + 1]", "name or an integer literal"),
    ("a: list", "must be a tensor"),
])
def test_refused_signatures(signature, reason):
    text = HEADER + f"@ph.kernel\ndef k({signature}):\n    pass\n"
    with pytest.raises(KernelSyntaxError, match=reason):
        translate_source(text, "sig.py")


def test_a_kernel_without_a_source_file_is_an_error():
    import phobos.lang as ph
    namespace = {"ph": ph}
    with pytest.raises(KernelSyntaxError, match="cannot read the source"):
        exec(compile("@ph.kernel\ndef k(a: 'ph.f32'):\n    pass\n", "<nowhere>", "exec"), namespace)


def test_what_is_not_a_def_function_is_refused_where_it_is_decorated():
    """ph.kernel(print), a class or a partial: a KernelSyntaxError at the
    caller's line, not an AttributeError from inside the package."""
    import functools
    import inspect

    import phobos.lang as ph
    for target, what in ((print, "builtin_function_or_method 'print'"), (dict, "type 'dict'"),
                         (functools.partial(max, 1), "partial")):
        line = inspect.currentframe().f_lineno + 2
        with pytest.raises(KernelSyntaxError) as error:
            ph.kernel(target)
        assert (error.value.filename, error.value.lineno) == (__file__, line)
        assert error.value.reason.startswith("@ph.kernel takes a function written with 'def' "
                                             f"in a file, got {what}")


@pytest.mark.parametrize("depth", [200, 990])
def test_deep_attribute_chains_are_refused_at_their_place(write_module, depth):
    """A chain Python compiles but the translator would recurse through past
    Python's limit: refused where it goes too deep."""
    with pytest.raises(KernelSyntaxError) as error:
        write_module(HEADER + "@ph.kernel\ndef deep(X: ph.tensor[ph.f32][N]):\n"
                     "    X[0] = ph" + ".a" * depth + "\n")
    assert (error.value.lineno, error.value.col) == (8, 12)
    assert "nesting is deeper than the compiler allows (150 levels" in error.value.reason


@pytest.mark.parametrize("expression,reason", [
    ("1.0" + " + 1.0" * 100000, "nests too deeply for Python's parser"),
    ("(" * 5000 + "1.0" + ")" * 5000, "too many nested parentheses"),
])
def test_sources_too_deep_for_python_are_syntax_errors(expression, reason):
    text = HEADER + "@ph.kernel\ndef deep(X: ph.tensor[ph.f32][N]):\n    X[0] = " + expression + "\n"
    with pytest.raises(KernelSyntaxError, match=reason):
        translate_source(text, "deep.py")


def test_language_names_do_nothing_in_python():
    import phobos.lang as ph
    with pytest.raises(RuntimeError, match="only\\s+inside a @ph.kernel"):
        ph.dot(1, 2)
    def f():
        pass
    assert ph.autotune(B=[1])(f) is f
    assert ph.pipeline(f) is f
