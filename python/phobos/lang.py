"""The Phobos language, spelled in Python: ``import phobos.lang as ph``.

A function decorated with :func:`kernel` is a Phobos kernel. The package reads
its source with :mod:`ast` and never runs it, so nothing in this module does
anything when called from ordinary Python: the names here exist so that the
decorators, annotations and built-ins of a kernel resolve, and so that editors
and linters know them. docs/python.md has the full spelling table.
"""

from __future__ import annotations

import builtins
import sys
from typing import Any, Callable

from phobos import _names
from phobos._kernel import Kernel
# The language's objects live in _names, which the front end reads without
# depending on this module (this one depends on the kernel object, and so on
# the front end).
from phobos._names import (  # noqa: F401 - re-exported
    ScalarType, abs, aligned, arange, atomic_add, autotune, bf16, bool, cluster, colmax, colmin,
    colsum, ctx, cumsum, dot, dot_t, exp, exp2, f16, f32, f64, i32, i64, launch, let, log, log2,
    persistent, pipeline, program_id, reshape, rowmax, rowmin, rowsum, rsqrt, sqrt, tanh, tensor, tensorcore,
    tf32, tile, tmax, tmin, transpose, tril, var, warp_specialize, where)

__all__ = [
    # decorators
    "kernel", "autotune", "cluster", "launch", "pipeline", "warp_specialize", "persistent",
    "tensorcore", "aligned",
    # types
    "tensor", "tile", "f16", "bf16", "f32", "f64", "i32", "i64", "bool", "tf32",
    # declarations
    "let", "var",
    # context values
    "ctx", "program_id",
    # built-ins
    "dot", "dot_t", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "abs", "tmax", "tmin",
    "where",
    "rowmax", "rowsum", "rowmin", "colmax", "colsum", "colmin", "cumsum", "tril",
    "transpose", "arange", "reshape", "atomic_add",
]


def kernel(function: Callable[..., Any] | None = None, *, lineinfo: builtins.bool = True) -> Any:
    """Makes ``function`` a Phobos kernel: reads its source, checks that every
    construct spells Phobos, and returns a :class:`phobos.Kernel` that prints
    its Phobos (``.source``) and launches with ``kernel[grid](*args)``.
    ``@ph.kernel(lineinfo=False)`` compiles it without line info (the PTX's
    .file/.loc at the Python lines; ``Kernel.lineinfo``)."""
    if function is None:
        return lambda decorated: kernel(decorated, lineinfo=lineinfo)
    made = function if isinstance(function, Kernel) else Kernel.from_function(function)
    if not lineinfo:
        made.lineinfo = False
    return made


_names.register(kernel, ("kernel", "kernel"))
_names.register(sys.modules[__name__], ("module", ""))
