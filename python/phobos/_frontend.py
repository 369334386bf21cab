"""From a ``@ph.kernel`` function to the Phobos program it spells.

The front end reads the module's source with :mod:`ast` (it never runs the
kernel), checks that every construct spells one construct of Phobos, and
writes the Phobos text with a span map: for each piece of generated text, the
Python line and column it came from. The compiler reads the map
(``--span-map``), so its diagnostics name the Python file. The text, the
map and source positions are phobos._translation's.

Why this file is long: it is one translator, a visitor with a method per
Python construct a kernel may use (decorators, the signature, each statement
and expression) that checks the construct spells one of Phobos and writes
it, beside the tables of the constructs it refuses and why; the methods call
each other across those groups, so splitting the class would spread one
walk of the tree over several modules.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import linecache
import os
import re
import sys
import types
from typing import Any, Callable, Mapping, Sequence

from phobos import _names
from phobos._errors import KernelSyntaxError
# The language's names (phobos.lang's spellings) are _names's.
from phobos._names import ATTRIBUTES, BUILTINS, EFFECT_BUILTINS, SCALAR_TYPES, TUNE_OPTIONS
from phobos._translation import (Param, Pos, Translation, _Emitter, _SourceFile, _end, _pos,
                                 _relocate)

# Phobos operator precedence, loosest first (docs/language.md section 5).
_PREC_OR, _PREC_AND, _PREC_EQ, _PREC_REL, _PREC_ADD, _PREC_MUL, _PREC_UNARY, _PREC_ATOM = range(1, 9)

_BINOPS = {ast.Add: ("+", _PREC_ADD), ast.Sub: ("-", _PREC_ADD), ast.Mult: ("*", _PREC_MUL),
           ast.Div: ("/", _PREC_MUL), ast.Mod: ("%", _PREC_MUL)}
_BINOP_TOKENS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Mod: "%",
                 ast.FloorDiv: "//", ast.Pow: "**", ast.MatMult: "@", ast.LShift: "<<",
                 ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
_BINOP_REFUSED = {
    ast.FloorDiv: "Phobos has no floor division '//': '/' on integers truncates toward zero "
                  "(C's division, not Python's); write '/' if that is what you mean",
    ast.Pow: "Phobos has no power operator '**'; multiply (x * x) or use ph.exp and ph.log",
    ast.MatMult: "Phobos has no '@' operator; write ph.dot(a, b)",
    ast.LShift: "Phobos has no shift operators",
    ast.RShift: "Phobos has no shift operators",
    ast.BitAnd: "Phobos has no bitwise '&'; for bool values and tiles write 'and' (Phobos's '&&')",
    ast.BitOr: "Phobos has no bitwise '|'; for bool values and tiles write 'or' (Phobos's '||')",
    ast.BitXor: "Phobos has no bitwise '^'; for bool values write '!='",
}
_CMPOPS = {ast.Eq: ("==", _PREC_EQ), ast.NotEq: ("!=", _PREC_EQ), ast.Lt: ("<", _PREC_REL),
           ast.LtE: ("<=", _PREC_REL), ast.Gt: (">", _PREC_REL), ast.GtE: (">=", _PREC_REL)}
_AUGOPS = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/="}


_PHOBOS_FLOAT = re.compile(r"^[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?$|^[0-9]+[eE][+-]?[0-9]+$")

@dataclasses.dataclass
class _Scope:
    names: dict[str, str]  # name -> "let", "var", "loop", "param", "dim", "const"


class _Unresolved:
    pass


_UNRESOLVED = _Unresolved()


#: The deepest syntax tree a kernel may have. Python's own recursion limit
#: (1000 frames) is what this protects: the translator takes about three
#: frames a level, as does ast.unparse under it.
_MAX_AST_DEPTH = 150


def parse_source(filename: str, text: str) -> ast.Module:
    """ast.parse, with what it raises for sources nested too deeply for it
    (RecursionError, MemoryError, SyntaxError) as a KernelSyntaxError."""
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as error:
        line = error.lineno or 1
        lines = text.splitlines()
        line_text = lines[line - 1] if 0 < line <= len(lines) else None
        raise KernelSyntaxError(filename, line, error.offset or 1, error.msg or "invalid syntax",
                                line_text) from None
    except (RecursionError, MemoryError):
        raise KernelSyntaxError(filename, 1, 1, "the source nests too deeply for Python's "
                                "parser; split deep expressions with ph.let") from None


def _float_text(value: float) -> str:
    """A finite float as a Phobos float literal (digits.digits[e...])."""
    text = repr(value)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    elif "." not in text and "e" not in text:
        text += ".0"
    return text


class _KernelTranslator:
    def __init__(self, source: _SourceFile, function: ast.FunctionDef,
                 module_globals: Mapping[str, Any]) -> None:
        self.src = source
        self.fn = function
        self.globals = module_globals
        self.registry = _names.kinds()
        self.out = _Emitter()
        self.scopes: list[_Scope] = []
        self.params: list[Param] = []
        self.autotune: list[tuple[str, list[int]]] = []
        self.depth = 0

    # -- errors and resolution ------------------------------------------------

    def error(self, where: ast.AST | Pos, reason: str) -> KernelSyntaxError:
        line, col = where if isinstance(where, tuple) else _pos(where)
        return KernelSyntaxError(self.src.filename, line, col, reason, self.src.line(line))

    def bound(self, name: str) -> str | None:
        for scope in reversed(self.scopes):
            if name in scope.names:
                return scope.names[name]
        return None

    def resolve(self, node: ast.AST) -> Any:
        """The Python object a name or attribute chain denotes at module level,
        or _UNRESOLVED (a kernel name, or nothing Python knows)."""
        if isinstance(node, ast.Name):
            if self.bound(node.id) is not None:
                return _UNRESOLVED
            if node.id in self.globals:
                return self.globals[node.id]
            return getattr(builtins, node.id, _UNRESOLVED)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if base is _UNRESOLVED:
                return _UNRESOLVED
            return getattr(base, node.attr, _UNRESOLVED)
        return _UNRESOLVED

    def lang_kind(self, node: ast.AST) -> tuple[str, str] | None:
        obj = self.resolve(node)
        if obj is _UNRESOLVED:
            return None
        return self.registry.get(id(obj), ("python", ast.unparse(node)))

    def declare(self, node: ast.AST, name: str, kind: str) -> None:
        self.scopes[-1].names[name] = kind

    # -- the kernel -------------------------------------------------------------

    def check_depth(self) -> None:
        """Refuses a kernel whose syntax tree nests deeper than
        _MAX_AST_DEPTH, at the first node too deep. The translator, name
        resolution and ast.unparse all recurse over the tree, so a very deep
        attribute chain or expression would otherwise end in a RecursionError;
        this walk keeps its own stack."""
        stack: list[tuple[ast.AST, int, ast.AST]] = [(self.fn, 1, self.fn)]
        while stack:
            node, depth, located = stack.pop()
            if hasattr(node, "lineno"):
                located = node
            if depth > _MAX_AST_DEPTH:
                raise self.error(located, "nesting is deeper than the compiler allows "
                                 f"({_MAX_AST_DEPTH} levels of Python syntax); split the "
                                 "expression with ph.let")
            for child in ast.iter_child_nodes(node):
                stack.append((child, depth + 1, located))

    def translate(self) -> Translation:
        fn = self.fn
        self.check_depth()
        if isinstance(fn, ast.AsyncFunctionDef):
            raise self.error(fn, "a kernel cannot be 'async'")
        self.read_decorators(fn)
        self.scopes.append(_Scope({name: "const" for name, _ in self.autotune}))
        header_params = self.read_signature(fn)
        # The header: attributes, then the kernel line.
        for emit_attribute in self.attribute_emitters:
            self.out.start_line()
            emit_attribute()
        self.out.start_line()
        def_pos = _pos(fn)
        name_pos = self.name_pos(fn)
        self.out.emit("kernel", def_pos)
        self.out.emit(" ")
        self.out.emit(fn.name, name_pos)
        self.out.emit("(")
        for index, (arg, emit_type) in enumerate(header_params):
            if index:
                self.out.emit(", ")
            self.out.emit(arg.arg, _pos(arg))
            self.out.emit(": ")
            emit_type()
        self.out.emit(") {", def_pos)
        self.scopes.append(_Scope({}))
        self.out.indent += 1
        self.body(fn.body, top=True)
        self.out.indent -= 1
        self.out.start_line()
        self.out.emit("}", def_pos)
        return Translation(name=fn.name, source=self.out.text(), spans=self.out.spans,
                           python_file=self.src.filename, python_text=self.src.text,
                           def_pos=def_pos, params=self.params, autotune=self.autotune)

    def name_pos(self, fn: ast.FunctionDef) -> Pos:
        found = self.src.find(_pos(fn), (fn.lineno + 1, 1), fn.name)
        return found or _pos(fn)

    def read_decorators(self, fn: ast.FunctionDef) -> None:
        self.attribute_emitters: list[Any] = []
        seen_kernel = False
        for decorator in fn.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            kind = self.lang_kind(target)
            if kind is None or kind[0] not in ("attribute", "kernel"):
                raise self.error(decorator, f"'{ast.unparse(target)}' is not a Phobos attribute; a "
                                 "kernel takes only @ph.kernel and the language's attributes "
                                 "(@ph.autotune, @ph.cluster, @ph.launch, @ph.pipeline, "
                                 "@ph.warp_specialize, @ph.persistent, @ph.tensorcore, "
                                 "@ph.aligned)")
            if kind[0] == "kernel":
                # lineinfo= is the package's compile option, not Phobos text.
                if isinstance(decorator, ast.Call) and (
                        decorator.args or any(k.arg != "lineinfo" for k in decorator.keywords)):
                    raise self.error(decorator, "@ph.kernel takes no arguments but lineinfo=")
                seen_kernel = True
                continue
            self.attribute_emitters.append(self.attribute(kind[1], decorator, target))
        if not seen_kernel:
            raise self.error(fn, f"'{fn.name}' is not decorated with @ph.kernel")

    def attribute(self, name: str, decorator: ast.AST, target: ast.AST) -> Any:
        """Checks one attribute and returns what emits it."""
        call = decorator if isinstance(decorator, ast.Call) else None
        at = (target.end_lineno, target.end_col_offset + 1 - len(name)) \
            if isinstance(target, ast.Attribute) else _pos(target)
        args = call.args if call else []
        keywords = call.keywords if call else []
        for arg in args:
            if isinstance(arg, ast.Starred):
                raise self.error(arg, f"@{name} does not take '*' arguments")
        for keyword in keywords:
            if keyword.arg is None:
                raise self.error(keyword, f"@{name} does not take '**' arguments")

        def head() -> None:
            self.out.emit("@", at)
            self.out.emit(name, at)

        if name in ("autotune", "cluster"):
            if args:
                raise self.error(args[0], f"@ph.{name} takes its search dimensions as keywords: "
                                 f"@ph.{name}(BLOCK=[16, 256])")
            if not [k for k in keywords if name != "autotune" or k.arg not in TUNE_OPTIONS]:
                raise self.error(decorator, f"@ph.{name} needs at least one dimension: "
                                 f"@ph.{name}(BLOCK=[16, 256])")
            dims = []
            for keyword in keywords:
                if name == "autotune" and keyword.arg in TUNE_OPTIONS:
                    continue  # how to search, read at run time (lang.autotune)
                value = keyword.value
                if not isinstance(value, (ast.List, ast.Tuple)) or not value.elts:
                    raise self.error(value, f"the values of {keyword.arg} are a list of integer "
                                     f"literals: {keyword.arg}=[16, 256]")
                numbers = []
                for element in value.elts:
                    if not (isinstance(element, ast.Constant) and type(element.value) is int):
                        raise self.error(element, f"the values of {keyword.arg} must be integer "
                                         "literals")
                    numbers.append(element.value)
                dims.append((keyword, value, numbers))
            if name == "autotune":
                self.autotune.extend((k.arg, numbers) for k, _, numbers in dims)

            def emit() -> None:
                head()
                self.out.emit("(")
                for index, (keyword, value, numbers) in enumerate(dims):
                    if index:
                        self.out.emit(", ")
                    self.out.emit(keyword.arg, _pos(keyword))
                    self.out.emit(" in ", _pos(keyword))
                    self.out.emit("[", _pos(value))
                    for i, (element, number) in enumerate(zip(value.elts, numbers)):
                        if i:
                            self.out.emit(", ")
                        self.out.emit(str(number), _pos(element))
                    self.out.emit("]", _pos(value))
                self.out.emit(")")
            return emit

        if name == "launch":
            if keywords:
                raise self.error(keywords[0], "@ph.launch takes positional integer literals: "
                                 "@ph.launch(max_threads[, min_blocks[, max_regs]])")
            if not args or len(args) > 3:
                raise self.error(decorator, "@ph.launch takes 1 to 3 integer literals: "
                                 "@ph.launch(max_threads[, min_blocks[, max_regs]])")
            values: list = []
            for index, arg in enumerate(args):
                if isinstance(arg, ast.Constant) and type(arg.value) is int:
                    values.append(arg)
                elif index == 0 and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    values.append(self.parse_string_expr(arg))
                else:
                    raise self.error(arg, "@ph.launch takes integer literals; max_threads may "
                                     "also be a string holding a compile-time expression "
                                     "(\"2 * TILE_M\"): the decorator's arguments run as "
                                     "Python, where TILE_M is not defined")

            return self.emit_counts(head, values)

        if name == "pipeline":
            if call is None or not (args or keywords):
                return head
            arg = args[0] if len(args) == 1 and not keywords else None
            if arg is None or not isinstance(arg, ast.Constant) or \
                    not (type(arg.value) is int or isinstance(arg.value, str)):
                raise self.error(decorator, "@ph.pipeline takes at most one argument, the "
                                 "number of stages: an integer literal or a string holding a "
                                 "compile-time expression (\"STAGES\")")
            stages = arg if type(arg.value) is int else self.parse_string_expr(arg)
            return self.emit_counts(head, [stages])

        if name in ("warp_specialize", "persistent"):
            if call is None or not (args or keywords):
                return head
            arg = args[0] if len(args) == 1 and not keywords else None
            if arg is None or not isinstance(arg, ast.Constant) or \
                    not (type(arg.value) is int or isinstance(arg.value, str)):
                raise self.error(decorator, f"@ph.{name} takes at most one argument, "
                                 "1 or 0: an integer literal or a string holding a "
                                 "compile-time expression (\"WS\")")
            flag = arg if type(arg.value) is int else self.parse_string_expr(arg)
            return self.emit_counts(head, [flag])

        if name == "tensorcore":
            if keywords or len(args) > 1:
                raise self.error(decorator, "@ph.tensorcore takes at most one precision: "
                                 "ph.f16 (the default), ph.tf32 or ph.bf16")
            precision = None
            if args:
                arg = args[0]
                if isinstance(arg, ast.Constant) and arg.value in ("f16", "tf32", "bf16"):
                    precision = arg.value
                else:
                    kind = self.lang_kind(arg)
                    if kind and kind[0] in ("scalar", "precision") and kind[1] in ("f16", "tf32", "bf16"):
                        precision = kind[1]
                if precision is None:
                    raise self.error(arg, "the precision of @ph.tensorcore is ph.f16, ph.tf32 "
                                     "or ph.bf16")

            def emit() -> None:
                head()
                if precision is not None:
                    self.out.emit("(")
                    self.out.emit(precision, _pos(args[0]))
                    self.out.emit(")")
            return emit

        assert name == "aligned"
        if args:
            raise self.error(args[0], "@ph.aligned takes keywords: @ph.aligned(M=\"TILE_M\") or "
                             "@ph.aligned(M=64)")
        if not keywords:
            raise self.error(decorator, "@ph.aligned needs at least one promise: "
                             "@ph.aligned(M=\"TILE_M\")")
        promises = []
        for keyword in keywords:
            value = keyword.value
            if isinstance(value, ast.Constant) and type(value.value) is int:
                promises.append((keyword, value))
            elif isinstance(value, ast.Constant) and isinstance(value.value, str):
                promises.append((keyword, self.parse_string_expr(value)))
            else:
                raise self.error(value, "the multiple in @ph.aligned is an integer literal or a "
                                 "string holding a compile-time expression (M=\"TILE_M\"): the "
                                 "decorator's arguments run as Python, where TILE_M is not "
                                 "defined")

        def emit() -> None:
            head()
            self.out.emit("(")
            for index, (keyword, expr) in enumerate(promises):
                if index:
                    self.out.emit(", ")
                self.out.emit(keyword.arg, _pos(keyword))
                self.out.emit(" = ", _pos(keyword))
                self.expr(expr, _PREC_OR)
            self.out.emit(")")
        return emit

    def emit_counts(self, head: Callable[[], None], values: list) -> Callable[[], None]:
        """The emitter of `@name(v, ...)` for @ph.launch and @ph.pipeline: each
        value an integer literal or an expression parsed from a string."""
        def emit() -> None:
            head()
            self.out.emit("(")
            for index, value in enumerate(values):
                if index:
                    self.out.emit(", ")
                if isinstance(value, ast.Constant):
                    self.out.emit(str(value.value), _pos(value))
                else:
                    self.expr(value, _PREC_OR)
            self.out.emit(")")
        return emit

    def parse_string_expr(self, constant: ast.Constant) -> ast.AST:
        """A Python expression written inside a string literal (an annotation,
        an @ph.aligned multiple, @ph.launch's thread count or @ph.pipeline's
        stage count), placed where the string is."""
        text = constant.value
        segment = ast.get_source_segment(self.src.text, constant) or ""
        match = re.match(r"^([rRuU]?)('|\")", segment)
        try:
            tree = ast.parse(text.strip(), mode="eval").body
        except SyntaxError as exc:
            raise self.error(constant, f"cannot read '{text}': {exc.msg}") from None
        if match and "\\" not in segment and "\n" not in segment and not segment.startswith(match.group(0) * 3):
            lead = len(text) - len(text.lstrip())
            _relocate(tree, constant.lineno, constant.col_offset + len(match.group(0)) + lead)
        else:
            for node in ast.walk(tree):
                if hasattr(node, "lineno"):
                    node.lineno, node.col_offset = constant.lineno, constant.col_offset
                    node.end_lineno, node.end_col_offset = constant.end_lineno, constant.end_col_offset
        return tree

    def read_signature(self, fn: ast.FunctionDef) -> list[tuple[ast.arg, Any]]:
        args = fn.args
        if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg:
            node = (args.posonlyargs or [args.vararg] if args.posonlyargs or args.vararg
                    else args.kwonlyargs or [args.kwarg])[0]
            raise self.error(node, "kernel parameters are plain positional parameters "
                             "(no '/', '*args', keyword-only or '**kwargs')")
        if args.defaults:
            raise self.error(args.defaults[0], "kernel parameters have no default values")
        if fn.returns is not None and not (isinstance(fn.returns, ast.Constant) and fn.returns.value is None):
            raise self.error(fn.returns, "a kernel returns nothing; drop the return annotation "
                             "(or write '-> None')")
        result = []
        scope = self.scopes[-1].names
        for arg in args.args:
            if arg.annotation is None:
                raise self.error(arg, f"parameter '{arg.arg}' needs a type: "
                                 f"{arg.arg}: ph.tensor[ph.f32][N] or {arg.arg}: ph.f32")
            annotation = arg.annotation
            if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
                annotation = self.parse_string_expr(annotation)
            param, emit = self.param_type(arg, annotation)
            self.params.append(param)
            for dim in param.dims:
                if not dim.isdigit() and dim not in scope:
                    scope[dim] = "dim"
            result.append((arg, emit))
        for arg in args.args:
            scope[arg.arg] = "param"
        return result

    def param_type(self, arg: ast.arg, node: ast.AST) -> tuple[Param, Any]:
        kind = self.lang_kind(node)
        if kind and kind[0] == "scalar":
            return Param(arg.arg, "scalar", kind[1], []), lambda: self.out.emit(kind[1], _pos(node))
        shaped = self.shaped_type(node, allow=("tensor", "tile"))
        if shaped is None:
            raise self.error(node, f"the type of '{arg.arg}' must be a tensor "
                             "(ph.tensor[ph.f32][N, 64]) or a scalar (ph.f32)")
        what, element, dims, emit = shaped
        return Param(arg.arg, what, element, dims), emit

    def shaped_type(self, node: ast.AST, allow: Sequence[str]) -> Any:
        """``ph.tensor[E][d0, d1]`` or ``ph.tile[E][...]``: (kind, element,
        dims, emitter), or None when node is not spelled that way."""
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)):
            return None
        kind = self.lang_kind(node.value.value)
        if not kind or kind[0] != "shaped" or kind[1] not in allow:
            return None
        element_node = node.value.slice
        element = self.lang_kind(element_node)
        if not element or element[0] != "scalar":
            raise self.error(element_node, f"the element type of a {kind[1]} is one of ph.f16, "
                             "ph.bf16, ph.f32, ph.f64, ph.i32, ph.i64, ph.bool")
        extents = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        dims = []
        for extent in extents:
            if isinstance(extent, ast.Name):
                dims.append(extent.id)
            elif isinstance(extent, ast.Constant) and type(extent.value) is int:
                dims.append(str(extent.value))
            else:
                raise self.error(extent, f"an extent of a {kind[1]} is a name or an integer literal")

        def emit() -> None:
            at = _pos(node.value.value)
            self.out.emit(kind[1], at)
            self.out.emit("<")
            self.out.emit(element[1], _pos(element_node))
            self.out.emit(">[")
            for index, (extent, dim) in enumerate(zip(extents, dims)):
                if index:
                    self.out.emit(", ")
                self.out.emit(dim, _pos(extent))
            self.out.emit("]")
        return kind[1], element[1], dims, emit

    def local_type(self, node: ast.AST) -> Any:
        kind = self.lang_kind(node)
        if kind and kind[0] == "scalar":
            return lambda: self.out.emit(kind[1], _pos(node))
        shaped = self.shaped_type(node, allow=("tile", "tensor"))
        if shaped is None:
            raise self.error(node, "a declared type is a scalar (ph.f32) or a tile "
                             "(ph.tile[ph.f32][BM, BN])")
        return shaped[3]

    # -- statements ---------------------------------------------------------------

    def body(self, statements: list[ast.stmt], top: bool = False) -> None:
        self.depth += 1
        if self.depth > 190:
            raise self.error(statements[0], "nesting is deeper than the compiler allows")
        for index, statement in enumerate(statements):
            if (index == 0 and top and isinstance(statement, ast.Expr)
                    and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)):
                continue  # the docstring
            self.statement(statement)
        self.depth -= 1

    def block(self, statements: list[ast.stmt]) -> None:
        self.out.emit(" {")
        self.scopes.append(_Scope({}))
        self.out.indent += 1
        self.body(statements)
        self.out.indent -= 1
        self.scopes.pop()
        self.out.start_line()
        self.out.emit("}")

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Pass):
            return
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            kind = self.lang_kind(node.value.func)
            if kind is not None and kind[0] == "builtin" and kind[1] in EFFECT_BUILTINS:
                # ph.atomic_add(T[...], v): a call statement.
                self.out.start_line()
                self.expr(node.value, _PREC_OR)
                return
            self.expr(node.value, _PREC_OR)  # an unknown function is the better message
        if method is None:
            raise self.error(node, _REFUSED_STATEMENTS.get(
                type(node), f"'{type(node).__name__}' statements do not exist in Phobos"))
        method(node)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "only a name can be declared: name: ph.let = value")
        name = node.target.id
        annotation = node.annotation
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            annotation = self.parse_string_expr(annotation)
        decl = self.lang_kind(annotation)
        declared_type = None
        if decl is None or decl[0] != "decl":
            if isinstance(annotation, ast.Subscript):
                decl = self.lang_kind(annotation.value)
                declared_type = annotation.slice
            if decl is None or decl[0] != "decl":
                raise self.error(annotation, f"a declaration is 'name: ph.let = value' (immutable) "
                                 f"or 'name: ph.var = value' (mutable), optionally typed: "
                                 f"{name}: ph.var[ph.f32] = 0.0")
        if node.value is None:
            raise self.error(node, f"'{name}' needs a value: {name}: ph.{decl[1]} = ...")
        emit_type = self.local_type(declared_type) if declared_type is not None else None
        self.out.start_line()
        self.out.emit(decl[1], _pos(node))
        self.out.emit(" ")
        self.out.emit(name, _pos(node.target))
        if emit_type is not None:
            self.out.emit(": ")
            emit_type()
        self.out.emit(" = ", self.src.find(_end(node.annotation), _pos(node.value), "=") or _pos(node))
        self.expr(node.value, _PREC_OR)
        self.declare(node.target, name, decl[1])

    def stmt_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            raise self.error(node.targets[1], "Phobos has no chained assignment (a = b = c)")
        target = node.targets[0]
        self.check_target(target)
        self.out.start_line()
        self.target(target)
        self.out.emit(" = ", self.src.find(_end(target), _pos(node.value), "=") or _pos(node))
        self.expr(node.value, _PREC_OR)

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        op = _AUGOPS.get(type(node.op))
        if op is None:
            token = _BINOP_TOKENS.get(type(node.op), "?") + "="
            raise self.error(node, f"Phobos has no '{token}'; the compound assignments are "
                             "+=, -=, *= and /=")
        self.check_target(node.target)
        self.out.start_line()
        self.target(node.target)
        self.out.emit(f" {op} ", self.src.find(_end(node.target), _pos(node.value), op) or _pos(node))
        self.expr(node.value, _PREC_OR)

    def check_target(self, target: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if self.bound(target.id) is None:
                raise self.error(target, f"'{target.id}' is not declared; declare it with "
                                 f"'{target.id}: ph.let = ...' (immutable) or "
                                 f"'{target.id}: ph.var = ...' (mutable)")
            return
        if isinstance(target, ast.Subscript):
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            raise self.error(target, "Phobos has no tuple assignment; assign one name at a time")
        raise self.error(target, "only a declared 'var' name or a tensor slice can be assigned")

    def target(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            self.out.emit(node.id, _pos(node))
        else:
            self.subscript(node)

    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node.orelse[0], "Phobos loops have no 'else'")
        if node.type_comment:
            raise self.error(node, "type comments are not part of a kernel")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "a loop variable is one name: for i in range(a, b)")
        call = node.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "range"):
            raise self.error(node.iter, "a kernel loops only over range(start, end[, step])")
        if call.keywords:
            raise self.error(call.keywords[0], "range takes no keywords")
        if not 1 <= len(call.args) <= 3:
            raise self.error(call, f"range takes 1 to 3 arguments, got {len(call.args)}")
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                raise self.error(arg, "range does not take '*' arguments")
        self.out.start_line()
        self.out.emit("for", _pos(node))
        self.out.emit(" ")
        self.out.emit(node.target.id, _pos(node.target))
        self.out.emit(" in ", self.src.find(_end(node.target), _pos(call), "in") or _pos(node))
        self.out.emit("range", _pos(call.func))
        self.out.emit("(", _pos(call))
        args = call.args
        if len(args) == 1:
            # range(n) is range(0, n), as in Python.
            self.out.emit("0", _pos(args[0]))
            self.out.emit(", ")
            self.expr(args[0], _PREC_OR)
        else:
            for index, arg in enumerate(args):
                if index:
                    self.out.emit(", ")
                self.expr(arg, _PREC_OR)
        self.out.emit(")", _pos(call))
        self.out.emit(" {")
        self.scopes.append(_Scope({node.target.id: "loop"}))
        self.out.indent += 1
        self.body(node.body)
        self.out.indent -= 1
        self.scopes.pop()
        self.out.start_line()
        self.out.emit("}")

    def stmt_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error(node.orelse[0], "Phobos loops have no 'else'")
        self.out.start_line()
        self.out.emit("while", _pos(node))
        self.out.emit(" ")
        self.condition(node.test)
        self.block(node.body)

    def stmt_If(self, node: ast.If) -> None:
        self.out.start_line()
        self.if_chain(node)

    def if_chain(self, node: ast.If) -> None:
        self.out.emit("if", _pos(node))
        self.out.emit(" ")
        self.condition(node.test)
        self.block(node.body)
        if not node.orelse:
            return
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            self.out.emit(" else ")
            self.depth += 1
            self.if_chain(node.orelse[0])
            self.depth -= 1
            return
        self.out.emit(" else")
        self.block(node.orelse)

    def condition(self, node: ast.expr) -> None:
        self.expr(node, _PREC_OR)

    # -- expressions ------------------------------------------------------------

    def expr(self, node: ast.AST, min_prec: int) -> None:
        self.depth += 1
        if self.depth > 190:
            raise self.error(node, "nesting is deeper than the compiler allows")
        prec = self.precedence(node)
        paren = prec < min_prec
        if paren:
            self.out.emit("(", _pos(node))
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(node, _REFUSED_EXPRESSIONS.get(
                type(node), f"'{type(node).__name__}' expressions do not exist in Phobos"))
        method(node)
        if paren:
            self.out.emit(")")
        self.depth -= 1

    def precedence(self, node: ast.AST) -> int:
        if isinstance(node, ast.BoolOp):
            return _PREC_OR if isinstance(node.op, ast.Or) else _PREC_AND
        if isinstance(node, ast.Compare):
            return _CMPOPS[type(node.ops[0])][1] if type(node.ops[0]) in _CMPOPS else _PREC_EQ
        if isinstance(node, ast.BinOp):
            return _BINOPS[type(node.op)][1] if type(node.op) in _BINOPS else _PREC_MUL
        if isinstance(node, ast.UnaryOp):
            return _PREC_UNARY
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool) and node.value < 0:
            return _PREC_UNARY
        return _PREC_ATOM

    def expr_BoolOp(self, node: ast.BoolOp) -> None:
        token, prec = ("||", _PREC_OR) if isinstance(node.op, ast.Or) else ("&&", _PREC_AND)
        word = "or" if token == "||" else "and"
        for index, value in enumerate(node.values):
            if index:
                at = self.src.find(_end(node.values[index - 1]), _pos(value), word) or _pos(node)
                self.out.emit(" ")
                self.out.emit(token, at)
                self.out.emit(" ")
            self.expr(value, prec if index == 0 else prec + 1)

    def expr_BinOp(self, node: ast.BinOp) -> None:
        entry = _BINOPS.get(type(node.op))
        token = _BINOP_TOKENS.get(type(node.op), "?")
        at = self.src.find(_end(node.left), _pos(node.right), token) or _pos(node)
        if entry is None:
            raise self.error(at, _BINOP_REFUSED.get(type(node.op), f"Phobos has no '{token}'"))
        token, prec = entry
        self.expr(node.left, prec)
        self.out.emit(" ")
        self.out.emit(token, at)
        self.out.emit(" ")
        self.expr(node.right, prec + 1)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.USub):
            self.out.emit("-", _pos(node))
        elif isinstance(node.op, ast.Not):
            self.out.emit("!", _pos(node))
        elif isinstance(node.op, ast.UAdd):
            raise self.error(node, "Phobos has no unary '+'; a '+' right after ':' in a subscript "
                             "spells ':+' (x[base:+BLOCK])")
        else:
            raise self.error(node, "Phobos has no '~'; for bool values write 'not'")
        self.expr(node.operand, _PREC_UNARY)

    def expr_Compare(self, node: ast.Compare) -> None:
        if len(node.ops) > 1:
            at = self.src.find(_end(node.comparators[0]), _pos(node.comparators[1]),
                               _cmp_token(node.ops[1])) or _pos(node)
            raise self.error(at, "comparisons do not chain in Phobos (a < b < c compares a bool "
                             "with a number); write (a < b) and (b < c)")
        op = node.ops[0]
        token = _cmp_token(op)
        at = self.src.find(_end(node.left), _pos(node.comparators[0]), token.split()[0]) or _pos(node)
        if type(op) not in _CMPOPS:
            raise self.error(at, f"Phobos has no '{token}'; compare numbers and bools with == "
                             "and !=")
        token, prec = _CMPOPS[type(op)]
        self.expr(node.left, prec)
        self.out.emit(" ")
        self.out.emit(token, at)
        self.out.emit(" ")
        self.expr(node.comparators[0], prec + 1)

    def expr_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if value is True or value is False:
            self.out.emit("true" if value else "false", _pos(node))
        elif type(value) is int:
            self.out.emit(str(value), _pos(node))
        elif type(value) is float:
            self.out.emit(self.float_literal(node), _pos(node))
        elif isinstance(value, str):
            raise self.error(node, "Phobos has no strings")
        elif value is None:
            raise self.error(node, "Phobos has no None")
        elif value is Ellipsis:
            raise self.error(node, "'...' means nothing in a kernel")
        else:
            raise self.error(node, f"Phobos has no {type(value).__name__} literals")

    def float_literal(self, node: ast.Constant) -> str:
        text = ast.get_source_segment(self.src.text, node) or ""
        if _PHOBOS_FLOAT.match(text):
            return text
        value = node.value
        if value != value or value in (float("inf"), float("-inf")):
            raise self.error(node, "a float literal must be finite")
        return _float_text(value)

    def expr_Name(self, node: ast.Name) -> None:
        if self.bound(node.id) is None:
            kind = self.lang_kind(node)
            if kind is not None and kind[0] != "python":
                if kind[0] == "ctx_value":
                    self.out.emit(kind[1], _pos(node))
                    return
                raise self.error(node, f"'{node.id}' is {_describe(kind)}, not a value")
            if kind is not None and node.id in self.globals:
                literal = self.global_literal(node, self.globals[node.id])
                if literal is not None:
                    self.out.emit(literal, _pos(node))
                    return
        self.out.emit(node.id, _pos(node))

    def global_literal(self, node: ast.Name, value: Any) -> str | None:
        """A module-level bool, int or float that a kernel reads (Triton's
        `LOG2E: tl.constexpr = 1.44...`), as the literal of its value when
        the kernel is translated; None for any other object."""
        if value is True or value is False:
            return "true" if value else "false"
        if type(value) is int:
            if not -2**63 <= value < 2**63:
                raise self.error(node, f"'{node.id}' is {value}, outside the range of i64")
            return str(value) if value >= 0 else f"({value})"
        if type(value) is float:
            if value != value or value in (float("inf"), float("-inf")):
                raise self.error(node, f"'{node.id}' is {value}; a float constant must be finite")
            text = _float_text(value)
            return text if value >= 0 else f"({text})"
        return None

    def expr_Attribute(self, node: ast.Attribute) -> None:
        kind = self.lang_kind(node)
        if kind is not None and kind[0] == "ctx_value":
            self.out.emit(kind[1], _pos(node))
            return
        if kind is not None and kind[0] != "python":
            raise self.error(node, f"'{ast.unparse(node)}' is {_describe(kind)}, not a value")
        raise self.error(node, f"'{ast.unparse(node)}' is not a Phobos value; the language's "
                         "attribute chains are ph.ctx.block.x/y/z and ph.ctx.grid.x/y/z")

    def expr_Call(self, node: ast.Call) -> None:
        if node.keywords:
            raise self.error(node.keywords[0], "Phobos calls take no keyword arguments")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.error(arg, "Phobos calls do not take '*' arguments")
        func = node.func
        kind = self.lang_kind(func)
        if kind is None or kind[0] not in ("builtin", "scalar"):
            name = ast.unparse(func)
            if isinstance(func, ast.Name) and self.bound(func.id) is not None:
                reason = f"'{name}' is a kernel name, not a function"
            elif kind is not None and kind[0] == "range":
                reason = "range(...) is only the iterable of a for loop"
            elif kind is not None and kind[0] != "python":
                reason = f"'{name}' is {_describe(kind)}, not a function"
            elif name in ("min", "max"):
                reason = f"call to an unknown function '{name}'; Phobos's element-wise " \
                         f"{name}imum is ph.t{name}(a, b)"
            elif name in ("float", "int"):
                reason = f"call to an unknown function '{name}'; Phobos's casts are " \
                         f"ph.{'f32' if name == 'float' else 'i32'}(x) and the other type names"
            elif name == "print":
                reason = "call to an unknown function 'print'; a kernel cannot print (run it on " \
                         "the interpreter with NumPy arrays to look at values)"
            else:
                reason = f"call to an unknown function '{name}'; a kernel calls only the " \
                         "built-ins of phobos.lang (ph.dot, ph.exp, ...) and casts (ph.f16(x))"
            raise self.error(func, reason)
        self.out.emit(kind[1], _pos(func) if not isinstance(func, ast.Attribute)
                      else (func.end_lineno, func.end_col_offset + 1 - len(func.attr)))
        self.out.emit("(", _pos(node))
        for index, arg in enumerate(node.args):
            if index:
                self.out.emit(", ")
            self.expr(arg, _PREC_OR)
        self.out.emit(")")

    def expr_Subscript(self, node: ast.Subscript) -> None:
        self.subscript(node)

    def subscript(self, node: ast.Subscript) -> None:
        base = node.value
        if not isinstance(base, ast.Name):
            raise self.error(base, "only a tensor parameter can be subscripted")
        self.expr_Name(base)
        self.out.emit("[", self.src.find(_end(base), _end(node), "[") or _pos(node))
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for index, part in enumerate(parts):
            if index:
                self.out.emit(", ")
            if isinstance(part, ast.Slice):
                self.slice(part, node)
            else:
                self.expr(part, _PREC_OR)
        self.out.emit("]")

    def slice(self, part: ast.Slice, owner: ast.Subscript) -> None:
        if part.step is not None:
            raise self.error(part.step, "Phobos slices have no step")
        colon_from = _end(part.lower) if part.lower is not None else _pos(part)
        colon_to = _pos(part.upper) if part.upper is not None else _end(owner)
        colon = self.src.find(colon_from, colon_to, ":") or _pos(part)
        if part.lower is None and part.upper is None:
            self.out.emit(":", colon)
            return
        if part.lower is None or part.upper is None:
            raise self.error(colon, "open-ended slices do not exist in Phobos: write 's :+ n' "
                             "(n elements from s), 's : e' or ':' (the whole axis)")
        self.expr(part.lower, _PREC_OR)
        count = _strip_leading_uplus(part.upper)
        if count is not None:
            self.out.emit(" :+ ", colon)
            self.expr(count, _PREC_OR)
        else:
            self.out.emit(" : ", colon)
            self.expr(part.upper, _PREC_OR)

    def expr_IfExp(self, node: ast.IfExp) -> None:
        raise self.error(node, "Phobos has no conditional expression (a if c else b); write "
                         "ph.where(c, a, b), which evaluates both sides")


def _cmp_token(op: ast.cmpop) -> str:
    return {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
            ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}[type(op)]


def _describe(kind: tuple[str, str]) -> str:
    return {"module": "the phobos.lang module", "builtin": f"the built-in ph.{kind[1]}",
            "scalar": f"the type ph.{kind[1]}", "attribute": f"the attribute @ph.{kind[1]}",
            "kernel": "ph.kernel", "shaped": f"the type ph.{kind[1]}",
            "decl": f"ph.{kind[1]}, which only annotates a declaration",
            "ctx": "ph.ctx (write ph.ctx.block.x)", "ctx_axes": f"ph.{kind[1]} (add .x, .y or .z)",
            "precision": "a @ph.tensorcore precision", "range": "range",
            }.get(kind[0], f"'{kind[1]}'")


def _strip_leading_uplus(node: ast.AST) -> ast.AST | None:
    """``+n`` after ':' spells ':+'. Python reads ``s:+a*2`` as ``(+a)*2``, so
    the unary plus is looked for down the left spine of the arithmetic and
    the expression is rebuilt without it; None when there is none."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
        return node.operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left = _strip_leading_uplus(node.left)
        if left is None:
            return None
        rebuilt = ast.BinOp(left=left, op=node.op, right=node.right)
        ast.copy_location(rebuilt, node)
        rebuilt.lineno, rebuilt.col_offset = left.lineno, left.col_offset
        return rebuilt
    return None


