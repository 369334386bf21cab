"""The launch fast path of ``kernel[grid](...)``: plans of launches already
checked.

A launch that went through every check (Kernel._launch_gpu) leaves a plan keyed by
what those checks depended on: the grid (when not a callable), the variant
keywords and each argument's signature (a tensor's library, element type,
shape, contiguity, device and stream; a scalar's Python type). A later
launch with the same key re-checks only what can change between calls: the
pointers (null, 16-byte alignment), the scalars' values and a callable
grid's result; anything else it sees goes back to the full path, which
raises the same errors as before.
"""

from __future__ import annotations

import ctypes
import math
import struct
import sys
import threading
from typing import Any, Callable, Mapping, Sequence

from phobos import _library
from phobos._arrays import _ITEMSIZE, ArrayInfo, describe, stream_handle
from phobos._contract import Bound, Contract, grid_extents, parameter_types, within_limits

# What a plan is made from and launches for, as phobos._kernel defines them
# (the kernel object, its loaded GPU variant, a variant's values); named here
# only for the reader: this module does not import phobos._kernel, which
# imports it.
Kernel = Any
LoadedKernel = Any
Variant = tuple

_F32_MAX = 3.4028234663852886e38


def _torch_signature(tensor: Any) -> tuple[tuple, int]:
    return (tensor.dtype, tensor.shape, tensor.is_contiguous(), tensor.get_device()), \
        tensor.data_ptr()


def _cupy_signature(array: Any) -> tuple[tuple, int]:
    return (array.dtype, array.shape, array.flags.c_contiguous, array.device.id), array.data.ptr


# Array types whose signature is read from the array directly (no
# ArrayInfo): filled in as the full path meets them.
_SIGNATURES: dict[type, Callable[[Any], tuple[tuple, int]]] = {}
_LIBRARY_SIGNATURES = {"torch": _torch_signature, "cupy": _cupy_signature}
_CALLABLE_GRID = object()
_MAX_PLANS = 8  # per grid and variant keywords: the latest signatures
_UNKEYABLE = object()  # a grid no plan can be found by


def _grid_key(grid: Any) -> Any:
    """What identifies a grid in a plan's key; _UNKEYABLE for one that cannot."""
    if callable(grid):
        return _CALLABLE_GRID
    if isinstance(grid, list):
        grid = tuple(grid)
    try:
        hash(grid)
    except TypeError:
        return _UNKEYABLE
    return grid


def _signature(args: Sequence[Any], infos: Sequence[ArrayInfo | None] | None = None
               ) -> tuple[tuple, list[int]] | None:
    """(the key of the arguments, their tensors' pointers), or None where an
    argument is of a kind the fast path does not take."""
    key: list[Any] = []
    pointers: list[int] = []
    add_key, add_pointer = key.append, pointers.append
    signatures = _SIGNATURES
    for index, arg in enumerate(args):
        kind = type(arg)
        signature = signatures.get(kind)
        if signature is not None:
            array_key, pointer = signature(arg)
            add_key(array_key)
            add_pointer(pointer)
        elif kind is float or kind is int or kind is bool:
            add_key(kind)
        else:
            info = infos[index] if infos is not None else describe(arg)
            if info is None or info.device < 0:
                return None
            signature = _LIBRARY_SIGNATURES.get(info.library)
            if signature is not None:
                signatures[kind] = signature
                add_key(signature(arg)[0])
            else:
                add_key((kind, info.dtype, info.shape, info.strides, info.device, info.stream))
            add_pointer(info.ptr)
    return tuple(key), pointers


def _grid_meta(contract: Contract, bound: Bound, variant: Variant) -> dict[str, int]:
    """What a grid function is called with: the static dims, the bound ones
    and the variant's values."""
    meta: dict[str, int] = {}
    for slot in contract.params:
        for dim, extent in zip(slot.dims, slot.static_shape):
            if extent >= 0 and not dim.isdigit():
                meta[dim] = extent
    meta.update(bound.dims)
    meta.update(dict(variant))
    return meta


