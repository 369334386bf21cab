"""What the launcher needs to know of an array argument, from any library.

Device arrays are read through ``__cuda_array_interface__`` (torch, CuPy,
Numba, ...), with fast paths for torch and CuPy that skip building the
interface's dict; host arrays are NumPy arrays (or CPU torch tensors, through
``.numpy()``). Nothing here imports an array library.
"""

from __future__ import annotations

import numbers
import sys
from typing import Any, Sequence

from phobos._errors import ArgumentError

# NumPy / __cuda_array_interface__ type strings -> Phobos element types.
_TYPESTRS = {"<f2": "f16", "<f4": "f32", "<f8": "f64", "<i4": "i32", "<i8": "i64",
             "|b1": "bool", "<V2": None, "|i1": None}
_TORCH_DTYPES = {"torch.float16": "f16", "torch.bfloat16": "bf16", "torch.float32": "f32",
                 "torch.float64": "f64", "torch.int32": "i32", "torch.int64": "i64",
                 "torch.bool": "bool"}
_NUMPY_NAMES = {"float16": "f16", "float32": "f32", "float64": "f64", "int32": "i32",
                "int64": "i64", "bool": "bool", "bfloat16": "bf16"}
_ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i32": 4, "i64": 8, "bool": 1}

HOST = -1


class ArrayInfo:
    """One array argument: where its data is and how it is laid out."""

    __slots__ = ("obj", "device", "ptr", "shape", "strides", "dtype", "dtype_text", "stream",
                 "library")

    def __init__(self, obj: Any, device: int, ptr: int, shape: tuple[int, ...],
                 strides: tuple[int, ...] | None, dtype: str | None, dtype_text: str,
                 stream: int | None, library: str) -> None:
        self.obj = obj
        self.device = device  # CUDA ordinal, or HOST
        self.ptr = ptr
        self.shape = shape
        self.strides = strides  # in elements; None when dense row-major
        self.dtype = dtype  # a Phobos element type, or None
        self.dtype_text = dtype_text  # the library's name, for messages
        self.stream = stream  # __cuda_array_interface__'s stream, when given
        self.library = library

    def where(self) -> str:
        return "host memory (NumPy)" if self.device == HOST else f"GPU {self.device}"


def _element_strides(byte_strides: Any, itemsize: int) -> tuple[int, ...] | None:
    if byte_strides is None:
        return None
    result = []
    for stride in byte_strides:
        if stride % itemsize:
            return tuple(-1 for _ in byte_strides)  # not even element-aligned
        result.append(stride // itemsize)
    return tuple(result)


def is_scalar(value: Any) -> bool:
    return isinstance(value, (numbers.Number, bool)) and not hasattr(value, "shape") \
        or (hasattr(value, "shape") and getattr(value, "shape", None) == () and
            type(value).__module__ == "numpy")


def describe(value: Any) -> ArrayInfo | None:
    """The ArrayInfo of an array argument; None for anything else."""
    module = type(value).__module__
    if module.startswith("torch") and hasattr(value, "data_ptr"):
        return _describe_torch(value)
    if module.startswith("cupy") and hasattr(value, "data") and hasattr(value, "device"):
        dtype = _NUMPY_NAMES.get(value.dtype.name)
        itemsize = value.dtype.itemsize
        return ArrayInfo(value, int(value.device.id), int(value.data.ptr), tuple(value.shape),
                         None if value.flags.c_contiguous else _element_strides(value.strides, itemsize),
                         dtype, f"cupy {value.dtype.name}", None, "cupy")
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return _describe_cai(value, interface)
    if module == "numpy" and hasattr(value, "__array_interface__") and hasattr(value, "ctypes"):
        if value.shape == ():
            return None
        name = value.dtype.name
        dtype = _NUMPY_NAMES.get(name)
        contiguous = value.flags.c_contiguous
        return ArrayInfo(value, HOST, int(value.ctypes.data), tuple(value.shape),
                         None if contiguous else _element_strides(value.strides, value.dtype.itemsize),
                         dtype, f"numpy {name}", None, "numpy")
    return None


def _describe_torch(tensor: Any) -> ArrayInfo:
    dtype_text = str(tensor.dtype)
    dtype = _TORCH_DTYPES.get(dtype_text)
    if tensor.device.type == "cuda":
        device = tensor.device.index if tensor.device.index is not None else 0
        contiguous = tensor.is_contiguous()
        return ArrayInfo(tensor, device, tensor.data_ptr(), tuple(tensor.shape),
                         None if contiguous else tuple(tensor.stride()), dtype, dtype_text, None,
                         "torch")
    if tensor.device.type == "cpu" and dtype not in (None, "bf16"):
        # A CPU tensor runs on the interpreter through the NumPy array that
        # shares its memory.
        info = describe(tensor.detach().numpy())
        info.library = "torch-cpu"  # obj is the NumPy view, which shares the memory
        return info
    return ArrayInfo(tensor, -2, tensor.data_ptr() if tensor.device.type == "cpu" else 0,
                     tuple(tensor.shape), None, dtype, f"{dtype_text} on {tensor.device}", None,
                     "torch")


def _describe_cai(value: Any, interface: dict[str, Any]) -> ArrayInfo:
    typestr = interface.get("typestr", "")
    dtype = _TYPESTRS.get(typestr)
    ptr = int(interface["data"][0] or 0)
    shape = tuple(int(n) for n in interface["shape"])
    itemsize = _ITEMSIZE.get(dtype or "", int(typestr[2:] or 1) if typestr[2:].isdigit() else 1)
    strides = _element_strides(interface.get("strides"), itemsize)
    stream = interface.get("stream")
    return ArrayInfo(value, _device_of_pointer(ptr), ptr, shape, strides, dtype,
                     f"'{typestr}'", stream, "cuda_array_interface")


# Set by the driver when it loads: pointer -> device ordinal.
_pointer_device = None


def _device_of_pointer(ptr: int) -> int:
    if _pointer_device is None or ptr == 0:
        return 0
    return _pointer_device(ptr)


def stream_handle(stream: Any, infos: Sequence[ArrayInfo | None], device: int) -> int:
    """The CUstream to launch on: the one given, else torch's current stream
    (torch arrays), else the stream the arrays' __cuda_array_interface__
    names, else CuPy's current stream, else the legacy default stream."""
    if stream is not None:
        if isinstance(stream, int):
            return stream
        for attribute in ("cuda_stream", "ptr"):
            value = getattr(stream, attribute, None)
            if isinstance(value, int):
                return value
        handle = getattr(stream, "handle", None)
        value = getattr(handle, "value", handle)
        if isinstance(value, int) or value is None and handle is not None:
            return value or 0
        raise ArgumentError("launch", "stream", f"expected a CUDA stream (an int, a torch or "
                            f"CuPy stream), got {type(stream).__name__}")
    libraries = {info.library for info in infos if info is not None}
    if "torch" in libraries:
        torch = sys.modules["torch"]
        return torch.cuda.current_stream(device).cuda_stream
    for info in infos:
        if info is not None and info.stream is not None:
            return int(info.stream)
    if "cupy" in libraries:
        return sys.modules["cupy"].cuda.get_current_stream().ptr
    return 0