_REFUSED_STATEMENTS = {
    ast.Return: "Phobos kernels return nothing and have no 'return': a kernel ends at the end "
                "of its body and writes its results to tensors",
    ast.Break: "Phobos has no 'break'; loop with 'while' and a var condition",
    ast.Continue: "Phobos has no 'continue'; guard the rest of the body with 'if'",
    ast.Expr: "the value of this expression is unused: Phobos has no expression statements "
              "(only ph.atomic_add changes a tensor); store it or bind it with ph.let",
    ast.Delete: "Phobos has no 'del'",
    ast.Global: "kernels see no Python globals",
    ast.Nonlocal: "kernels see no Python variables",
    ast.Import: "a kernel cannot import; import at module level",
    ast.ImportFrom: "a kernel cannot import; import at module level",
    ast.Assert: "Phobos has no 'assert'",
    ast.Raise: "Phobos has no exceptions",
    ast.Try: "Phobos has no exceptions",
    ast.With: "Phobos has no 'with'",
    ast.AsyncWith: "Phobos has no 'with'",
    ast.AsyncFor: "Phobos has no async loops",
    ast.FunctionDef: "a kernel cannot define functions",
    ast.AsyncFunctionDef: "a kernel cannot define functions",
    ast.ClassDef: "a kernel cannot define classes",
    ast.Match: "Phobos has no 'match'; use if/elif",
}
if hasattr(ast, "TryStar"):
    _REFUSED_STATEMENTS[ast.TryStar] = "Phobos has no exceptions"