def _scalar_converter(slot: Any, argument: Any, bound_value: Any) -> Callable[[Any], Any]:
    """A function of a scalar argument that returns what its parameter holds,
    or None where the full path must check it (the library's checks raise
    the errors). ``argument`` and ``bound_value``: the argument of the
    launch the plan was made from, and what its parameter held."""
    dtype = slot.dtype
    if dtype == "f32":
        def f32(value: Any) -> Any:
            number = float(value)
            return number if -_F32_MAX <= number <= _F32_MAX or number != number else None
        return f32
    if dtype == "f64":
        return float
    if dtype in ("i32", "i64"):
        low, high = (-(2 ** 31), 2 ** 31 - 1) if dtype == "i32" else (-(2 ** 63), 2 ** 63 - 1)

        def integer(value: Any) -> Any:
            return value if type(value) is int and low <= value <= high else None
        return integer

    if dtype == "f16":
        def f16(value: Any) -> Any:
            try:  # struct rounds a double to the nearest f16, ties to even
                number = float(value)
                bits = struct.unpack("<H", struct.pack("<e", number))[0]
            except (OverflowError, TypeError, ValueError):
                return None
            return bits if type(value) in (float, int, bool) else None
        return f16
    if dtype == "bool":
        return lambda value: int(value) if type(value) in (bool, int) and value in (0, 1) else None
    # bf16: Python has no bfloat16; the value the plan was made with, else
    # the full path.
    made_with = type(argument), argument
    return lambda value: bound_value if (type(value), value) == made_with else None


def _raw_stream_function(infos: Sequence[ArrayInfo | None]) -> Callable[[int], int] | None:
    """torch's current raw stream of a device, as a function of the device,
    where the arguments are torch's and torch has one."""
    if not any(info is not None and info.library == "torch" for info in infos):
        return None
    torch = sys.modules["torch"]
    return getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)


def _stream_source(infos: Sequence[ArrayInfo | None], device: int) -> Callable[[], int]:
    """The stream a launch without stream= runs on, as stream_handle picks it."""
    libraries = {info.library for info in infos if info is not None}
    if "torch" in libraries:
        torch = sys.modules["torch"]
        raw = _raw_stream_function(infos)
        if raw is not None:
            return lambda: raw(device)
        return lambda: torch.cuda.current_stream(device).cuda_stream
    for info in infos:
        if info is not None and info.stream is not None:
            handle = int(info.stream)
            return lambda: handle
    if "cupy" in libraries:
        cupy = sys.modules["cupy"]
        return lambda: cupy.cuda.get_current_stream().ptr
    return lambda: 0


