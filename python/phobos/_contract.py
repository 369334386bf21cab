"""The launch contract of a compiled kernel variant, and the launch checks.

The checks themselves are the library's (phobos::bindArguments through
phobos-c/Runtime.h, docs/runtime.md section 5): element types, ranks,
extents, contiguity, alignment, @aligned promises, index ranges, scalar
ranges and the grid's limits, with the same messages for phobos-run, the
tuner, the pods and Python. What only Python can see is checked here first:
arguments that are neither arrays nor numbers, arrays in memory Phobos cannot
run on, and arrays of one launch on different devices. The first problem
raises an ArgumentError naming the parameter.
"""

from __future__ import annotations

import ctypes
import numbers
import struct
from typing import Any, Sequence

from phobos import _library
from phobos._arrays import HOST, ArrayInfo, describe
from phobos._errors import ArgumentError

_INT64 = (-(2 ** 63), 2 ** 63 - 1)
_CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32,
           "i64": ctypes.c_int64, "bool": ctypes.c_uint8, "f16": ctypes.c_uint16,
           "bf16": ctypes.c_uint16}


class ParamSlot:
    __slots__ = ("name", "kind", "dtype", "dims", "static_shape", "read", "written")

    def __init__(self, data: dict[str, Any]) -> None:
        self.name: str = data["name"]
        self.kind: str = "tensor" if data["kind"] == "tensor" else "scalar"
        self.dtype: str = data["dtype"]
        self.dims: list[str] = list(data.get("dims", []))
        shape = list(data.get("static_shape", []))
        self.static_shape: list[int] = shape + [-1] * (len(self.dims) - len(shape))
        self.read: bool = bool(data.get("read", False))
        self.written: bool = bool(data.get("written", False))


class Contract:
    """A compiled variant's launch contract (docs/runtime.md section 3)."""

    def __init__(self, json_text: str) -> None:
        import json
        data = json.loads(json_text)
        self.json_text = json_text
        self.data = data
        self.kernel: str = data["kernel"]
        variant = data.get("variant", {})
        self.variant: list[tuple[str, int]] = [(n, int(variant[n])) for n in data.get("variant_order", [])
                                               if n in variant]
        self.params = [ParamSlot(p) for p in data["params"]]
        self.index_bits = int(data.get("index_bits", 32))
        self.cta_threads = int(data.get("cta_threads", 256))
        self.shared_memory_bytes = int(data.get("shared_memory_bytes", 0))
        self.aligned: dict[str, int] = {k: int(v) for k, v in data.get("aligned", {}).items()}
        #: TMA tensor maps the kernel takes after its parameters: (tensor
        #: parameter, box rows, box cols, swizzle bytes); the launcher encodes them.
        self.tensor_maps: list[tuple[str, int, int, int]] = [
            (m["param"], int(m["box"][0]), int(m["box"][1]), int(m["swizzle_bytes"]))
            for m in data.get("tensor_maps", [])]
        self.chip: str | None = data.get("chip")
        #: @persistent: the CTAs loop over the grid's tiles; the launcher
        #: starts as many as the GPU holds at once (docs/runtime.md).
        self.persistent = bool(data.get("persistent", False))
        self._library_contract: _library.LaunchContract | None = None

    def library_contract(self) -> _library.LaunchContract:
        """The contract in libphobos, where launches are checked (parsed once)."""
        if self._library_contract is None:
            self._library_contract = _library.LaunchContract(self.json_text)
        return self._library_contract


def scalar_value(kernel: str, slot: ParamSlot, value: Any) -> int | float:
    """A scalar argument as a number (an int where it is one within int64,
    else a float), or an ArgumentError for what is not a number at all. The
    library checks the number against the parameter's type."""
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if isinstance(value, bool) or kind == "b":
        return int(bool(value))
    try:
        if isinstance(value, numbers.Integral):
            number = int(value)
            return number if _INT64[0] <= number <= _INT64[1] else float(number)
        if isinstance(value, numbers.Real):
            return float(value)
    except OverflowError:
        # 10**400: beyond every type a parameter may have (f64 included).
        raise ArgumentError(kernel, slot.name, f"{_abbreviated(value)} is outside the range "
                            f"of {slot.dtype}") from None
    raise ArgumentError(kernel, slot.name, f"expected a scalar ({slot.dtype}), got "
                        f"{type(value).__name__} {value!r}")


def _abbreviated(value: Any) -> str:
    """A number's text, its middle elided past 40 digits (10**400 has 401)."""
    try:
        text = str(value)
    except ValueError:  # an int beyond Python's own digit limit for str()
        return f"a {type(value).__name__} of about {int(value).bit_length()} bits"
    return text if len(text) <= 40 else f"{text[:12]}...{text[-6:]} ({len(text)} digits)"


def _seen(slot: ParamSlot, value: int | float, packed: bytes) -> int | float:
    """The scalar as the kernel sees it (an f32 rounded, an f16's value)."""
    dtype = slot.dtype
    if dtype in ("i32", "i64", "bool"):
        return int(value)
    if dtype == "f64":
        return float(value)
    if dtype == "f32":
        return struct.unpack_from("<f", packed)[0]
    if dtype == "f16":
        return struct.unpack_from("<e", packed)[0]
    return struct.unpack("<f", b"\0\0" + packed[:2])[0]  # bf16: the high half of an f32