_REFUSED_EXPRESSIONS = {
    ast.Lambda: "Phobos has no lambdas",
    ast.ListComp: "Phobos has no comprehensions; a tile operation works on every element",
    ast.SetComp: "Phobos has no comprehensions",
    ast.DictComp: "Phobos has no comprehensions",
    ast.GeneratorExp: "Phobos has no generators",
    ast.List: "Phobos has no lists",
    ast.Tuple: "Phobos has no tuples",
    ast.Dict: "Phobos has no dicts",
    ast.Set: "Phobos has no sets",
    ast.JoinedStr: "Phobos has no strings",
    ast.FormattedValue: "Phobos has no strings",
    ast.NamedExpr: "Phobos has no ':='; declare with ph.let",
    ast.Await: "Phobos has no 'await'",
    ast.Yield: "Phobos has no 'yield'",
    ast.YieldFrom: "Phobos has no 'yield'",
    ast.Starred: "Phobos has no '*' unpacking",
    ast.Slice: "a slice stands only in a tensor subscript",
}


# -- entry points ---------------------------------------------------------------

_module_cache: dict[tuple[str, int], ast.Module] = {}


def _parse_module(filename: str, text: str) -> ast.Module:
    key = (filename, hash(text))
    tree = _module_cache.get(key)
    if tree is None:
        tree = parse_source(filename, text)
        _module_cache[key] = tree
    return tree