class _LaunchPlan:
    """One signature's launch, bound once: its own parameter buffers, the
    slots that change per call, the grid and the stream."""

    def __init__(self, kernel: Kernel, loaded: LoadedKernel, driver: Any, args: Sequence[Any],
                 infos: Sequence[ArrayInfo | None], bound: Bound, variant: Variant,
                 grid3: tuple[int, int, int] | None, key: tuple) -> None:
        contract = loaded.contract
        self.key = key
        self.driver = driver
        self.function = loaded.function
        self.block = contract.cta_threads
        self.shared = contract.shared_memory_bytes
        self.device = bound.device
        self.grid3 = grid3
        self.stream = _stream_source(infos, bound.device)
        # The same as a call and its argument, for the LaunchTable in C.
        raw = _raw_stream_function(infos)
        self.stream_call = (raw, bound.device) if raw is not None else (self.stream, None)
        self.lock = threading.Lock()
        self.slots = [kind() for kind in parameter_types(contract)]
        for slot, value in zip(self.slots, bound.values):
            slot.value = value
        self.pointer_slots = []
        self.scalar_slots = []
        # Per argument: the slot its pointer or value goes to.
        self.argument_slots = []
        position = 0
        tensor_ordinal: dict[str, int] = {}
        for index, param in enumerate(contract.params):
            self.argument_slots.append(self.slots[position])
            if param.kind == "tensor":
                tensor_ordinal[param.name] = len(self.pointer_slots)
                self.pointer_slots.append(self.slots[position])
                position += 1 + sum(1 for extent in param.static_shape if extent < 0)
            else:
                self.scalar_slots.append((index, self.slots[position],
                                          _scalar_converter(param, args[index],
                                                            self.slots[position].value)))
                position += 1
        # Tensor maps, as the library encoded them for these tensors: the
        # plan fits only launches whose tensors are where they were
        # (another plan, or the full path, serves the others).
        self.map_buffers = [ctypes.create_string_buffer(192) for _ in loaded.maps]
        self.maps = []
        self.mapped: dict[str, int] = {}  # tensor parameter -> the address its map is for
        for buffer, (param, *_), encoded in zip(self.map_buffers, contract.tensor_maps,
                                                 bound.tensor_maps):
            address = (ctypes.addressof(buffer) + 63) // 64 * 64
            ctypes.memmove(address, encoded, len(encoded))
            self.maps.append((address, tensor_ordinal[param], bound.arrays[param].ptr))
            self.mapped[param] = bound.arrays[param].ptr
        pointers = [ctypes.cast(ctypes.pointer(slot), ctypes.c_void_p) for slot in self.slots]
        pointers += [ctypes.c_void_p(entry[0]) for entry in self.maps]
        self.params = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        # What a callable grid is called with.
        self.grid_meta = _grid_meta(contract, bound, variant) if grid3 is None else {}
        self.current = ctypes.c_void_p()
        self.current_ref = ctypes.byref(self.current)
        self.native = _native_plan(self, contract, driver, args, infos, loaded.function)

    def __del__(self) -> None:
        native = getattr(self, "native", None)
        if not native:
            return
        try:
            _library.fast_launch().phobosPyPlanDestroy(native)
        except Exception:  # noqa: BLE001 - the interpreter is shutting down
            pass


# Scalar parameter types the native path converts (FastLaunch.c's ArgKind).
_NATIVE_SCALARS = {"f32": 1, "f64": 2, "i32": 3, "i64": 4, "bool": 5}


def _native_plan(plan: _LaunchPlan, contract: Contract, driver: Any, args: Sequence[Any],
                 infos: Sequence[ArrayInfo | None], function: Any) -> int | None:
    """The plan in libphobos-python (FastLaunch.c), where it can take it:
    torch tensors and f32/f64/i32/i64/bool scalars. A tensor read through a
    tensor map binds the plan to the address the map was encoded for, as
    the plan in Python is."""
    native = _library.fast_launch()
    entry_points = driver.entry_points()
    if native is None or entry_points is None:
        return None
    for param, info in zip(contract.params, infos):
        if param.kind == "tensor" and (info is None or info.library != "torch"):
            return None
        if param.kind == "scalar" and param.dtype not in _NATIVE_SCALARS:
            return None
    launch, get_current, set_current = entry_points
    handle = native.phobosPyPlanCreate(launch, get_current, set_current, function,
                                       driver.contexts[plan.device], plan.block, plan.shared,
                                       plan.params, len(args))
    if not handle:
        return None
    plan.native_refs = []  # what the C plan points at, alive as long as it
    for index, (param, arg) in enumerate(zip(contract.params, args)):
        slot = plan.argument_slots[index]
        if param.kind == "tensor":
            shape = (ctypes.c_longlong * max(1, len(arg.shape)))(*arg.shape)
            plan.native_refs += [type(arg), arg.dtype]
            ok = native.phobosPyPlanSetTensor(handle, index, type(arg), arg.dtype,
                                              arg.get_device(), len(arg.shape), shape,
                                              ctypes.addressof(slot))
            # Overlapping tensors, one written, go to the full path's refusal.
            ok = ok and native.phobosPyPlanSetSpan(
                handle, index, math.prod(arg.shape) * _ITEMSIZE.get(param.dtype, 8),
                int(param.written))
            if param.name in plan.mapped:
                ok = ok and native.phobosPyPlanSetMapped(handle, index, plan.mapped[param.name])
        else:
            ok = native.phobosPyPlanSetScalar(handle, index, _NATIVE_SCALARS[param.dtype],
                                              ctypes.addressof(slot))
        if not ok:
            native.phobosPyPlanDestroy(handle)
            return None
    return handle


