"""The launch contract of a compiled kernel variant, and the checks every
launch makes against it before anything reaches the GPU.

The checks and their messages follow the C++ launcher (lib/Runtime/
Launcher.cpp, docs/runtime.md section 5), plus what only Python can see: the
device an array is on, and arrays that are not arrays at all. The first
problem raises an ArgumentError naming the parameter.
"""

from __future__ import annotations

import ctypes
import math
import numbers
import struct
from typing import Any, Sequence

from phobos._arrays import HOST, ArrayInfo, describe
from phobos._errors import ArgumentError

_INT_LIMITS = {"i32": (-(2 ** 31), 2 ** 31 - 1), "i64": (-(2 ** 63), 2 ** 63 - 1)}
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

    def __init__(self, data: dict[str, Any]) -> None:
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
        grid = data.get("grid", {})
        self.grid_terms: list[list[tuple[str, int]]] = []
        self.grid_explicit: list[bool] = []
        for axis in "xyz":
            entry = grid.get(axis, {})
            self.grid_terms.append([(t["dim"], int(t["divisor"])) for t in entry.get("ceil_div_max", [])])
            self.grid_explicit.append(bool(entry.get("explicit", False)))

    def dynamic_dims(self) -> list[str]:
        names: list[str] = []
        for slot in self.params:
            for dim, extent in zip(slot.dims, slot.static_shape):
                if extent < 0 and dim not in names:
                    names.append(dim)
        return names

    def dim_value(self, name: str, dims: dict[str, int]) -> int | None:
        if name in dims:
            return dims[name]
        for slot in self.params:
            for dim, extent in zip(slot.dims, slot.static_shape):
                if dim == name and extent >= 0:
                    return extent
        return None

    def grid_for(self, dims: dict[str, int]) -> tuple[int, int, int]:
        """The grid the contract infers (LaunchContract::gridFor)."""
        result = [1, 1, 1]
        for axis in range(3):
            if self.grid_explicit[axis]:
                raise ArgumentError(self.kernel, "", f"the grid's {'xyz'[axis]} axis cannot be "
                                    "inferred from the kernel's slices; give the grid "
                                    "explicitly: kernel[(x, y, z)](...)")
            for dim, divisor in self.grid_terms[axis]:
                extent = self.dim_value(dim, dims)
                if extent is None:
                    raise ArgumentError(self.kernel, "", f"the grid needs dim '{dim}'")
                result[axis] = max(result[axis], -(-extent // divisor))
        return (result[0], result[1], result[2])


def _format_number(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


_BF16_MAX = 3.3895313892515355e38


def round_bf16(value: float) -> int:
    """bfloat16 bits of ``value``, round to nearest even from the double."""
    if math.isnan(value):
        return 0x7FC0
    if math.isinf(value) or value == 0:
        return struct.unpack("<I", struct.pack("<f", value))[0] >> 16
    _, exponent = math.frexp(abs(value))
    quantum = max(exponent - 8, -133)  # 8 significant bits; subnormals below 2^-126
    rounded = math.copysign(round(math.ldexp(abs(value), -quantum)) * 2.0 ** quantum, value)
    if abs(rounded) > _BF16_MAX:
        return 0x7F80 | (0x8000 if value < 0 else 0)
    return struct.unpack("<I", struct.pack("<f", rounded))[0] >> 16


def bf16_to_float(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def pack_scalar(kernel: str, slot: ParamSlot, value: Any) -> tuple[Any, float | int]:
    """Checks a scalar argument; returns (what the kernel parameter holds: the
    value, or the bits of an f16/bf16, and the value as the kernel sees it)."""
    name, dtype = slot.name, slot.dtype
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if isinstance(value, bool) or kind == "b":
        number: float | int = int(bool(value))
    elif isinstance(value, numbers.Integral):
        number = int(value)
    elif isinstance(value, numbers.Real):
        number = float(value)
    else:
        raise ArgumentError(kernel, name, f"expected a scalar ({dtype}), got "
                            f"{type(value).__name__} {value!r}")
    if dtype == "bool":
        if number not in (0, 1):
            raise ArgumentError(kernel, name, f"expected a bool (0 or 1), got {_format_number(number)}")
        return int(number), int(number)
    if dtype in _INT_LIMITS:
        if isinstance(number, float):
            if not math.isfinite(number) or not number.is_integer():
                raise ArgumentError(kernel, name, f"expected an integral {dtype}, got "
                                    f"{_format_number(number)}")
            number = int(number)
        low, high = _INT_LIMITS[dtype]
        if not low <= number <= high:
            raise ArgumentError(kernel, name, f"{number} does not fit in {dtype}")
        return number, number
    number = float(number)
    if dtype == "f64":
        return number, number
    if dtype == "bf16":
        bits = round_bf16(number)
        if math.isfinite(number) and bits & 0x7FFF == 0x7F80:
            raise ArgumentError(kernel, name, f"{_format_number(number)} overflows bf16 to infinity")
        return bits, bf16_to_float(bits)
    code = "<f" if dtype == "f32" else "<e"
    try:
        packed = struct.pack(code, number)
    except OverflowError:
        raise ArgumentError(kernel, name, f"{_format_number(number)} overflows {dtype} to "
                            "infinity") from None
    seen = struct.unpack(code, packed)[0]
    if dtype == "f32":
        return seen, seen
    return struct.unpack("<H", packed)[0], seen


def check_tensor(contract: Contract, slot: ParamSlot, info: ArrayInfo, dims: dict[str, int],
                 bound_by: dict[str, tuple[str, int]]) -> None:
    """The tensor checks of bindArguments, in its order."""
    kernel, name = contract.kernel, slot.name
    if info.ptr == 0 and info.device != HOST:
        raise ArgumentError(kernel, name, "is a null pointer")
    if info.ptr % 16:
        raise ArgumentError(kernel, name, f"data at {info.ptr:#x} is not 16-byte aligned "
                            "(kernels read 16-byte vectors; a view that starts mid-array can "
                            "break this: pass a copy)")
    if info.dtype != slot.dtype:
        raise ArgumentError(kernel, name, f"expected {slot.dtype} elements, got {info.dtype_text}")
    rank = len(slot.dims)
    if len(info.shape) != rank:
        raise ArgumentError(kernel, name, f"expected rank {rank}, got {len(info.shape)}")
    if info.strides is not None:
        dense = [1] * rank
        for axis in range(rank - 1, 0, -1):
            dense[axis - 1] = dense[axis] * max(info.shape[axis], 0)
        for axis in range(rank):
            if info.shape[axis] != 1 and info.strides[axis] != dense[axis]:
                raise ArgumentError(kernel, name, f"strides {list(info.strides)} are not dense "
                                    f"row-major (expected {dense}); kernels index tensors as "
                                    "dense: pass a contiguous copy")
    for axis in range(rank):
        expected = slot.static_shape[axis]
        if expected >= 0 and info.shape[axis] != expected:
            raise ArgumentError(kernel, name, f"axis {axis} (dim '{slot.dims[axis]}') is "
                                f"{info.shape[axis]} but the kernel was compiled for {expected}")
    for axis in range(rank):
        dim, extent = slot.dims[axis], info.shape[axis]
        if dim not in dims:
            dims[dim] = extent
            bound_by[dim] = (name, axis)
            continue
        if dims[dim] == extent:
            continue
        first, first_axis = bound_by[dim]
        if first == name:
            raise ArgumentError(kernel, name, f"axes {first_axis} and {axis} are both dim "
                                f"'{dim}' but are {dims[dim]} and {extent}")
        raise ArgumentError(kernel, name, f"dim '{dim}' is {extent} here but {dims[dim]} in "
                            f"argument '{first}'")
    max_extent = 2 ** (max(2, min(contract.index_bits, 64)) - 1) - 1
    for axis in range(rank):
        extent = info.shape[axis]
        if extent < 1:
            raise ArgumentError(kernel, name, f"axis {axis} (dim '{slot.dims[axis]}') is {extent}; "
                                "extents must be at least 1")
        if extent > max_extent:
            raise ArgumentError(kernel, name, f"axis {axis} (dim '{slot.dims[axis]}') is {extent}, "
                                f"beyond the kernel's {contract.index_bits}-bit index range (at "
                                f"most {max_extent})")
    for axis in range(rank):
        multiple = contract.aligned.get(slot.dims[axis])
        if multiple and info.shape[axis] % multiple:
            raise ArgumentError(kernel, name, f"breaks @aligned({slot.dims[axis]} = {multiple}): "
                                f"{slot.dims[axis]} is {info.shape[axis]}")


class Bound:
    """A checked launch: the arrays, the scalars as the kernel sees them, the
    dims and the device."""

    __slots__ = ("arrays", "scalars", "dims", "device", "values")

    def __init__(self) -> None:
        self.arrays: dict[str, ArrayInfo] = {}
        self.scalars: dict[str, float | int] = {}
        self.dims: dict[str, int] = {}
        self.device = HOST
        self.values: list[Any] = []  # per kernel parameter (ABI order): the value to pass


def bind(contract: Contract, args: Sequence[Any], infos: Sequence[ArrayInfo | None] | None = None) -> Bound:
    """Checks ``args`` against the contract; raises ArgumentError at the
    first problem. ``infos`` may carry the arrays already described."""
    kernel = contract.kernel
    params = contract.params
    if len(args) != len(params):
        raise ArgumentError(kernel, "", f"expected {len(params)} argument"
                            f"{'' if len(params) == 1 else 's'} "
                            f"({', '.join(p.name for p in params)}), got {len(args)}")
    if infos is None:
        infos = [describe(arg) for arg in args]
    bound = Bound()
    bound_by: dict[str, tuple[str, int]] = {}
    device: int | None = None
    device_param = ""
    for slot, arg, info in zip(params, args, infos):
        if slot.kind == "tensor":
            if info is None:
                what = "a scalar" if isinstance(arg, (numbers.Number, bool)) else \
                    f"a {type(arg).__module__}.{type(arg).__name__}" if type(arg).__module__ != "builtins" \
                    else f"a {type(arg).__name__}"
                raise ArgumentError(kernel, slot.name, f"expected a tensor of {slot.dtype}, got "
                                    f"{what} (pass a NumPy array, or a GPU array: torch, CuPy, "
                                    "anything with __cuda_array_interface__)")
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
            check_tensor(contract, slot, info, bound.dims, bound_by)
            bound.arrays[slot.name] = info
            bound.values.append(info.ptr)
            for axis, extent in enumerate(info.shape):
                if slot.static_shape[axis] < 0:
                    bound.values.append(extent)
            continue
        if info is not None:
            raise ArgumentError(kernel, slot.name, f"expected a scalar ({slot.dtype}), got a tensor")
        bits, seen = pack_scalar(kernel, slot, arg)
        bound.scalars[slot.name] = seen
        bound.values.append(bits)
    bound.device = HOST if device is None else device
    return bound


def check_grid(kernel: str, grid: Any) -> tuple[int, int, int]:
    """A grid of 1 to 3 positive integers within the GPU's limits."""
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
    for axis, extent in enumerate(axes):
        limit = 2 ** 31 - 1 if axis == 0 else 65535
        if extent < 1:
            raise ArgumentError(kernel, "", f"grid {'xyz'[axis]} extent is {extent}; it must be at "
                                "least 1")
        if extent > limit:
            raise ArgumentError(kernel, "", f"grid {'xyz'[axis]} extent is {extent}, more than the "
                                f"{limit} the GPU allows")
    return (axes[0], axes[1], axes[2])


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