def _find_function(tree: ast.Module, name: str, first_line: int) -> ast.FunctionDef | None:
    candidates = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            lines = [node.lineno] + [d.lineno for d in node.decorator_list]
            if first_line in lines:
                return node
            candidates.append(node)
    return candidates[0] if len(candidates) == 1 else None


def translate_function(function: types.FunctionType) -> Translation:
    """Translates a ``@ph.kernel`` function, reading its module's source."""
    if not isinstance(function, types.FunctionType):
        # print, a class, a functools.partial: nothing with a source to read.
        # The error points at the caller of ph.kernel (the decorator's line).
        frame = sys._getframe(1)
        while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("phobos."):
            frame = frame.f_back
        filename, line = frame.f_code.co_filename, frame.f_lineno
        what = getattr(function, "__qualname__", None) or repr(function)
        raise KernelSyntaxError(filename, line, 1, f"@ph.kernel takes a function written with "
                                f"'def' in a file, got {type(function).__name__} '{what}'",
                                linecache.getline(filename, line) or None)
    code = function.__code__
    filename = code.co_filename
    lines = linecache.getlines(filename, function.__globals__)
    if not lines:
        raise KernelSyntaxError(filename, code.co_firstlineno, 1,
                                f"cannot read the source of kernel '{function.__name__}': the "
                                "package reads a kernel's source and never runs it, so a kernel "
                                "must be defined in a file (or a notebook cell)")
    text = "".join(lines)
    tree = _parse_module(filename, text)
    node = _find_function(tree, function.__name__, code.co_firstlineno)
    if node is None:
        raise KernelSyntaxError(filename, code.co_firstlineno, 1,
                                f"cannot find the definition of kernel '{function.__name__}' in "
                                "its source file (was the file changed after it was imported?)")
    path = filename if filename.startswith("<") else os.path.abspath(filename)
    return _KernelTranslator(_SourceFile(path, text), node, function.__globals__).translate()


def translate_tree(tree: ast.Module, text: str, filename: str, module_globals: Mapping[str, Any],
                   name: str | None = None) -> list[Translation]:
    """Translates every ``@ph.kernel`` function of a parsed module (or only
    ``name``), its names resolved in ``module_globals``."""
    source = _SourceFile(filename, text)
    results = []
    registry = _names.kinds()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if name is not None and node.name != name:
            continue
        translator = _KernelTranslator(source, node, module_globals)
        is_kernel = any(registry.get(id(translator.resolve(d))) == ("kernel", "kernel")
                        for d in node.decorator_list)
        if is_kernel or name is not None:
            results.append(translator.translate())
    return results
