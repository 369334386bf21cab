"""Random valid Phobos kernels for differential testing, and their reduction.

A generated kernel runs as a 2-D grid of CTAs over [M, N] outputs (or a 1-D
one over [N]) with ragged launch dims, @autotune tile sizes and, at random,
@aligned, @launch and @tensorcore. Its body mixes element-wise arithmetic
with two-sided broadcasts, casts between f32/f16/bf16/i32, reductions,
scans, transposes, dots in K loops, counted loops, while loops and ifs.

Programs are well defined on both backends: no integer division by zero, no
out-of-range scalar access, float divisors and logarithms kept away from
zero, exp clamped, and no value whose bits may differ between the GPU and
the interpreter (a float sum, say) decides a comparison or a float-to-int
cast. Every CTA writes its own block of every output, so there are no races
between CTAs.

At random (from a stream of its own), a 1-D program also updates a tensor in
place with slices that overlap from one statement to the next inside the
CTA's own region (docs/language.md, "The memory model": a statement reads
its whole right-hand side, then stores, and sees the CTA's earlier stores),
and a program is launched with an explicit grid a little smaller or larger
than the tiles need (elements no CTA writes stay poisoned on both backends;
CTAs past the tensor store nothing).

The program is kept as a tree (Program, statements, Expr) so that a failing
program can be reduced: statements dropped or unwrapped, expressions
replaced by a same-typed operand or a constant, dims and the variant
shrunk (see `reductions`).

At random, a program also writes float constants as literals that round
differently through a double (HARD_LITERALS), computes infinities
(INFINITY_TEXT) and reads i64 scalars near the ends of their range
(I64_BIAS), each from its own random stream.

Only the Python standard library is used: the GPU machine has no extra
packages.
"""
from __future__ import annotations

import copy
import dataclasses
import random
from typing import Iterator, Optional

FLOATS = ("f32", "f16", "bf16")
INTS = ("i32",)
WIDTH = {"f16": 16, "bf16": 16, "f32": 32}

# A symbolic tile shape is a tuple of 'BM', 'BN', 'BK', 'BLOCK' or 1.
Shape = tuple

# The float constants leaf() picks, written (in programs that ask for them)
# just above the midpoint between the constant and the next f32: the
# nearest double is that midpoint, which rounds to even (the constant
# itself) on a second rounding, while the literal's nearest f32 is the next
# one. A front end that rounds through a double computes other values.
HARD_LITERALS = {0.5: "0.50000002980232238769531250001",
                 0.25: "0.250000014901161193847656250001",
                 1.5: "1.5000000596046447753906250001",
                 2.0: "2.0000001192092895507812500001",
                 3.0: "3.0000001192092895507812500001",
                 0.75: "0.7500000298023223876953125001"}
# An infinity the kernel computes (f32 overflow), for outputs and the
# interpreter's reference that hold infinities and NaNs.
INFINITY_TEXT = "(3.0e38 * 4.0)"
# i64 scalars near the ends of their range, passed with --scalar and used
# as i32(s - BIAS) or i32(s + BIAS): exact only if every tool keeps all 64
# bits (a double keeps 53).
I64_BIAS = 9223372036854775000


def broadcast(a: Shape, b: Shape) -> Optional[Shape]:
    """NumPy broadcasting of two symbolic shapes; None when they clash.

    Symbols are treated as distinct extents (they differ in some variant).
    """
    rank = max(len(a), len(b))
    out = []
    for k in range(rank):
        x = a[len(a) - 1 - k] if k < len(a) else 1
        y = b[len(b) - 1 - k] if k < len(b) else 1
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def promote(a: str, b: str) -> str:
    """The language's promotion of two element types (docs/language.md §5)."""
    if a == b:
        return a
    if a == "bool" or b == "bool":
        raise ValueError("bool mixes only with bool")
    if a in INTS and b in INTS:
        return "i32"
    if a in INTS:
        return b
    if b in INTS:
        return a
    if {a, b} == {"f16", "bf16"}:
        return "f32"
    return a if WIDTH[a] >= WIDTH[b] else b


def type_text(dtype: str, shape: Shape) -> str:
    if not shape:
        return dtype
    return f"tile<{dtype}>[{', '.join(str(d) for d in shape)}]"


@dataclasses.dataclass
class Expr:
    """An expression: `fmt` is its text with {0}, {1}, ... for its kids."""
    fmt: str
    dtype: str
    shape: Shape
    exact: bool
    kids: list = dataclasses.field(default_factory=list)

    def render(self) -> str:
        return self.fmt.format(*(k.render() for k in self.kids))

    def walk(self) -> Iterator["Expr"]:
        yield self
        for kid in self.kids:
            yield from kid.walk()


def const(dtype: str, shape: Shape = (), value: float = 0.0) -> Expr:
    """A constant of `dtype` (a scalar: it fills any tile it meets)."""
    if dtype == "bool":
        return Expr("true" if value else "false", "bool", (), True)
    if dtype in INTS:
        text = str(int(value))
        return Expr(text if value >= 0 else f"(0 - {-int(value)})", dtype, (), True)
    text = repr(float(value))
    if value < 0:
        text = f"(0.0 - {repr(-float(value))})"
    if dtype == "f32":
        return Expr(text, "f32", (), True)
    return Expr(f"{dtype}({text})", dtype, (), True)


@dataclasses.dataclass
class Param:
    name: str
    kind: str          # 'tensor' or 'scalar'
    dtype: str
    dims: tuple = ()   # tensors: dim names or literals
    written: bool = False