class Bound:
    """A checked launch: the arrays, the scalars as the kernel sees them, the
    dims, the device, each kernel parameter's value (ABI order), the tensor
    maps and the library's bound launch (which chooses the grid)."""

    __slots__ = ("arrays", "scalars", "dims", "device", "values", "tensor_maps", "launch",
                 "kernel")

    def __init__(self, kernel: str) -> None:
        self.kernel = kernel
        self.arrays: dict[str, ArrayInfo] = {}
        self.scalars: dict[str, float | int] = {}
        self.dims: dict[str, int] = {}
        self.device = HOST
        self.values: list[Any] = []
        self.tensor_maps: list[bytes] = []
        self.launch: _library.BoundLaunch | None = None

    def set_grid(self, grid: Any) -> tuple[int, int, int]:
        """Chooses the grid (1 to 3 integers, or None: the one the contract
        infers) and returns it; a persistent kernel's is its tile grid."""
        extents = None if grid is None else grid_extents(self.kernel, grid)
        try:
            self.launch.set_grid(extents)
        except _library.LaunchRejected as error:
            raise ArgumentError(self.kernel, error.param, error.reason) from None
        return self.launch.tile_grid()


def bind(contract: Contract, args: Sequence[Any], infos: Sequence[ArrayInfo | None] | None = None,
         encode_tiled: int | None = None) -> Bound:
    """Checks ``args`` against the contract; raises ArgumentError at the
    first problem. ``infos`` may carry the arrays already described;
    ``encode_tiled`` is the driver's cuTensorMapEncodeTiled, for a contract
    with tensor maps. The grid is chosen afterwards (Bound.set_grid)."""
    kernel = contract.kernel
    params = contract.params
    if infos is None:
        infos = [describe(arg) for arg in args]
    bound = Bound(kernel)
    arguments: list[tuple] = []
    if len(args) != len(params):  # the library says what it expected
        arguments = [("scalar", 0)] * len(args)
        params, args, infos = [], [], []
    device: int | None = None
    device_param = ""
    for slot, arg, info in zip(params, args, infos):
        if info is None:
            if slot.kind == "tensor" and not isinstance(arg, (numbers.Number, bool)):
                what = f"a {type(arg).__module__}.{type(arg).__name__}" \
                    if type(arg).__module__ != "builtins" else f"a {type(arg).__name__}"
                raise ArgumentError(kernel, slot.name, f"expected a tensor of {slot.dtype}, got "
                                    f"{what} (pass a NumPy array, or a GPU array: torch, CuPy, "
                                    "anything with __cuda_array_interface__)")
            value = scalar_value(kernel, slot, arg)
            bound.scalars[slot.name] = value
            arguments.append(("scalar", value))
            continue
        if info.device == -2:
            raise ArgumentError(kernel, slot.name, f"is a {info.dtype_text}: Phobos runs "
                                "CUDA arrays on the GPU and NumPy arrays on the CPU "
                                "interpreter")
        if device is None:
            device, device_param = info.device, slot.name
        elif info.device != device:
            raise ArgumentError(kernel, slot.name, f"is in {info.where()} but argument "
                                f"'{device_param}' is in "
                                f"{'host memory (NumPy)' if device == HOST else f'GPU {device}'}; "
                                "every array of a launch must be on the same device")
        bound.arrays[slot.name] = info
        arguments.append(("tensor", info.ptr, info.dtype or "", info.dtype_text, info.shape,
                          info.strides))
    try:
        bound.launch = contract.library_contract().bind(arguments, encode_tiled)
    except _library.LaunchRejected as error:
        raise ArgumentError(kernel, error.param, error.reason) from None
    packed = bound.launch.params()
    for kind, raw in zip(parameter_types(contract), packed):
        bound.values.append(kind.from_buffer_copy(raw[:ctypes.sizeof(kind)]).value)
    position = 0
    for slot in contract.params:
        if slot.kind == "tensor":
            position += 1 + sum(1 for extent in slot.static_shape if extent < 0)
        else:
            bound.scalars[slot.name] = _seen(slot, bound.scalars[slot.name], packed[position])
            position += 1
    bound.tensor_maps = bound.launch.tensor_maps()
    bound.dims = bound.launch.dims()
    bound.device = HOST if device is None else device
    return bound


def grid_extents(kernel: str, grid: Any) -> tuple[int, int, int]:
    """A grid as 3 integers (1 to 3 given; the rest 1); its limits are the
    library's to check."""
    if isinstance(grid, numbers.Integral):
        grid = (grid,)
    try:
        axes = [int(g) for g in grid]
        if any(not isinstance(g, numbers.Integral) for g in grid):
            raise TypeError
    except TypeError:
        raise ArgumentError(kernel, "", f"the grid is 1 to 3 integers, got {grid!r}") from None
    if not 1 <= len(axes) <= 3:
        raise ArgumentError(kernel, "", f"the grid is 1 to 3 integers, got {len(axes)}")
    axes += [1] * (3 - len(axes))
    return (axes[0], axes[1], axes[2])


def within_limits(grid: tuple[int, int, int]) -> bool:
    """Whether a grid is one the GPU takes (for the launch fast path, which
    sends any other to the full checks)."""
    return 1 <= grid[0] <= 2 ** 31 - 1 and 1 <= grid[1] <= 65535 and 1 <= grid[2] <= 65535


def parameter_types(contract: Contract) -> list[type]:
    """The ctypes type of each kernel parameter, in ABI order."""
    types: list[type] = []
    for slot in contract.params:
        if slot.kind == "tensor":
            types.append(ctypes.c_uint64)
            types.extend(ctypes.c_int32 for extent in slot.static_shape if extent < 0)
        else:
            types.append(_CTYPES[slot.dtype])
    return types
