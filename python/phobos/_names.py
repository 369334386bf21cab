"""The objects of the Phobos language, as ``phobos.lang`` spells them.

``phobos.lang`` re-exports every name here and adds ``kernel``; the front end
(``_frontend``) recognises these objects in a kernel's module by their
identity (``kinds``), so it needs this module and not ``phobos.lang``, which
depends on the kernel object and so, through it, on the front end.
"""

from __future__ import annotations

import builtins
import inspect
from typing import Any

#: The built-in functions of the language, by their phobos.lang names.
BUILTINS = ("program_id", "dot", "dot_t", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh",
            "abs", "tmax", "tmin", "where", "rowmax", "rowsum", "rowmin", "colmax", "colsum", "colmin", "cumsum",
            "tril", "transpose", "arange", "reshape", "atomic_add")
#: Built-ins called as statements, for what they do to a tensor.
EFFECT_BUILTINS = ("atomic_add",)
SCALAR_TYPES = ("f16", "bf16", "f32", "f64", "i32", "i64", "bool")
#: Keywords of @ph.autotune that say how to search, not what: lowercase,
#: so that they never clash with a dimension's name.
TUNE_OPTIONS = ("search", "reference", "rtol", "warmup", "rep", "init")
ATTRIBUTES = ("autotune", "cluster", "launch", "pipeline", "warp_specialize", "persistent",
              "tensorcore", "aligned")


class _LanguageName:
    """A name of the language; meaningful only inside a kernel."""

    __slots__ = ("phobos_name", "kind")

    def __init__(self, phobos_name: str, kind: str) -> None:
        self.phobos_name = phobos_name
        self.kind = kind

    def __repr__(self) -> str:
        return f"ph.{self.phobos_name}"

    def _outside(self) -> Any:
        raise RuntimeError(
            f"ph.{self.phobos_name} is part of the Phobos language: it has a meaning only "
            "inside a @ph.kernel function, which the package reads and never runs")


class _Builtin(_LanguageName):
    def __init__(self, phobos_name: str) -> None:
        super().__init__(phobos_name, "builtin")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._outside()


class ScalarType(_LanguageName):
    """An element type (``ph.f32``); called, it is a cast (``ph.f16(x)``)."""

    def __init__(self, phobos_name: str) -> None:
        super().__init__(phobos_name, "scalar")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._outside()


class _Shaped:
    """``ph.tensor[ph.f32][M, N]``: subscriptable so that evaluated annotations work."""

    __slots__ = ("phobos_name", "element", "dims")

    def __init__(self, phobos_name: str, element: Any = None, dims: Any = None) -> None:
        self.phobos_name = phobos_name
        self.element = element
        self.dims = dims

    def __getitem__(self, item: Any) -> "_Shaped":
        if self.element is None:
            return _Shaped(self.phobos_name, item)
        return _Shaped(self.phobos_name, self.element, item)

    def __repr__(self) -> str:
        text = f"ph.{self.phobos_name}"
        if self.element is not None:
            text += f"[{self.element!r}]"
        if self.dims is not None:
            text += f"[{self.dims!r}]"
        return text


class _Declaration:
    """``ph.let`` / ``ph.var``, optionally typed: ``ph.var[ph.f32]``."""

    __slots__ = ("phobos_name", "type")

    def __init__(self, phobos_name: str, type: Any = None) -> None:
        self.phobos_name = phobos_name
        self.type = type

    def __getitem__(self, item: Any) -> "_Declaration":
        return _Declaration(self.phobos_name, item)

    def __repr__(self) -> str:
        return f"ph.{self.phobos_name}" + (f"[{self.type!r}]" if self.type is not None else "")


class _Axes:
    __slots__ = ("x", "y", "z")

    def __init__(self, what: str) -> None:
        self.x = _LanguageName(f"ctx.{what}.x", "context")
        self.y = _LanguageName(f"ctx.{what}.y", "context")
        self.z = _LanguageName(f"ctx.{what}.z", "context")


class _Context:
    """``ph.ctx.block.x`` (this CTA's index) and ``ph.ctx.grid.x`` (the grid's extent)."""

    __slots__ = ("block", "grid")

    def __init__(self) -> None:
        self.block = _Axes("block")
        self.grid = _Axes("grid")

    def __repr__(self) -> str:
        return "ph.ctx"


# Types.
tensor = _Shaped("tensor")
tile = _Shaped("tile")
f16 = ScalarType("f16")
bf16 = ScalarType("bf16")
f32 = ScalarType("f32")
f64 = ScalarType("f64")
i32 = ScalarType("i32")
i64 = ScalarType("i64")
bool = ScalarType("bool")  # noqa: A001 - the language's name for the type
#: The precision of ``@ph.tensorcore(ph.tf32)``.
tf32 = _LanguageName("tf32", "precision")

let = _Declaration("let")
var = _Declaration("var")
ctx = _Context()