@dataclasses.dataclass
class Stmt:
    """A statement; `fmt` lines with {0}, {1}, ... for its expressions, and
    nested statement blocks in `blocks` (rendered where '{BLOCK0}' etc.
    stand alone on a line)."""
    lines: list
    exprs: list = dataclasses.field(default_factory=list)
    blocks: list = dataclasses.field(default_factory=list)
    defines: tuple = ()
    # Target types of the expressions (what a replacement must convert to).
    targets: list = dataclasses.field(default_factory=list)

    def render(self, indent: str) -> list[str]:
        out: list[str] = []
        texts = [e.render() for e in self.exprs]
        for line in self.lines:
            stripped = line.strip()
            if stripped.startswith("{BLOCK") and stripped.endswith("}"):
                index = int(stripped[len("{BLOCK"):-1])
                for stmt in self.blocks[index]:
                    out += stmt.render(indent + "    ")
            else:
                out.append(indent + line.format(*texts))
        return out


@dataclasses.dataclass
class Program:
    name: str
    rank: int                     # 1 or 2
    params: list
    body: list
    autotune: dict                # name -> written list of values
    attrs: list                   # other attribute lines
    dims: dict                    # launch dim -> value
    variant: dict                 # chosen value of each @autotune name
    scalars: dict                 # scalar param -> value text
    seed: int = 0
    grid: Optional[tuple] = None  # an explicit --grid, else the tile grid

    def render(self) -> str:
        lines = [f"// generated by tools/phobos-difffuzz (seed {self.seed})"]
        if self.grid is not None:
            lines.append(f"// launched with --grid={','.join(str(e) for e in self.grid)}")
        if self.autotune:
            parts = [f"{n} in [{', '.join(str(v) for v in vs)}]"
                     for n, vs in self.autotune.items()]
            lines.append(f"@autotune({', '.join(parts)})")
        lines += self.attrs
        params = []
        for p in self.params:
            if p.kind == "tensor":
                params.append(f"{p.name}: tensor<{p.dtype}>[{', '.join(str(d) for d in p.dims)}]")
            else:
                params.append(f"{p.name}: {p.dtype}")
        lines.append(f"kernel {self.name}({', '.join(params)}) {{")
        for stmt in self.body:
            lines += stmt.render("    ")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def used_params(self) -> list[Param]:
        """Parameters the body mentions (others can be dropped)."""
        text = "\n".join(line for s in self.body for line in s.render(""))
        return [p for p in self.params if _mentions(text, p.name)]

    def launch_dims(self) -> dict:
        """The launch dims some tensor parameter names, with their values."""
        names = {d for p in self.params if p.kind == "tensor" for d in p.dims
                 if isinstance(d, str) and d not in self.autotune}
        return {d: v for d, v in self.dims.items() if d in names}

    def outputs(self) -> list[Param]:
        return [p for p in self.params if p.written]

    def dtypes(self) -> set:
        """Every element type the program computes in."""
        found = {p.dtype for p in self.params}
        for stmt in _all_stmts(self.body):
            for e in stmt.exprs:
                found |= {x.dtype for x in e.walk()}
        for line in self.attrs:
            if line.startswith("@tensorcore"):
                found.add("bf16" if "bf16" in line else "f16" if "tf32" not in line else "f32")
        return found - {"bool"}

    def tolerance(self) -> float:
        """Largest accepted normwise relative error of an output."""
        kinds = self.dtypes()
        if "bf16" in kinds:
            return 6e-2
        if "f16" in kinds:
            return 2e-2
        if "f32" in kinds:
            # The GPU's tanh is tanh.approx.f32 (relative error about 2^-11).
            text = "\n".join(line for s in self.body for line in s.render(""))
            return 1e-3 if _mentions(text, "tanh") else 2e-4
        return 0.0


def _mentions(text: str, name: str) -> bool:
    import re
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def _all_stmts(block: list) -> Iterator[Stmt]:
    for stmt in block:
        yield stmt
        for inner in stmt.blocks:
            yield from _all_stmts(inner)


# ----------------------------------------------------------------------------
# Generation
# ----------------------------------------------------------------------------

