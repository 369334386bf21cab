"""Phobos from Python: write tile kernels as Python functions, launch them on
the GPU (torch, CuPy, any ``__cuda_array_interface__`` array) or on the CPU
interpreter (NumPy arrays).

    import phobos.lang as ph

The public surface is ``phobos.lang``, the :class:`Kernel` a ``@ph.kernel``
makes, and the exceptions below.
"""

from phobos._errors import (ArgumentError, CompileError, KernelRuntimeError,
                            KernelSyntaxError, PhobosError, RaceError, ToolNotFoundError)

__version__ = "0.3.0"  # the project's (CMakeLists.txt), checked by test_seed.py

__all__ = ["ArgumentError", "CompileError", "Kernel", "KernelRuntimeError",
           "KernelSyntaxError", "PhobosError", "RaceError", "ToolNotFoundError", "__version__"]


def __getattr__(name: str):
    # Kernel pulls in the launcher; import it when asked for.
    if name == "Kernel":
        from phobos._kernel import Kernel
        return Kernel
    raise AttributeError(f"module 'phobos' has no attribute '{name}'")
