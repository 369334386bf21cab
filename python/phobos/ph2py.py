"""ph2py: turns a Phobos source file (.ph) into the Python module that spells it.

    ph2py examples/saxpy_fp32.ph -o saxpy_fp32.py

Each kernel becomes a ``@ph.kernel`` function whose ``.source`` imports to
the same tile IR as the original; ``//`` comments become ``#`` comments.
The input is expected to be a valid Phobos program (run phobos-translate
--import-phobos on it to check); constructs that have no Python spelling
(a name that is a Python keyword, an unknown attribute) are errors.
"""

from __future__ import annotations

import argparse
import dataclasses
import keyword
import re
import sys
from pathlib import Path
from typing import Any

from phobos._names import BUILTINS, SCALAR_TYPES

__all__ = ["convert", "main", "Ph2PyError"]


class Ph2PyError(Exception):
    def __init__(self, filename: str, line: int, col: int, reason: str, text: str | None = None):
        message = f"{filename}:{line}:{col}: error: {reason}"
        if text is not None:
            message += f"\n{text}\n{' ' * (col - 1)}^"
        super().__init__(message)


# -- lexer ----------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*)
  | (?P<float>[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)
  | (?P<int>[0-9]+)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>:\+|&&|\|\||==|!=|<=|>=|\+=|-=|\*=|/=|[-+*/%<>=!()\[\]{},:;@.])