def _launch_planned(kernel: Kernel, grid: Any, args: Sequence[Any], stream: Any,
                    variant: Mapping[str, Any]) -> bool:
    """Launches through a plan when one fits; False sends the launch down the
    full path (which checks everything and makes a plan)."""
    # The same grid object as the last launch's (a literal tuple, a grid
    # function) finds its plans without hashing.
    last = kernel._last_plans
    if last is not None and last[0] is grid and not variant:
        plans = last[1]
    else:
        # Plans are keyed by the values: 2.0 and True hash as 2 and 1, but
        # only an int is a variant value (the full path says so).
        if variant and any(type(value) is not int for value in variant.values()):
            return False
        grid_key = grid if type(grid) is tuple else _grid_key(grid)
        if grid_key is _UNKEYABLE:
            return False
        plans = kernel._plans.get((grid_key, tuple(sorted(variant.items())) if variant else ()))
        if not plans:
            return False
        if not variant and (grid is None or type(grid) is tuple or callable(grid)):
            kernel._last_plans = (grid, plans)  # never a mutable grid (a list)
    signature = None
    for plan in plans:
        grid3 = plan.grid3
        if grid3 is None:
            if not callable(grid):
                continue
            grid3 = grid_extents(kernel.name, grid(dict(plan.grid_meta)))
            if not within_limits(grid3):
                return False  # the full path says what is wrong
        if plan.native:
            handle = plan.stream() if stream is None else stream_handle(stream, (), plan.device)
            result = _library.fast_launch().phobosPyPlanLaunch(
                plan.native, args if type(args) is tuple else tuple(args), grid3[0], grid3[1],
                grid3[2], handle)
            if result == 1:
                return True
            if result < 0:
                _raise_launch_error(plan, -result, grid3)
            continue
        if signature is None:
            signature = _signature(args)
            if signature is None:
                return False
        if signature[0] == plan.key:
            launched = _launch_with(plan, args, signature[1], stream, grid3)
            if launched is not None:
                return launched
    return False


def _raise_launch_error(plan: _LaunchPlan, result: int, grid3: tuple[int, int, int]) -> None:
    plan.driver.check(result, "cuLaunchKernel", f"grid ({grid3[0]}, {grid3[1]}, {grid3[2]}), "
                      f"block ({plan.block}, 1, 1), {plan.shared} bytes of dynamic shared memory")


def _launch_with(plan: _LaunchPlan, args: Sequence[Any], pointers: list[int], stream: Any,
                 grid3: tuple[int, int, int]) -> bool | None:
    """The plan's launch in Python (arrays other than torch's, f16/bf16
    scalars, tensor maps). False sends the launch down the full path; None
    tries the next plan (tensor maps made for other addresses)."""
    for pointer in pointers:
        if not pointer or pointer & 15:
            return False  # the full path says what is wrong
    for _, ordinal, encoded_for in plan.maps:
        if pointers[ordinal] != encoded_for:
            return None
    handle = plan.stream() if stream is None else stream_handle(stream, (), plan.device)
    driver = plan.driver
    with plan.lock:
        for slot, pointer in zip(plan.pointer_slots, pointers):
            slot.value = pointer
        for index, slot, convert in plan.scalar_slots:
            value = convert(args[index])
            if value is None:
                return False
            slot.value = value
        # The device's primary context, current on this thread.
        if driver.lib.cuCtxGetCurrent(plan.current_ref) != 0 or \
                plan.current.value != driver.contexts[plan.device].value:
            driver.make_current(plan.device)
        result = driver._launch(plan.function, grid3[0], grid3[1], grid3[2], plan.block, 1, 1,
                                plan.shared, handle, plan.params, None)
    if result != 0:
        _raise_launch_error(plan, result, grid3)
    return True
