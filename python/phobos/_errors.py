"""The exceptions of the package. Every one that points into a kernel names
``file:line:col`` and shows the line with a caret, like the compiler does."""

from __future__ import annotations


class PhobosError(Exception):
    """Base class of every error the package raises."""


def format_location(filename: str, line: int, col: int, line_text: str | None,
                    message: str, severity: str = "error") -> str:
    """``file:line:col: error: message``, the source line and a caret under
    ``col`` (1-based, counted in UTF-8 bytes as the compiler counts)."""
    text = f"{filename}:{line}:{col}: {severity}: {message}"
    if line_text is not None:
        raw = line_text.rstrip("\r\n")
        prefix = raw.encode("utf-8")[: max(col - 1, 0)].decode("utf-8", "replace")
        # Tabs keep their width so that the caret lines up under them.
        pad = "".join("\t" if ch == "\t" else " " for ch in prefix)
        text += f"\n{raw}\n{pad}^"
    return text


class KernelSyntaxError(PhobosError):
    """A Python construct that spells nothing in Phobos, found by the front end
    before the compiler runs. ``filename``, ``lineno``, ``col`` and ``reason``
    say where and why."""

    def __init__(self, filename: str, line: int, col: int, reason: str,
                 line_text: str | None = None) -> None:
        super().__init__(format_location(filename, line, col, line_text, reason))
        self.filename = filename
        self.lineno = line
        self.col = col
        self.reason = reason


class CompileError(PhobosError):
    """The compiler rejected a kernel. The message is the compiler's, with
    every location mapped back to the Python file."""

    def __init__(self, message: str, kernel: str | None = None) -> None:
        super().__init__(message)
        self.kernel = kernel


class KernelRuntimeError(PhobosError):
    """The interpreter stopped a kernel (an out-of-range scalar access, a step
    limit), or the CUDA driver failed a call."""


class RaceError(KernelRuntimeError):
    """The race check found accesses to one element by two CTAs that
    nothing orders. The message has each pair at the Python lines of both
    accesses; ``races`` counts the pairs of ops."""

    def __init__(self, message: str, races: int) -> None:
        super().__init__(message)
        self.races = races


class ArgumentError(PhobosError, ValueError):
    """An argument that the kernel's launch contract rejects. ``param`` names
    the parameter (empty for the count and the grid); ``reason`` says why."""

    def __init__(self, kernel: str, param: str, reason: str) -> None:
        where = f"argument '{param}'" if param else "launch"
        super().__init__(f"{kernel}: {where}: {reason}")
        self.kernel = kernel
        self.param = param
        self.reason = reason


class ToolNotFoundError(PhobosError, FileNotFoundError):
    """phobos-compile or phobos-run is not next to the package, on PATH or in
    PHOBOS_HOME."""