""", re.VERBOSE)

_KEYWORDS = {"kernel", "let", "var", "if", "else", "for", "in", "while", "true", "false"}


@dataclasses.dataclass
class Token:
    kind: str  # ident, keyword, int, float, op, end (statement terminator), eof
    text: str
    line: int
    col: int


@dataclasses.dataclass
class Comment:
    text: str
    line: int
    own_line: bool


def tokenize(text: str, filename: str) -> tuple[list[Token], list[Comment]]:
    tokens: list[Token] = []
    comments: list[Comment] = []
    line, line_start, pos = 1, 0, 0
    lines = text.splitlines()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        col = pos - line_start + 1
        if not match:
            raise Ph2PyError(filename, line, col, f"unexpected character {text[pos]!r}",
                             lines[line - 1] if line <= len(lines) else None)
        kind = match.lastgroup
        value = match.group()
        if kind == "newline":
            if tokens and (tokens[-1].kind in ("ident", "int", "float") or
                           tokens[-1].text in ("true", "false", ")", "]", "}")):
                tokens.append(Token("end", "\n", line, col))
            line += 1
            line_start = match.end()
        elif kind == "comment":
            own = not tokens or tokens[-1].line != line
            comments.append(Comment(value[2:].rstrip(), line, own))
        elif kind != "space":
            if kind == "ident" and value in _KEYWORDS:
                kind = "keyword"
            tokens.append(Token(kind, value, line, col))
        pos = match.end()
    tokens.append(Token("end", "", line, pos - line_start + 1))
    tokens.append(Token("eof", "", line, pos - line_start + 1))
    return tokens, comments


# -- parser (to a small tree of tuples) ------------------------------------------------

@dataclasses.dataclass
class Node:
    kind: str
    line: int
    col: int
    fields: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.fields[name]
        except KeyError:
            raise AttributeError(name) from None


class Parser:
    def __init__(self, text: str, filename: str) -> None:
        self.text_lines = text.splitlines()
        self.filename = filename
        self.tokens, self.comments = tokenize(text, filename)
        self.pos = 0

    def error(self, token: Token, reason: str) -> Ph2PyError:
        text = self.text_lines[token.line - 1] if 0 < token.line <= len(self.text_lines) else None
        return Ph2PyError(self.filename, token.line, token.col, reason, text)

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def next(self) -> Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def at(self, text: str) -> bool:
        return self.tok.text == text and self.tok.kind in ("op", "keyword", "ident")

    def accept(self, text: str) -> Token | None:
        if self.at(text):
            return self.next()
        return None

    def expect(self, text: str, what: str = "") -> Token:
        if not self.at(text):
            got = "end of line" if self.tok.kind == "end" else repr(self.tok.text) or "end of file"
            raise self.error(self.tok, f"expected '{text}'{what}, got {got}")
        return self.next()

    def ident(self) -> Token:
        if self.tok.kind != "ident":
            raise self.error(self.tok, f"expected a name, got {self.tok.text!r}")
        return self.next()

    def skip_ends(self) -> None:
        while self.tok.kind == "end" or self.at(";"):
            self.next()

    def program(self) -> list[Node]:
        kernels = []
        self.skip_ends()
        while self.tok.kind != "eof":
            kernels.append(self.kernel())
            self.skip_ends()
        return kernels

    def kernel(self) -> Node:
        start = self.tok
        attributes = []
        while self.at("@"):
            at = self.next()
            name = self.ident()
            args = None
            if self.accept("("):
                args = []
                while not self.at(")"):
                    args.append(self.attribute_arg())
                    if not self.accept(","):
                        break
                    self.skip_newlines_in_args()
                self.expect(")")
            attributes.append(Node("attribute", at.line, at.col, {"name": name.text, "args": args}))
            self.skip_ends()
        kw = self.expect("kernel")
        name = self.ident()
        self.expect("(")
        params = []
        while not self.at(")"):
            self.skip_newlines_in_args()
            if self.at(")"):
                break
            pname = self.ident()
            self.expect(":")
            params.append((pname, self.type()))
            if not self.accept(","):
                break
        self.skip_newlines_in_args()
        close = self.expect(")")
        body = self.block()
        return Node("kernel", start.line, start.col,
                    {"attributes": attributes, "name": name.text, "params": params, "body": body,
                     "kw_line": kw.line, "header_end": close.line})

    def skip_newlines_in_args(self) -> None:
        while self.tok.kind == "end" and self.tok.text == "\n":
            self.next()

    def attribute_arg(self) -> Node:
        token = self.tok
        if token.kind == "ident" and self.tokens[self.pos + 1].text == "in":
            self.next()
            self.next()
            self.expect("[")
            values = []
            while True:
                negative = bool(self.accept("-"))
                number = self.next()
                if number.kind != "int":
                    raise self.error(number, "expected an integer")
                values.append(-int(number.text) if negative else int(number.text))
                if not self.accept(","):
                    break
            self.expect("]")
            return Node("in", token.line, token.col, {"name": token.text, "values": values})
        if token.kind == "ident" and self.tokens[self.pos + 1].text == "=":
            self.next()
            self.next()
            return Node("assign", token.line, token.col, {"name": token.text, "value": self.expr()})
        return Node("plain", token.line, token.col, {"value": self.expr()})

    def type(self) -> Node:
        token = self.ident()
        if token.text in ("tensor", "tile"):
            self.expect("<")
            element = self.ident()
            self.expect(">")
            self.expect("[")
            dims = []
            while True:
                dim = self.next()
                if dim.kind not in ("ident", "int"):
                    raise self.error(dim, "expected an extent")
                dims.append(dim.text if dim.kind == "ident" else str(int(dim.text)))
                if not self.accept(","):
                    break
            self.expect("]")
            return Node("shaped", token.line, token.col, {"what": token.text, "element": element.text,
                                                          "dims": dims})
        return Node("scalar", token.line, token.col, {"name": token.text})

    def block(self) -> Node:
        open_ = self.expect("{")
        statements = []
        self.skip_ends()
        while not self.at("}"):
            if self.tok.kind == "eof":
                raise self.error(self.tok, "expected '}'")
            statements.append(self.statement())
            self.skip_ends()
        close = self.expect("}")
        return Node("block", open_.line, open_.col, {"statements": statements, "end": close.line})

    def statement(self) -> Node:
        token = self.tok
        if self.at("let") or self.at("var"):
            self.next()
            name = self.ident()
            declared = self.type() if self.accept(":") else None
            self.expect("=")
            value = self.expr()
            return Node("decl", token.line, token.col, {"decl": token.text, "name": name.text,
                                                        "type": declared, "value": value,
                                                        "end": self.tokens[self.pos - 1].line})
        if self.at("for"):
            self.next()
            var = self.ident()
            self.expect("in")
            word = self.ident()
            if word.text != "range":
                raise self.error(word, "expected range(...)")
            self.expect("(")
            args = [self.expr()]
            while self.accept(","):
                if self.at(")"):
                    break
                args.append(self.expr())
            self.expect(")")
            return Node("for", token.line, token.col, {"var": var.text, "args": args,
                                                       "body": self.block()})
        if self.at("while"):
            self.next()
            cond = self.expr()
            return Node("while", token.line, token.col, {"cond": cond, "body": self.block()})
        if self.at("if"):
            return self.if_statement()
        target = self.postfix()
        if target.kind == "call" and (self.tok.kind in ("end", "eof") or self.at("}") or
                                      self.at(";")):
            # atomic_add(T[...], v): a call statement.
            return Node("call_stmt", token.line, token.col,
                        {"call": target, "end": self.tokens[self.pos - 1].line})
        op = self.next()
        if op.text not in ("=", "+=", "-=", "*=", "/="):
            raise self.error(op, "expected an assignment")
        value = self.expr()
        return Node("assign", token.line, token.col, {"target": target, "op": op.text, "value": value,
                                                      "end": self.tokens[self.pos - 1].line})

    def if_statement(self) -> Node:
        token = self.expect("if")
        cond = self.expr()
        body = self.block()
        orelse = None
        if self.accept("else"):
            orelse = self.if_statement() if self.at("if") else self.block()
        return Node("if", token.line, token.col, {"cond": cond, "body": body, "orelse": orelse})

    _LEVELS = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%")]

    def expr(self, level: int = 0) -> Node:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.expr(level + 1)
        while self.tok.kind == "op" and self.tok.text in self._LEVELS[level]:
            op = self.next()
            right = self.expr(level + 1)
            left = Node("binary", op.line, op.col, {"op": op.text, "left": left, "right": right,
                                                    "level": level + 1})
        return left

    def unary(self) -> Node:
        if self.at("-") or self.at("!"):
            op = self.next()
            return Node("unary", op.line, op.col, {"op": op.text, "operand": self.unary()})
        return self.postfix()

    def postfix(self) -> Node:
        token = self.tok
        if token.kind in ("int", "float"):
            self.next()
            return Node(token.kind, token.line, token.col, {"text": token.text})
        if token.text in ("true", "false") and token.kind == "keyword":
            self.next()
            return Node("bool", token.line, token.col, {"value": token.text == "true"})
        if self.accept("("):
            inner = self.expr()
            self.expect(")")
            return inner
        name = self.ident()
        if name.text == "ctx" and self.at("."):
            self.next()
            what = self.ident()
            self.expect(".")
            axis = self.ident()
            return Node("ctx", name.line, name.col, {"what": what.text, "axis": axis.text})
        if self.accept("("):
            args = []
            self.skip_newlines_in_args()
            while not self.at(")"):
                args.append(self.expr())
                if not self.accept(","):
                    break
                self.skip_newlines_in_args()
            self.expect(")")
            return Node("call", name.line, name.col, {"name": name.text, "args": args})
        if self.accept("["):
            items = []
            while True:
                items.append(self.subscript())
                if not self.accept(","):
                    break
            self.expect("]")
            return Node("index", name.line, name.col, {"name": name.text, "items": items})
        return Node("name", name.line, name.col, {"name": name.text})

    def subscript(self) -> Node:
        token = self.tok
        if self.at(":") and self.tokens[self.pos + 1].text in (",", "]"):
            self.next()
            return Node("all", token.line, token.col, {})
        start = self.expr()
        if self.accept(":+"):
            return Node("count", token.line, token.col, {"start": start, "count": self.expr()})
        if self.accept(":"):
            return Node("range", token.line, token.col, {"start": start, "end": self.expr()})
        return Node("point", token.line, token.col, {"index": start})


# -- Python emission --------------------------------------------------------------------

_BUILTINS = set(BUILTINS)
_SCALARS = set(SCALAR_TYPES)
# Python precedence of what ph2py writes.
_PY_OR, _PY_AND, _PY_NOT, _PY_CMP, _PY_ADD, _PY_MUL, _PY_UNARY, _PY_ATOM = 1, 2, 3, 4, 6, 7, 8, 10
_PY_BINARY = {"||": ("or", _PY_OR), "&&": ("and", _PY_AND), "==": ("==", _PY_CMP),
              "!=": ("!=", _PY_CMP), "<": ("<", _PY_CMP), "<=": ("<=", _PY_CMP),
              ">": (">", _PY_CMP), ">=": (">=", _PY_CMP), "+": ("+", _PY_ADD), "-": ("-", _PY_ADD),
              "*": ("*", _PY_MUL), "/": ("/", _PY_MUL), "%": ("%", _PY_MUL)}


class Writer:
    def __init__(self, parser: Parser, module_name: str) -> None:
        self.parser = parser
        self.lines: list[str] = []
        self.comments = list(parser.comments)
        self.next_comment = 0
        self.module_name = module_name
        self.loops = 0  # loops around the statement being written

    def name(self, text: str, node: Node) -> str:
        if keyword.iskeyword(text) or text in ("True", "False", "None"):
            token = Token("ident", text, node.line, node.col)
            raise self.parser.error(token, f"'{text}' is a Python keyword, so it cannot be a name "
                                    "in the Python spelling; rename it")
        if text == "ph":
            raise self.parser.error(Token("ident", text, node.line, node.col),
                                    "'ph' is the module alias of the Python spelling; rename it")
        return text

    # comments

    def flush_comments(self, before_line: int, indent: int) -> None:
        while self.next_comment < len(self.comments) and self.comments[self.next_comment].line < before_line:
            comment = self.comments[self.next_comment]
            self.lines.append("    " * indent + "#" + (comment.text if comment.text.startswith(" ")
                                                       or not comment.text else " " + comment.text))
            self.next_comment += 1

    def line(self, text: str, indent: int, first: int, last: int | None = None) -> None:
        """A Python line for Phobos lines first..last; comments at the end of
        those lines follow it."""
        self.flush_comments(first, indent)
        trailing = []
        last = first if last is None else last
        while (self.next_comment < len(self.comments)
               and self.comments[self.next_comment].line <= last
               and not self.comments[self.next_comment].own_line):
            trailing.append(self.comments[self.next_comment].text.strip())
            self.next_comment += 1
        self.lines.append("    " * indent + text + ("  # " + "; ".join(trailing) if trailing else ""))

    # types and expressions

    def type(self, node: Node) -> str:
        if node.kind == "scalar":
            if node.name not in _SCALARS:
                raise self.parser.error(Token("ident", node.name, node.line, node.col),
                                        f"unknown type '{node.name}'")
            return f"ph.{node.name}"
        dims = ", ".join(node.dims)
        return f"ph.{node.what}[ph.{node.element}][{dims}]"

    def expr(self, node: Node, min_prec: int = 0) -> str:
        text, prec = self.expr_prec(node)
        return f"({text})" if prec < min_prec else text

    def expr_prec(self, node: Node) -> tuple[str, int]:
        kind = node.kind
        if kind == "int":
            return str(int(node.text)), _PY_ATOM
        if kind == "float":
            return node.text, _PY_ATOM
        if kind == "bool":
            return ("True" if node.value else "False"), _PY_ATOM
        if kind == "name":
            return self.name(node.name, node), _PY_ATOM
        if kind == "ctx":
            return f"ph.ctx.{node.what}.{node.axis}", _PY_ATOM
        if kind == "call":
            if node.name not in _BUILTINS and node.name not in _SCALARS:
                raise self.parser.error(Token("ident", node.name, node.line, node.col),
                                        f"unknown function '{node.name}'")
            return f"ph.{node.name}({', '.join(self.expr(a) for a in node.args)})", _PY_ATOM
        if kind == "index":
            parts = []
            for item in node.items:
                if item.kind == "all":
                    parts.append(":")
                elif item.kind == "point":
                    parts.append(self.expr(item.index))
                elif item.kind == "range":
                    parts.append(f"{self.expr(item.start)}:{self.expr(item.end)}")
                else:
                    count, prec = self.expr_prec(item.count)
                    if prec < _PY_ADD:
                        count = f"({count})"
                    parts.append(f"{self.expr(item.start)}:+{count}")
            return f"{self.name(node.name, node)}[{', '.join(parts)}]", _PY_ATOM
        if kind == "unary":
            if node.op == "!":
                return f"not {self.expr(node.operand, _PY_NOT)}", _PY_NOT
            return f"-{self.expr(node.operand, _PY_UNARY)}", _PY_UNARY
        if kind == "binary":
            token, prec = _PY_BINARY[node.op]
            if prec == _PY_CMP:
                # Python chains comparisons; Phobos does not: parenthesise.
                return f"{self.expr(node.left, _PY_CMP + 1)} {token} {self.expr(node.right, _PY_CMP + 1)}", prec
            return f"{self.expr(node.left, prec)} {token} {self.expr(node.right, prec + 1)}", prec
        raise AssertionError(kind)

    # statements

    def block(self, block: Node, indent: int) -> None:
        if not block.statements:
            self.flush_comments(block.end, indent)
            self.lines.append("    " * indent + "pass")
            return
        for statement in block.statements:
            self.statement(statement, indent)
        self.flush_comments(block.end, indent)

    def statement(self, node: Node, indent: int) -> None:
        if node.kind == "decl":
            annotation = f"ph.{node.decl}"
            if node.type is not None:
                annotation += f"[{self.type(node.type)}]"
            self.line(f"{self.name(node.name, node)}: {annotation} = {self.expr(node.value)}",
                      indent, node.line, node.end)
        elif node.kind == "assign":
            self.line(f"{self.expr(node.target)} {node.op} {self.expr(node.value)}", indent,
                      node.line, node.end)
        elif node.kind == "call_stmt":
            self.line(self.expr(node.call), indent, node.line, node.end)
        elif node.kind == "for":
            args = ", ".join(self.expr(a) for a in node.args)
            self.nest(node, indent, loop=True)
            self.line(f"for {self.name(node.var, node)} in range({args}):", indent, node.line,
                      node.body.line)
            self.loops += 1
            self.block(node.body, indent + 1)
            self.loops -= 1
        elif node.kind == "while":
            self.nest(node, indent, loop=True)
            self.line(f"while {self.expr(node.cond)}:", indent, node.line, node.body.line)
            self.loops += 1
            self.block(node.body, indent + 1)
            self.loops -= 1
        elif node.kind == "if":
            self.if_chain(node, indent, "if")
        else:
            raise AssertionError(node.kind)

    # CPython compiles at most 20 nested loops in a function (statically
    # nested blocks) and 99 levels of indentation in a file: a kernel nested
    # deeper has no Python spelling. Said at the statement, not found later
    # by compile() at the kernel.
    _MAX_LOOPS = 20
    _MAX_INDENT = 99

    def nest(self, node: Node, indent: int, loop: bool = False) -> None:
        token = Token("ident", node.kind, node.line, node.col)
        if loop and self.loops + 1 > self._MAX_LOOPS:
            raise self.parser.error(token, f"loops nest {self.loops + 1} deep here; Python compiles "
                                    f"at most {self._MAX_LOOPS} nested loops in a function, so "
                                    "this kernel has no Python spelling")
        if indent + 1 > self._MAX_INDENT:
            raise self.parser.error(token, f"blocks nest {indent} deep here; Python allows at most "
                                    f"{self._MAX_INDENT - 1} nested blocks in a function, so this "
                                    "kernel has no Python spelling")

    def if_chain(self, node: Node, indent: int, word: str) -> None:
        self.nest(node, indent)
        self.line(f"{word} {self.expr(node.cond)}:", indent, node.line, node.body.line)
        self.block(node.body, indent + 1)
        if node.orelse is None:
            return
        if node.orelse.kind == "if":
            self.if_chain(node.orelse, indent, "elif")
        else:
            self.line("else:", indent, node.orelse.line)
            self.block(node.orelse, indent + 1)

    def attribute(self, node: Node) -> str:
        name, args = node.name, node.args
        bad = Token("ident", name, node.line, node.col)
        if name in ("autotune", "cluster"):
            if not args or any(a.kind != "in" for a in args):
                raise self.parser.error(bad, f"@{name} takes 'NAME in [...]' arguments")
            inner = ", ".join(f"{a.name}=[{', '.join(map(str, a.values))}]" for a in args)
            return f"@ph.{name}({inner})"
        # Decorator arguments run as Python: an expression of the @autotune
        # names is passed as a string, which the front end parses.
        def literal_or_string(value: Node) -> str:
            return str(int(value.text)) if value.kind == "int" else f'"{self.expr(value)}"'
        if name == "launch":
            return f"@ph.launch({', '.join(literal_or_string(a.value) for a in args or [])})"
        if name == "pipeline":
            if not args:
                return "@ph.pipeline"
            return f"@ph.pipeline({literal_or_string(args[0].value)})"
        if name in ("warp_specialize", "persistent"):
            if not args:
                return f"@ph.{name}"
            return f"@ph.{name}({literal_or_string(args[0].value)})"
        if name == "tensorcore":
            if not args:
                return "@ph.tensorcore"
            value = args[0].value
            return f"@ph.tensorcore(ph.{value.name})"
        if name == "aligned":
            parts = []
            for arg in args or []:
                if arg.kind != "assign":
                    raise self.parser.error(bad, "@aligned takes 'DIM = MULTIPLE' arguments")
                if arg.value.kind == "int":
                    parts.append(f"{arg.name}={int(arg.value.text)}")
                else:
                    parts.append(f'{arg.name}="{self.expr(arg.value)}"')
            return f"@ph.aligned({', '.join(parts)})"
        raise self.parser.error(bad, f"unknown attribute '@{name}' has no Python spelling")

    def kernel(self, node: Node) -> None:
        self.flush_comments(node.line, 0)
        self.lines.append("@ph.kernel")
        for attribute in node.attributes:
            self.line(self.attribute(attribute), 0, attribute.line)
        seen: set[str] = set()
        for param, _ in node.params:
            if param.text in seen:  # Python refuses a repeated argument name
                raise self.parser.error(param, f"parameter '{param.text}' is declared twice; "
                                        "the library refuses that too")
            seen.add(param.text)
        params = [f"{self.name(p.text, node)}: {self.type(t)}" for p, t in node.params]
        one_line = f"def {self.name(node.name, node)}({', '.join(params)}):"
        if len(one_line) <= 100:
            self.line(one_line, 0, node.kw_line, node.body.line)
        else:
            head = f"def {node.name}("
            self.flush_comments(node.kw_line, 0)
            self.lines.append(head + params[0] + ",")
            for param in params[1:-1]:
                self.lines.append(" " * len(head) + param + ",")
            self.line(" " * len(head) + params[-1] + "):", 0, node.kw_line, node.body.line)
        self.block(node.body, 1)

    def module(self, kernels: list[Node]) -> str:
        self.lines += [f"# Written by ph2py from {self.module_name}.", "",
                       "from __future__ import annotations", "", "import phobos.lang as ph"]
        self.kernel_lines: list[tuple[int, int]] = []  # (Python line, .ph line)
        for kernel in kernels:
            self.lines += ["", ""]
            self.kernel_lines.append((len(self.lines) + 1, kernel.line))
            self.kernel(kernel)
        self.flush_comments(10 ** 9, 0)
        return "\n".join(self.lines) + "\n"


def convert(text: str, filename: str = "<input>") -> str:
    """The Python module that spells the Phobos program ``text``."""
    parser = Parser(text, filename)
    kernels = parser.program()
    writer = Writer(parser, Path(filename).name)
    module = writer.module(kernels)
    # Never write Python that does not compile: say so, at the kernel whose
    # Python it is.
    try:
        compile(module, filename, "exec", dont_inherit=True)
    except SyntaxError as error:
        line = 1
        for python_line, kernel_line in writer.kernel_lines:
            if python_line <= (error.lineno or 1):
                line = kernel_line
        raise Ph2PyError(filename, line, 1, f"the Python ph2py would write for this kernel "
                         f"does not compile ({error.msg})") from None
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ph2py", description="Turn a Phobos source file (.ph) "
                                     "into the Python module that spells it.")
    parser.add_argument("input", help="the .ph file ('-' reads stdin)")
    parser.add_argument("-o", "--output", help="the .py file to write (default: stdout)")
    options = parser.parse_args(argv)
    try:
        if options.input == "-":
            text, name = sys.stdin.read(), "<stdin>"
        else:
            text, name = Path(options.input).read_text(), options.input
    except OSError as error:
        print(f"ph2py: cannot read '{options.input}': {error.strerror}", file=sys.stderr)
        return 2
    try:
        module = convert(text, name)
    except Ph2PyError as error:
        print(f"ph2py: {error}", file=sys.stderr)
        return 1
    if options.output:
        Path(options.output).write_text(module)
    else:
        sys.stdout.write(module)
    return 0


if __name__ == "__main__":
    sys.exit(main())