class Generator:
    """Builds one random program from a seed."""

    def __init__(self, seed: int, max_depth: int = 3):
        self.seed = seed
        self.rng = random.Random(seed)
        self.max_depth = max_depth
        self.counter = 0
        # Values in scope: (name, dtype, shape, exact).
        self.scope: list[tuple[str, str, Shape, bool]] = []
        self.inputs: dict[str, Param] = {}
        self.loop_vars: list[str] = []
        self.single_cta = False
        # Rarer features draw from their own stream, so that the programs
        # of seeds that do not use them stay as they were.
        self.extra = random.Random(f"extra-{seed}")
        self.hard_literals = self.extra.random() < 0.3
        self.infinities = self.extra.random() < 0.1
        self.i64_extremes = self.extra.random() < 0.15
        self.overlap = random.Random(f"overlap-{seed}")
        # exp2 and log2 in place of half the exps and logs.
        self.base2 = random.Random(f"base2-{seed}")
        self.in_place = self.overlap.random() < 0.6
        self.explicit_grid = self.overlap.random() < 0.2
        # Scalar parameters with a chosen value (text for --scalar).
        self.scalar_values: dict[str, str] = {}

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # --- parameters ---------------------------------------------------------

    def tensor(self, role: str, dtype: Optional[str] = None) -> Param:
        """An input tensor of a role: 'mn' [M, N], 'nm' [N, M], 'm' [M],
        'n' [N], 'mk' [M, K], 'kn' [K, N], 'nk' [N, K]; reused at random."""
        existing = [p for p in self.inputs.values() if p.name.startswith(role + "_")]
        if existing and self.rng.random() < 0.5:
            return self.rng.choice(existing)
        if dtype is None:
            dtype = self.rng.choice(("f32", "f32", "f16", "bf16", "i32"))
        dims = {"mn": ("M", "N"), "nm": ("N", "M"), "m": ("M",), "n": ("N",),
                "mk": ("M", "K"), "kn": ("K", "N"), "nk": ("N", "K")}[role]
        if self.rank == 1:
            dims = {"n": ("N",)}.get(role, ("N",))
        param = Param(f"{role}_{len(self.inputs)}", "tensor", dtype, dims)
        self.inputs[param.name] = param
        return param

    def scalar_param(self, dtype: str) -> Param:
        existing = [p for p in self.inputs.values() if p.kind == "scalar" and p.dtype == dtype]
        if existing and self.rng.random() < 0.6:
            return existing[0]
        name = f"s{'f' if dtype in FLOATS else 'i'}_{len(self.inputs)}"
        param = Param(name, "scalar", dtype)
        self.inputs[name] = param
        return param

    # --- expressions --------------------------------------------------------

    def leaf(self, shape: Shape, kind: str) -> Expr:
        """A value of exactly `shape` whose element type is of `kind`
        ('float', 'int' or 'any')."""
        r = self.rng
        candidates = [v for v in self.scope if v[2] == shape and
                      (kind == "any" or (v[1] in FLOATS) == (kind == "float"))]
        if candidates and r.random() < 0.45:
            name, dtype, _, exact = r.choice(candidates)
            return Expr(name, dtype, shape, exact)
        want_int = kind == "int" or (kind == "any" and r.random() < 0.2)
        dtype = None if kind == "any" else ("i32" if want_int else r.choice(FLOATS))
        if shape == ():
            choice = r.random()
            if choice < 0.3:
                p = self.scalar_param("i32" if want_int else "f32")
                return Expr(p.name, p.dtype, (), True)
            if choice < 0.5:
                t = self.tensor("mn" if self.rank == 2 else "n", dtype)
                index = "0, 0" if self.rank == 2 else "0"
                return self.fix_kind(Expr(f"{t.name}[{index}]", t.dtype, (), True), kind)
            if choice < 0.65 and want_int and not self.single_cta:
                axis = "x" if r.random() < 0.6 or self.rank == 1 else "y"
                return Expr(f"ctx.block.{axis}", "i32", (), True)
            if want_int:
                if self.i64_extremes and self.extra.random() < 0.5:
                    return self.i64_extreme()
                return const("i32", (), r.choice((1, 2, 3, -4, 7)))
            dtype = r.choice(("f32", "f32", "f16", "bf16"))
            value = r.choice((0.5, 0.25, 1.5, -2.0, 3.0, -0.75))
            if self.infinities and self.extra.random() < 0.5:
                sign = "" if self.extra.random() < 0.5 else "0.0 - "
                text = f"({sign}{INFINITY_TEXT})"
                return Expr(text if dtype == "f32" else f"{dtype}({text})", dtype, (), True)
            if self.hard_literals:
                text = HARD_LITERALS[abs(value)]
                text = text if value > 0 else f"(0.0 - {text})"
                return Expr(text if dtype == "f32" else f"{dtype}({text})", dtype, (), True)
            return const(dtype, (), value)
        if want_int and r.random() < 0.4:
            return self.iota(shape)
        if self.rank == 1:
            t = self.tensor("n", dtype)
            e = Expr(f"{t.name}[base :+ BLOCK]", t.dtype, ("BLOCK",), True)
            return self.fix_kind(e, kind)
        if shape == ("BM", "BN"):
            if r.random() < 0.2:
                t = self.tensor("nm", dtype)
                e = Expr(f"transpose({t.name}[col :+ BN, row :+ BM])", t.dtype, shape, True)
            else:
                t = self.tensor("mn", dtype)
                e = Expr(f"{t.name}[row :+ BM, col :+ BN]", t.dtype, shape, True)
        elif shape == ("BM", 1):
            t = self.tensor("m", dtype)
            e = Expr(f"reshape({t.name}[row :+ BM], BM, 1)", t.dtype, shape, True)
        elif shape == (1, "BN"):
            t = self.tensor("n", dtype)
            e = Expr(f"reshape({t.name}[col :+ BN], 1, BN)", t.dtype, shape, True)
        elif shape == ("BN",):
            t = self.tensor("n", dtype)
            e = Expr(f"{t.name}[col :+ BN]", t.dtype, shape, True)
        else:
            raise AssertionError(shape)
        return self.fix_kind(e, kind)

    def i64_extreme(self) -> Expr:
        """A small i32 from an i64 scalar near 2^63 or -2^63."""
        name = f"sl_{len(self.inputs)}"
        self.inputs[name] = Param(name, "scalar", "i64")
        offset = self.extra.randint(-5, 7)
        if self.extra.random() < 0.5:
            self.scalar_values[name] = str(I64_BIAS + offset)
            return Expr(f"i32({name} - {I64_BIAS})", "i32", (), True)
        self.scalar_values[name] = str(-I64_BIAS - offset)
        return Expr(f"i32({name} + {I64_BIAS})", "i32", (), True)

    def fix_kind(self, e: Expr, kind: str) -> Expr:
        if kind == "float" and e.dtype not in FLOATS:
            return Expr("f32({0})", "f32", e.shape, e.exact, [e])
        if kind == "int" and e.dtype in FLOATS:
            # Exact loads truncate the same way everywhere; scale first so
            # that the integers are not all zero.
            return Expr("i32({0} * 8.0)", "i32", e.shape, e.exact, [e])
        return e

    def iota(self, shape: Shape) -> Expr:
        if self.rank == 1:
            return Expr("(base + arange(BLOCK))", "i32", ("BLOCK",), True)
        if shape == ("BM", "BN") or shape == ("BN",):
            e = Expr("(col + arange(BN))", "i32", ("BN",), True)
            if shape == ("BN",):
                return e
            return Expr("({0} + reshape(row + arange(BM), BM, 1) * 3)", "i32", shape, True, [e])
        if shape == ("BM", 1):
            return Expr("reshape(row + arange(BM), BM, 1)", "i32", shape, True)
        if shape == (1, "BN"):
            return Expr("reshape(col + arange(BN), 1, BN)", "i32", shape, True)
        return const("i32", (), 5)

    def operand_shapes(self, shape: Shape) -> list[tuple[Shape, Shape]]:
        pool = {2: [("BM", "BN"), ("BM", 1), (1, "BN"), ("BN",), ()],
                1: [("BLOCK",), ()]}[self.rank]
        return [(a, b) for a in pool for b in pool if broadcast(a, b) == shape]

    def cond(self, shape: Shape, depth: int) -> Expr:
        """A bool value of `shape` whose bits agree on every backend."""
        r = self.rng
        a_shape, b_shape = r.choice(self.operand_shapes(shape))
        kind = r.choice(("float", "int"))
        for _ in range(6):
            a = self.expr(a_shape, depth + 1, kind)
            if a.exact:
                break
        else:
            a = self.leaf(a_shape, kind)
        b = self.leaf(b_shape, kind) if r.random() < 0.5 else \
            (const("f32", (), r.choice((0.0, 0.25, -0.5))) if kind == "float" else
             const("i32", (), r.choice((0, 1, -3))))
        if not b.exact:
            b = const("i32" if kind == "int" else "f32", (), 0)
        op = r.choice(("<", "<=", ">", ">=", "==", "!="))
        c = Expr(f"({{0}} {op} {{1}})", "bool", broadcast(a.shape, b.shape), True, [a, b])
        if r.random() < 0.2:
            d = self.cond(shape, depth + 1) if depth < self.max_depth else c
            c = Expr(f"({{0}} {r.choice(('&&', '||'))} {{1}})", "bool",
                     broadcast(c.shape, d.shape), True, [c, d])
        return c

    def expr(self, shape: Shape, depth: int = 0, kind: str = "any") -> Expr:
        """A random expression of exactly `shape` and element kind `kind`."""
        r = self.rng
        if depth >= self.max_depth or r.random() < 0.25:
            return self.leaf(shape, kind)
        choice = r.random()
        if choice < 0.40:
            a_shape, b_shape = r.choice(self.operand_shapes(shape))
            a = self.expr(a_shape, depth + 1, kind)
            if kind == "int" or (a.dtype in INTS and kind == "any" and r.random() < 0.5):
                b_kind = "int"
            elif kind == "float" or a.dtype in FLOATS:
                b_kind = "float" if r.random() < 0.8 else "int"
            else:
                b_kind = kind
            b = self.expr(b_shape, depth + 1, b_kind)
            dtype = promote(a.dtype, b.dtype)
            ops = ["+", "-", "*", "tmax", "tmin", "/"] + (["%"] if dtype in INTS else [])
            op = r.choice(ops)
            exact = a.exact and b.exact and (dtype in INTS or op in ("tmax", "tmin"))
            if op in ("tmax", "tmin"):
                return Expr(f"{op}({{0}}, {{1}})", dtype, shape, exact, [a, b])
            if op == "/" and dtype in FLOATS:
                return Expr("({0} / (abs({1}) + 1.0))", promote(dtype, "f32"), shape, False, [a, b])
            if op in ("/", "%"):
                # A constant divisor: never zero, never minimum / -1.
                if a.shape != shape:
                    a = self.expr(shape, depth + 1, "int")
                d = const("i32", (), r.choice((3, 5, -7, 16)))
                return Expr(f"({{0}} {op} {{1}})", a.dtype, shape, a.exact, [a, d])
            return Expr(f"({{0}} {op} {{1}})", dtype, shape, exact, [a, b])
        if choice < 0.55:
            a = self.expr(shape, depth + 1, kind)
            if a.dtype in INTS:
                op = r.choice(("neg", "abs"))
                fmt = "(-{0})" if op == "neg" else "abs({0})"
                return Expr(fmt, a.dtype, shape, a.exact, [a])
            op = r.choice(("neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh"))
            if op in ("exp", "log") and self.base2.random() < 0.5:
                op += "2"
            fmt = {"neg": "(-{0})", "abs": "abs({0})",
                   "exp": "exp(tmax(tmin({0}, 4.0), -8.0))",
                   "exp2": "exp2(tmax(tmin({0}, 6.0), -12.0))",
                   "log": "log(abs({0}) + 1.0)", "log2": "log2(abs({0}) + 1.0)",
                   "sqrt": "sqrt(abs({0}))",
                   "rsqrt": "rsqrt(abs({0}) + 1.0)", "tanh": "tanh({0})"}[op]
            dtype = a.dtype if op in ("neg", "abs") else promote(a.dtype, "f32")
            return Expr(fmt, dtype, shape, a.exact and op in ("neg", "abs"), [a])
        if choice < 0.68:
            a = self.expr(shape, depth + 1, "any")
            if kind == "int" or (kind == "any" and r.random() < 0.2):
                if a.dtype in FLOATS and not a.exact:
                    a = self.leaf(shape, "int")
                return Expr("i32({0})", "i32", shape, a.exact, [a])
            to = r.choice(FLOATS)
            return Expr(f"{to}({{0}})", to, shape, a.exact, [a])
        if choice < 0.78:
            c = self.cond(shape if r.random() < 0.7 else (), depth + 1)
            a = self.expr(shape, depth + 1, kind)
            b = self.expr(shape, depth + 1, "int" if a.dtype in INTS else "float")
            dtype = promote(a.dtype, b.dtype)
            return Expr("where({0}, {1}, {2})", dtype, shape, a.exact and b.exact, [c, a, b])
        if choice < 0.9 and self.rank == 2 and shape in (("BM", 1), (1, "BN")):
            a = self.expr(("BM", "BN"), depth + 1, kind)
            if a.dtype == "bool":
                a = self.leaf(("BM", "BN"), "float")
            how = r.choice(("sum", "max", "min"))
            fn = ("row" if shape == ("BM", 1) else "col") + how
            exact = a.exact and (how != "sum" or a.dtype in INTS)
            return Expr(f"{fn}({{0}})", a.dtype, shape, exact, [a])
        if choice < 0.9 and shape == ("BM", "BN"):
            a = self.expr(shape, depth + 1, kind)
            op = r.choice(("cumsum", "tril", "tt"))
            if op == "tt":
                return Expr("transpose(transpose({0}))", a.dtype, shape, a.exact, [a])
            exact = a.exact and (op == "tril" or a.dtype in INTS)
            return Expr(f"{op}({{0}})", a.dtype, shape, exact, [a])
        if shape == ("BM", "BN") and kind != "int" and r.random() < 0.5:
            return self.small_dot()
        return self.leaf(shape, kind)

    def small_dot(self) -> Expr:
        """dot of the first K block (k = 0): [BM, BK] x [BK, BN]."""
        r = self.rng
        a = self.tensor("mk", r.choice(FLOATS))
        if r.random() < 0.5:
            b = self.tensor("kn", r.choice(FLOATS))
            return Expr(f"dot({a.name}[row :+ BM, 0 :+ BK], {b.name}[0 :+ BK, col :+ BN])",
                        "f32", ("BM", "BN"), False)
        b = self.tensor("nk", r.choice(FLOATS))
        return Expr(f"dot_t({a.name}[row :+ BM, 0 :+ BK], {b.name}[col :+ BN, 0 :+ BK])",
                    "f32", ("BM", "BN"), False)

    # --- statements -----------------------------------------------------------

    def tile_shapes(self) -> list[Shape]:
        if self.rank == 1:
            return [("BLOCK",)]
        return [("BM", "BN"), ("BM", "BN"), ("BM", 1), (1, "BN"), ("BN",)]

    def let(self) -> Stmt:
        shape = self.rng.choice(self.tile_shapes())
        e = self.expr(shape, 0, "any")
        if e.dtype == "bool":
            e = self.expr(shape, 1, "float")
        name = self.fresh("t")
        self.scope.append((name, e.dtype, shape, e.exact))
        return Stmt([f"let {name}: {type_text(e.dtype, shape)} = {{0}}"], [e],
                     defines=(name,), targets=[(e.dtype, shape)])

    def var_init(self, shape: Shape, kind: str) -> tuple[str, str, Expr]:
        e = self.expr(shape, 1, kind)
        if e.dtype == "bool":
            e = self.leaf(shape, "float")
        return self.fresh("v"), e.dtype, e

    def k_loop(self) -> list[Stmt]:
        """acc += dot(...) over K in steps of BK."""
        r = self.rng
        a = self.tensor("mk", r.choice(FLOATS))
        transposed = r.random() < 0.3
        b = self.tensor("nk" if transposed else "kn", r.choice(FLOATS))
        acc = self.fresh("acc")
        a_text = f"{a.name}[row :+ BM, k :+ BK]"
        b_text = f"{b.name}[col :+ BN, k :+ BK]" if transposed else f"{b.name}[k :+ BK, col :+ BN]"
        if r.random() < 0.3:
            cast = r.choice(FLOATS)
            a_text = f"{cast}({a_text})"
        if r.random() < 0.2:
            a_text = f"({a_text} * 0.5)"
        fn = "dot_t" if transposed else "dot"
        init = const("f32", (), 0.0) if r.random() < 0.7 else self.expr(("BM", "BN"), 2, "float")
        self.scope.append((acc, "f32", ("BM", "BN"), False))
        start = "0"
        return [Stmt([f"var {acc}: tile<f32>[BM, BN] = {{0}}",
                      f"for k in range({start}, K, BK) {{{{",
                      f"    {acc} += {fn}({a_text}, {b_text})",
                      "}}"], [init], defines=(acc,), targets=[("f32", ("BM", "BN"))])]

    def counted_loop(self) -> list[Stmt]:
        r = self.rng
        shape = r.choice(self.tile_shapes())
        name, dtype, init = self.var_init(shape, "any")
        trips = r.choice((1, 2, 3))
        loop_var = self.fresh("i")
        self.scope.append((loop_var, "i32", (), True))
        body = self.expr(shape, 1, "int" if dtype in INTS else "float")
        self.scope.pop()
        step = r.choice(("0.5", "0.25")) if dtype in FLOATS else "2"
        update = f"{name} = {dtype}({name} * {step}) + {{1}}" if dtype in FLOATS else \
            f"{name} = {name} / {step} + {{1}} + {loop_var}"
        self.scope.append((name, dtype, shape, False))
        return [Stmt([f"var {name}: {type_text(dtype, shape)} = {{0}}",
                      f"for {loop_var} in range(0, {trips}) {{{{",
                      "    " + update,
                      "}}"], [init, body], defines=(name,),
                     targets=[(dtype, shape), (dtype, shape)])]

    def while_loop(self) -> list[Stmt]:
        r = self.rng
        shape = r.choice(self.tile_shapes())
        name, dtype, init = self.var_init(shape, "float")
        counter = self.fresh("w")
        body = self.expr(shape, 1, "float")
        self.scope.append((name, dtype, shape, False))
        return [Stmt([f"var {name}: {type_text(dtype, shape)} = {{0}}",
                      f"var {counter} = 0",
                      f"while {counter} < {r.choice((1, 2, 3))} {{{{",
                      f"    {name} = {name} * 0.5 + {{1}}",
                      f"    {counter} += 1",
                      "}}"], [init, body], defines=(name, counter),
                     targets=[(dtype, shape), (dtype, shape)])]

    def if_stmt(self) -> list[Stmt]:
        r = self.rng
        shape = r.choice(self.tile_shapes())
        name, dtype, init = self.var_init(shape, "any")
        kind = "int" if dtype in INTS else "float"
        cond = self.cond((), 1)
        then = self.expr(shape, 1, kind)
        other = self.expr(shape, 1, kind)
        self.scope.append((name, dtype, shape, init.exact and then.exact and other.exact))
        return [Stmt([f"var {name}: {type_text(dtype, shape)} = {{0}}",
                      "if {1} {{",
                      f"    {name} = {{2}}",
                      "}} else {{",
                      f"    {name} = {{3}}",
                      "}}"], [init, cond, then, other], defines=(name,),
                     targets=[(dtype, shape), ("bool", ()), (dtype, shape), (dtype, shape)])]

    def store(self, out: Param, compound: bool) -> Stmt:
        r = self.rng
        if self.rank == 1:
            shape, target = ("BLOCK",), "base :+ BLOCK"
            value_shape = ("BLOCK",)
        else:
            target = "row :+ BM, col :+ BN"
            shape = ("BM", "BN")
            value_shape = r.choice([("BM", "BN")] * 3 + [("BM", 1), (1, "BN"), ("BN",)])
        kind = "int" if out.dtype in INTS else "float"
        e = self.expr(value_shape, 0, kind)
        if e.dtype == "bool":
            e = self.leaf(value_shape, kind)
        op = r.choice(("+=", "-=", "*=")) if compound else "="
        index = target
        return Stmt([f"{out.name}[{index}] {op} {{0}}"], [e], targets=[(out.dtype, shape)])

    def sum_store(self, out: Param) -> Stmt:
        """out = v1 + v2 + ... + e: every tile value in scope, and one more
        expression, stored into the float output `out`."""
        target = "base :+ BLOCK" if self.rank == 1 else "row :+ BM, col :+ BN"
        shape = ("BLOCK",) if self.rank == 1 else ("BM", "BN")
        values = [Expr(name, dtype, vshape, exact)
                  for name, dtype, vshape, exact in self.scope if vshape]
        extra = self.expr(shape, 1, "float")
        terms = values + [extra]
        fmt = " + ".join(f"{{{i}}}" for i in range(len(terms)))
        dtype = "f32" if all(t.dtype in INTS for t in terms) else None
        if dtype is None:
            dtype = terms[0].dtype
            for t in terms[1:]:
                dtype = promote(dtype, t.dtype)
        e = Expr(f"({fmt})", dtype, shape, False, terms)
        return Stmt([f"{out.name}[{target}] = {{0}}"], [e], targets=[(out.dtype, shape)])

    def in_place_update(self) -> tuple[Param, list[Stmt]]:
        """A tensor updated in place by statements whose slices overlap:
        CTA b owns [2 b BLOCK, 2 (b + 1) BLOCK) and shifts within it by s
        (0 <= s <= BLOCK, whatever the variant), so no other CTA touches its
        elements; one statement reads slices the previous one stored."""
        r = self.overlap
        io = Param(f"io_{len(self.inputs)}", "tensor", "f32", ("N",), written=True)
        shift = Param(f"si_io{len(self.inputs)}", "scalar", "i32")
        self.inputs[shift.name] = shift
        self.scalar_values[shift.name] = str(r.randint(0, 300))
        scale = self.expr(("BLOCK",), 1, "float")
        lines = [f"let io_base = ctx.block.x * (2 * BLOCK)",
                 f"let io_s = {shift.name} % (BLOCK + 1)"]
        form = r.choice(("shift", "swap", "accumulate"))
        if form == "shift":
            lines += [f"{io.name}[io_base :+ BLOCK] = {io.name}[io_base + io_s :+ BLOCK] * {{0}}",
                      f"{io.name}[io_base + io_s :+ BLOCK] += {io.name}[io_base :+ BLOCK]"]
        elif form == "swap":
            lines += [f"let io_a = {io.name}[io_base :+ BLOCK]",
                      f"{io.name}[io_base :+ BLOCK] = {io.name}[io_base + io_s :+ BLOCK]",
                      f"{io.name}[io_base + io_s :+ BLOCK] = io_a * {{0}}"]
        else:
            lines += [f"for io_k in range(0, 3) {{{{",
                      f"    {io.name}[io_base + io_s :+ BLOCK] += {io.name}[io_base :+ BLOCK] * {{0}}",
                      f"    {io.name}[io_base :+ BLOCK] -= {io.name}[io_base + BLOCK :+ BLOCK]",
                      "}}"]
        return io, [Stmt(lines, [scale], targets=[("f32", ("BLOCK",))])]

    def grid_for(self, program: "Program") -> tuple:
        """A grid a little smaller or larger than the tiles of `program`."""
        r = self.overlap
        if program.rank == 1:
            natural = (-(-program.dims.get("N", 1) // program.variant["BLOCK"]),)
        else:
            natural = (-(-program.dims.get("M", 1) // program.variant["BM"]),
                       -(-program.dims.get("N", 1) // program.variant["BN"]))
        return tuple(max(1, extent + r.choice((-1, 0, 1, 2))) for extent in natural)

    def ragged_loop_1d(self, out: Param) -> list[Stmt]:
        """A 1-D kernel's whole-tensor loop in one CTA."""
        e = self.expr(("BLOCK",), 0, "int" if out.dtype in INTS else "float")
        return [Stmt(["for base in range(0, N, BLOCK) {{",
                      f"    {out.name}[base :+ BLOCK] = {{0}}",
                      "}}"], [e], targets=[(out.dtype, ("BLOCK",))])]

    def program(self) -> Program:
        r = self.rng
        self.rank = 2 if r.random() < 0.8 else 1
        single_cta_1d = self.rank == 1 and r.random() < 0.3
        self.single_cta = single_cta_1d
        body: list[Stmt] = []
        autotune: dict = {}
        if self.rank == 2:
            autotune["BM"] = self.space((16, 32, 64))
            autotune["BN"] = self.space((16, 32, 64))
            body.append(Stmt(["let row = ctx.block.x * BM"]))
            body.append(Stmt(["let col = ctx.block.y * BN"]))
        else:
            autotune["BLOCK"] = self.space((32, 64, 128, 256))
            if not single_cta_1d:
                body.append(Stmt(["let base = ctx.block.x * BLOCK"]))
        uses_k = False
        if not single_cta_1d:
            for _ in range(r.randint(0, 4)):
                pick = r.random()
                if self.rank == 2 and pick < 0.25:
                    uses_k = True
                    body += self.k_loop()
                elif pick < 0.45:
                    body += self.counted_loop()
                elif pick < 0.55:
                    body += self.while_loop()
                elif pick < 0.7:
                    body += self.if_stmt()
                else:
                    body.append(self.let())
        outs = []
        for j in range(r.choice((1, 1, 2, 3))):
            # The first output is a float that sums every value computed
            # above: nothing the body computes is dead code.
            dtype = r.choice(("f32", "f32", "f16", "bf16") + (("i32",) if j else ()))
            dims = ("M", "N") if self.rank == 2 else ("N",)
            out = Param(f"out_{j}", "tensor", dtype, dims, written=True)
            outs.append(out)
            if single_cta_1d:
                body += self.ragged_loop_1d(out)
            elif j == 0 and self.scope:
                body.append(self.sum_store(out))
            else:
                body.append(self.store(out, compound=r.random() < 0.15))
        if self.rank == 1 and not single_cta_1d and self.in_place:
            io, stmts = self.in_place_update()
            outs.append(io)
            body += stmts
        text = "\n".join(line for s in body for line in s.render(""))
        uses_k = uses_k or "BK" in text
        if uses_k:
            autotune["BK"] = self.space((8, 16, 32))
        params = [p for p in self.inputs.values()] + outs
        # Dims: ragged by default.
        dims = {"M": r.randint(1, 200), "N": r.randint(1, 200), "K": r.randint(1, 120)}
        if self.rank == 1:
            dims = {"N": r.randint(1, 3000)}
        variant = {name: r.choice(expand(values)) for name, values in autotune.items()}
        attrs = []
        if r.random() < 0.25:
            threads = r.choice((32, 64, 128, 256))
            attrs.append(f"@launch({threads})")
        if uses_k and r.random() < 0.4:
            attrs.append("@tensorcore" + r.choice(("", "(f16)", "(tf32)", "(bf16)")))
        aligned = []
        for dim, tile in (("M", "BM"), ("N", "BN"), ("K", "BK")) if self.rank == 2 else (("N", "BLOCK"),):
            if tile in autotune and dim in dims and r.random() < 0.2:
                aligned.append(f"{dim} = {tile}")
                dims[dim] = variant[tile] * r.randint(1, 4)
        if aligned:
            attrs.append(f"@aligned({', '.join(aligned)})")
        name = f"fuzz_{self.seed}"
        program = Program(name, self.rank, params, body, autotune, attrs, dims,
                          variant, {}, self.seed)
        if self.explicit_grid and not single_cta_1d:
            program.grid = self.grid_for(program)
        # Drop inputs that the rendered body does not use (a reused role may
        # have left one unused).
        used = {p.name for p in program.used_params()}
        program.params = [p for p in program.params if p.name in used or p.written]
        program.dims = program.launch_dims()
        for p in program.params:
            if p.kind == "scalar" and p.name in self.scalar_values:
                program.scalars[p.name] = self.scalar_values[p.name]
            elif p.kind == "scalar":
                program.scalars[p.name] = (repr(r.choice((0.5, -1.25, 2.0, 0.75)))
                                           if p.dtype in FLOATS else str(r.randint(-5, 9)))
        return program

    def space(self, values: tuple) -> list:
        r = self.rng
        pick = r.random()
        if pick < 0.4:
            return [r.choice(values)]
        if pick < 0.7:
            lo = r.choice(values[:-1])
            return [lo, r.choice([v for v in values if v > lo])]
        chosen = list(values)
        r.shuffle(chosen)
        return chosen[:3] if len(chosen) >= 3 else chosen


def expand(values: list) -> list:
    """The @autotune expansion of a written list (docs/language.md §9)."""
    if len(values) == 2 and values[0] < values[1]:
        out, v = [], values[0]
        while v <= values[1]:
            out.append(v)
            v *= 2
        return out
    if len(values) == 2 and values[0] == values[1]:
        return [values[0]]
    return list(values)


def generate(seed: int) -> Program:
    return Generator(seed).program()


# ----------------------------------------------------------------------------
# Reduction
# ----------------------------------------------------------------------------

def _blocks(program: Program) -> Iterator[list]:
    """Every statement list of the program, outermost first."""
    stack = [program.body]
    while stack:
        block = stack.pop(0)
        yield block
        for stmt in block:
            stack.extend(stmt.blocks)


def reductions(program: Program) -> Iterator[Program]:
    """Smaller variants of `program`, most promising first. Each is a deep
    copy; some are invalid, which the caller's test rejects."""
    # 1. Drop a statement (the kernel's prologue lets stay: every slice
    #    needs them).
    for b_index, block in enumerate(_blocks(program)):
        for s_index in range(len(block) - 1, -1, -1):
            if block[s_index].lines and block[s_index].lines[0].startswith(("let row", "let col", "let base")):
                continue
            candidate = copy.deepcopy(program)
            target = list(_blocks(candidate))[b_index]
            del target[s_index]
            if not any(p.written and _mentions("\n".join(
                    line for s in candidate.body for line in s.render("")), p.name)
                    for p in candidate.params):
                continue
            yield _prune(candidate)
    # 2. Replace an expression by a same-typed operand or a constant.
    for path in _expr_paths(program):
        stmt_path, e_index, node_path = path
        node = _locate(program, stmt_path, e_index, node_path)
        options = [k for k in node.kids if k.dtype == node.dtype and k.shape == node.shape]
        options += [k for k in node.kids if k.dtype == node.dtype and k.shape == ()]
        if node.dtype != "bool" and node.fmt not in ("0", "0.0", "0.5"):
            options.append(const(node.dtype, (), 0.5 if node.dtype in FLOATS else 1))
        for option in options:
            candidate = copy.deepcopy(program)
            _replace(candidate, stmt_path, e_index, node_path, copy.deepcopy(option))
            yield _prune(candidate)
    # 3. Smaller dims, one variant value, fewer attributes.
    for dim, value in program.dims.items():
        for smaller in sorted({1, value // 2, 17}):
            if 0 < smaller < value:
                candidate = copy.deepcopy(program)
                candidate.dims[dim] = smaller
                yield candidate
    for name, values in program.autotune.items():
        if len(expand(values)) > 1:
            candidate = copy.deepcopy(program)
            candidate.autotune[name] = [candidate.variant[name]]
            yield candidate
    for i in range(len(program.attrs)):
        candidate = copy.deepcopy(program)
        del candidate.attrs[i]
        yield candidate
    if program.grid is not None:
        candidate = copy.deepcopy(program)
        candidate.grid = None
        yield candidate


def _prune(program: Program) -> Program:
    used = {p.name for p in program.used_params()}
    program.params = [p for p in program.params if p.name in used]
    program.scalars = {k: v for k, v in program.scalars.items() if k in used}
    program.dims = program.launch_dims()
    return program


def _stmt_paths(block: list, prefix: tuple = ()) -> Iterator[tuple]:
    for i, stmt in enumerate(block):
        yield prefix + (i,)
        for j, inner in enumerate(stmt.blocks):
            yield from _stmt_paths(inner, prefix + (i, j))


def _get_stmt(program: Program, path: tuple) -> Stmt:
    block = program.body
    stmt = block[path[0]]
    rest = path[1:]
    while rest:
        block = stmt.blocks[rest[0]]
        stmt = block[rest[1]]
        rest = rest[2:]
    return stmt


def _expr_paths(program: Program) -> Iterator[tuple]:
    for stmt_path in _stmt_paths(program.body):
        stmt = _get_stmt(program, stmt_path)
        for e_index, e in enumerate(stmt.exprs):
            def visit(node: Expr, node_path: tuple) -> Iterator[tuple]:
                yield (stmt_path, e_index, node_path)
                for k, kid in enumerate(node.kids):
                    yield from visit(kid, node_path + (k,))
            yield from visit(e, ())


def _locate(program: Program, stmt_path: tuple, e_index: int, node_path: tuple) -> Expr:
    node = _get_stmt(program, stmt_path).exprs[e_index]
    for k in node_path:
        node = node.kids[k]
    return node


def _replace(program: Program, stmt_path: tuple, e_index: int, node_path: tuple,
             new: Expr) -> None:
    stmt = _get_stmt(program, stmt_path)
    if not node_path:
        stmt.exprs[e_index] = new
        return
    parent = _locate(program, stmt_path, e_index, node_path[:-1])
    parent.kids[node_path[-1]] = new


def size(program: Program) -> int:
    """A measure the reduction decreases: the program's text and sizes."""
    return len(program.render()) + sum(program.dims.values()) // 8 + \
        sum(len(expand(v)) for v in program.autotune.values())