program_id = _Builtin("program_id")
dot = _Builtin("dot")
dot_t = _Builtin("dot_t")
exp = _Builtin("exp")
exp2 = _Builtin("exp2")
log = _Builtin("log")
log2 = _Builtin("log2")
sqrt = _Builtin("sqrt")
rsqrt = _Builtin("rsqrt")
tanh = _Builtin("tanh")
abs = _Builtin("abs")  # noqa: A001
tmax = _Builtin("tmax")
tmin = _Builtin("tmin")
where = _Builtin("where")
rowmax = _Builtin("rowmax")
rowsum = _Builtin("rowsum")
rowmin = _Builtin("rowmin")
colmax = _Builtin("colmax")
colsum = _Builtin("colsum")
colmin = _Builtin("colmin")
cumsum = _Builtin("cumsum")
tril = _Builtin("tril")
transpose = _Builtin("transpose")
arange = _Builtin("arange")
reshape = _Builtin("reshape")
#: ``ph.atomic_add(T[s:+n], v)``: a statement; adds ``v`` to the slice, each
#: element atomically (f32, f64, i32, i64 tensors).
atomic_add = _Builtin("atomic_add")


def _is_kernel(target: Any) -> builtins.bool:
    """A phobos.Kernel (whose class says so; this module cannot import it)."""
    return getattr(type(target), "__phobos_kernel__", False) is True


def _is_decorated(target: Any) -> builtins.bool:
    return inspect.isfunction(target) or _is_kernel(target)



class _Attribute:
    """A kernel attribute. The package reads the decorator from the source, so
    applying one changes nothing at run time: it returns what it decorates."""

    def __init__(self, phobos_name: str, bare: builtins.bool) -> None:
        self.phobos_name = phobos_name
        self.bare = bare  # usable without parentheses (@ph.pipeline)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.bare and len(args) == 1 and not kwargs and _is_decorated(args[0]):
            return args[0]
        return _identity

    def __repr__(self) -> str:
        return f"ph.{self.phobos_name}"


def _identity(target: Any) -> Any:
    return target


class _Autotune(_Attribute):
    """``@ph.autotune(BLOCK=[16, 8192])``: one search dimension per keyword.

    Lowercase keywords say how to search instead (they are read when the
    decorator runs, not from the source): ``search=True`` searches the space
    at the first launch of each problem shape (checking against the
    interpreter on a small problem), ``reference=fn`` also searches and
    checks against ``fn`` (a function of the arguments, as float64 NumPy
    arrays, returning the expected outputs); ``rtol``, ``warmup``, ``rep``
    and ``init`` are passed to :meth:`phobos.Kernel.tune`.
    """

    OPTIONS = TUNE_OPTIONS

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        options = {k: v for k, v in kwargs.items() if k in self.OPTIONS}
        if not options:
            return _identity

        def attach(target: Any) -> Any:
            if _is_kernel(target):
                target.tune_options.update(options)
            else:
                target.__phobos_tune_options__ = options
            return target
        return attach


autotune = _Autotune("autotune", bare=False)
#: ``@ph.cluster(BR=[1024, 4096])``: super-tile sizes for the cluster path.
cluster = _Attribute("cluster", bare=False)
#: ``@ph.launch(256[, min_blocks[, max_regs]])``: CTA size and PTX bounds.
launch = _Attribute("launch", bare=False)
#: ``@ph.pipeline``: software-pipeline the main loop's loads.
pipeline = _Attribute("pipeline", bare=True)
#: ``@ph.warp_specialize`` or ``@ph.warp_specialize("WS")``: a producer
#: warpgroup issues the pipeline's TMA copies (sm_90a).
warp_specialize = _Attribute("warp_specialize", bare=True)
#: ``@ph.persistent`` or ``@ph.persistent("P")``: as many CTAs as the GPU
#: holds at once loop over the grid's tiles.
persistent = _Attribute("persistent", bare=True)
#: ``@ph.tensorcore`` or ``@ph.tensorcore(ph.tf32)``: dots on tensor cores.
tensorcore = _Attribute("tensorcore", bare=True)
#: ``@ph.aligned(M="TILE_M")``: a promise that dim M is a multiple of TILE_M.
aligned = _Attribute("aligned", bare=False)


# -- what the front end recognises ------------------------------------------------------

#: id(object) -> (kind, Phobos name) for every object of the language, and
#: the Python built-ins a kernel may use; phobos.lang adds itself and kernel.
_KINDS: dict[int, tuple[str, str]] = {}


def register(obj: Any, kind: tuple[str, str]) -> None:
    """Makes the front end read ``obj`` as ``kind`` (phobos.lang's own names)."""
    _KINDS[id(obj)] = kind


def kinds() -> dict[int, tuple[str, str]]:
    """What the front end reads each object of the language as, by identity."""
    return _KINDS


for _name in BUILTINS:
    register(globals()[_name], ("builtin", _name))
for _name in SCALAR_TYPES:
    register(globals()[_name], ("scalar", _name))
for _name in ATTRIBUTES:
    register(globals()[_name], ("attribute", _name))
for _name in ("tensor", "tile"):
    register(globals()[_name], ("shaped", _name))
for _name in ("let", "var"):
    register(globals()[_name], ("decl", _name))
register(ctx, ("ctx", "ctx"))
for _what in ("block", "grid"):
    register(getattr(ctx, _what), ("ctx_axes", f"ctx.{_what}"))
    for _axis in "xyz":
        register(getattr(getattr(ctx, _what), _axis), ("ctx_value", f"ctx.{_what}.{_axis}"))
register(tf32, ("precision", "tf32"))
register(builtins.range, ("range", "range"))
register(builtins.abs, ("builtin", "abs"))
del _name, _what, _axis
