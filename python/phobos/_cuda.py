"""The CUDA driver API through ctypes: just what launching needs.

Nothing links against libcuda: it is opened on the first GPU launch. The
library object can be replaced (``CudaDriver(lib=...)``) by a stand-in with
the same functions, which is how the launch path is tested without a GPU.
(``CudaDriver``, not ``Driver``: lib/Driver is the compiler's front door.)
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from phobos._errors import KernelRuntimeError
from phobos._library import chip_for_capability

CUDA_SUCCESS = 0
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
CU_EVENT_DEFAULT = 0
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
CU_JIT_GENERATE_LINE_INFO = 13
# The CUresults a kernel's own fault leaves (illegal address, hardware stack
# error, illegal instruction, misaligned address, invalid address space,
# invalid PC, launch failed): sticky, every later call returns them.
_KERNEL_FAULTS = frozenset({700, 714, 715, 716, 717, 718, 719})
_KERNEL_FAULT_HINT = ("a kernel faulted; the driver does not say where: run the program under "
                      "`compute-sanitizer --tool memcheck`, which names the kernel's Python line")

_p = ctypes.c_void_p
# name -> (argument types); every function returns a CUresult (int).
_SIGNATURES: dict[str, list[Any]] = {
    "cuInit": [ctypes.c_uint],
    "cuGetErrorName": [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
    "cuGetErrorString": [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)],
    "cuDeviceGet": [ctypes.POINTER(ctypes.c_int), ctypes.c_int],
    "cuDeviceGetCount": [ctypes.POINTER(ctypes.c_int)],
    "cuDeviceGetAttribute": [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int],
    "cuDevicePrimaryCtxRetain": [ctypes.POINTER(_p), ctypes.c_int],
    "cuCtxGetCurrent": [ctypes.POINTER(_p)],
    "cuCtxSetCurrent": [_p],
    "cuCtxGetDevice": [ctypes.POINTER(ctypes.c_int)],
    "cuModuleLoadDataEx": [ctypes.POINTER(_p), ctypes.c_char_p, ctypes.c_uint,
                           ctypes.POINTER(ctypes.c_int), ctypes.POINTER(_p)],
    "cuModuleGetFunction": [ctypes.POINTER(_p), _p, ctypes.c_char_p],
    "cuFuncSetAttribute": [_p, ctypes.c_int, ctypes.c_int],
    "cuOccupancyMaxActiveBlocksPerMultiprocessor": [ctypes.POINTER(ctypes.c_int), _p,
                                                    ctypes.c_int, ctypes.c_size_t],
    "cuLaunchKernel": [_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                       ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, _p,
                       ctypes.POINTER(_p), ctypes.POINTER(_p)],
    "cuPointerGetAttribute": [_p, ctypes.c_int, ctypes.c_uint64],
    "cuTensorMapEncodeTiled": [_p, ctypes.c_int, ctypes.c_uint32, _p,
                               ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                               ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
                               ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int],
    "cuStreamSynchronize": [_p],
    "cuCtxSynchronize": [],
    "cuEventCreate": [ctypes.POINTER(_p), ctypes.c_uint],
    "cuEventRecord": [_p, _p],
    "cuEventSynchronize": [_p],
    "cuEventElapsedTime": [ctypes.POINTER(ctypes.c_float), _p, _p],
    "cuEventDestroy_v2": [_p],
}


# The driver functions C code calls: the launch fast path, and libphobos
# encoding tensor maps (phobos-c/Runtime.h).
_ENTRY_POINT_TYPES = {name: ctypes.CFUNCTYPE(ctypes.c_int, *_SIGNATURES[name]) for name in
                      ("cuLaunchKernel", "cuCtxGetCurrent", "cuCtxSetCurrent",
                       "cuTensorMapEncodeTiled")}


def _open_libcuda() -> Any:
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError as exc:
        raise KernelRuntimeError(f"cannot open libcuda.so.1 (no NVIDIA driver on this machine): "
                                 f"{exc}; NumPy arrays run on the CPU interpreter instead") from None


class CudaDriver:
    """One process's view of the CUDA driver."""

    _instance: "CudaDriver | None" = None
    _lock = threading.Lock()

    def __init__(self, lib: Any = None) -> None:
        self.lib = lib if lib is not None else _open_libcuda()
        for name, argtypes in _SIGNATURES.items():
            function = getattr(self.lib, name, None)
            if function is None:
                raise KernelRuntimeError(f"the NVIDIA driver has no {name}; Phobos needs a driver "
                                         "that supports CUDA 12 or later")
            if hasattr(function, "argtypes"):
                function.argtypes = argtypes
                function.restype = ctypes.c_int
        self._launch = self.lib.cuLaunchKernel
        self._entry_points: tuple[int, int, int] | None = None
        self._addresses: dict[str, int] = {}
        self._callbacks: list[Any] = []
        self.check(self.lib.cuInit(0), "cuInit")
        self.contexts: dict[int, Any] = {}
        self.chips: dict[int, str] = {}
        self._context_lock = threading.Lock()

    @classmethod
    def get(cls) -> "CudaDriver":
        with cls._lock:
            if cls._instance is None:
                cls._instance = CudaDriver()
            return cls._instance

    # -- errors -----------------------------------------------------------------

    def check(self, result: int, call: str, detail: str = "") -> None:
        if result == CUDA_SUCCESS:
            return
        name = ctypes.c_char_p()
        text = ctypes.c_char_p()
        self.lib.cuGetErrorName(result, ctypes.byref(name))
        self.lib.cuGetErrorString(result, ctypes.byref(text))
        message = f"{call} failed: {(name.value or b'CUresult %d' % result).decode()}"
        if text.value:
            message += f" ({text.value.decode()})"
        if detail:
            message += f": {detail}"
        if result in _KERNEL_FAULTS:
            message += f"; {_KERNEL_FAULT_HINT}"
        raise KernelRuntimeError(message)

    # -- devices and contexts -------------------------------------------------------

    def attribute(self, attribute: int, device: int) -> int:
        value = ctypes.c_int()
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(value), attribute, device),
                   "cuDeviceGetAttribute")
        return value.value

    def resident_ctas(self, function: Any, device: int, threads: int, shared_bytes: int) -> int:
        """The CTAs of a kernel the device runs at once (per SM, at least
        one, times the SMs): the grid of a persistent kernel."""
        per_sm = ctypes.c_int()
        self.check(self.lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(per_sm), function, threads, shared_bytes),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        return max(per_sm.value, 1) * self.attribute(16, device)  # MULTIPROCESSOR_COUNT

    def chip(self, device: int) -> str:
        """``sm_XY`` of a device (what the kernel is compiled for), by the
        library's chip rule: sm_90a (wgmma, TMA) on an sm_90 card."""
        if device not in self.chips:
            major = self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
            minor = self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
            self.chips[device] = chip_for_capability(major, minor)
        return self.chips[device]

    def make_current(self, device: int) -> None:
        """Makes the device's primary context (the one torch and CuPy use)
        current on this thread."""
        context = self.contexts.get(device)
        if context is None:
            with self._context_lock:
                context = self.contexts.get(device)
                if context is None:
                    handle = ctypes.c_int()
                    self.check(self.lib.cuDeviceGet(ctypes.byref(handle), device), "cuDeviceGet",
                               f"device {device}")
                    context = _p()
                    self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), handle.value),
                               "cuDevicePrimaryCtxRetain")
                    self.contexts[device] = context
        current = _p()
        self.check(self.lib.cuCtxGetCurrent(ctypes.byref(current)), "cuCtxGetCurrent")
        if current.value != context.value:
            self.check(self.lib.cuCtxSetCurrent(context), "cuCtxSetCurrent")

    def pointer_device(self, pointer: int) -> int:
        """The device a device pointer belongs to (-3 when the driver does not
        know it: host memory or garbage)."""
        ordinal = ctypes.c_int()
        result = self.lib.cuPointerGetAttribute(ctypes.byref(ordinal),
                                                CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, pointer)
        return ordinal.value if result == CUDA_SUCCESS else -3

    def entry_points(self) -> tuple[int, int, int] | None:
        """The addresses of cuLaunchKernel, cuCtxGetCurrent and
        cuCtxSetCurrent, for the launch fast path in C (a stand-in library's
        Python functions are wrapped as C callbacks)."""
        if self._entry_points is None:
            self._entry_points = (self.entry_point("cuLaunchKernel"),
                                  self.entry_point("cuCtxGetCurrent"),
                                  self.entry_point("cuCtxSetCurrent"))
        return self._entry_points

    def entry_point(self, name: str) -> int:
        """The address of a driver function C code calls (a stand-in
        library's Python function is wrapped as a C callback)."""
        address = self._addresses.get(name)
        if address is None:
            function = getattr(self.lib, name)
            if not isinstance(function, ctypes._CFuncPtr):
                function = _ENTRY_POINT_TYPES[name](function)
                self._callbacks.append(function)
            address = self._addresses[name] = ctypes.cast(function, _p).value
        return address

    # -- modules and launches ---------------------------------------------------------

    def load(self, image: bytes, kernel: str, line_info: bool = True) -> tuple[Any, Any]:
        """Loads a cubin or PTX image; (module, function). The JIT keeps PTX with
        ``line_info`` as a line table (ptxas -lineinfo), so that compute-sanitizer names
        the Python lines; a cubin has its own."""
        module = _p()
        log = ctypes.create_string_buffer(64 * 1024)
        options = (ctypes.c_int * 3)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                     CU_JIT_GENERATE_LINE_INFO)
        values = (_p * 3)(ctypes.cast(log, _p), _p(len(log)), _p(int(line_info)))
        data = image if image.endswith(b"\0") or image.startswith(b"\x7fELF") else image + b"\0"
        result = self.lib.cuModuleLoadDataEx(ctypes.byref(module), data, 3, options, values)
        self.check(result, "cuModuleLoadDataEx", log.value.decode(errors="replace").strip())
        function = _p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(function), module, kernel.encode()),
                   "cuModuleGetFunction", kernel)
        return module, function

    def allow_shared_memory(self, function: Any, device: int, nbytes: int) -> None:
        if nbytes <= 48 * 1024:
            return
        allowed = self.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device)
        self.check(self.lib.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               nbytes), "cuFuncSetAttribute",
                   f"{nbytes} bytes of dynamic shared memory (the device allows {allowed} per block)")

    def launch(self, function: Any, grid: tuple[int, int, int], block: int, shared_bytes: int,
               stream: int, params: Any) -> None:
        result = self._launch(function, grid[0], grid[1], grid[2], block, 1, 1, shared_bytes,
                              stream, params, None)
        if result != CUDA_SUCCESS:
            self.check(result, "cuLaunchKernel", f"grid ({grid[0]}, {grid[1]}, {grid[2]}), block "
                       f"({block}, 1, 1), {shared_bytes} bytes of dynamic shared memory")

    def synchronize(self, stream: int | None = None) -> None:
        if stream is None:
            self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")
        else:
            self.check(self.lib.cuStreamSynchronize(stream), "cuStreamSynchronize")

    # -- timing -------------------------------------------------------------------------

    def event(self) -> Any:
        handle = _p()
        self.check(self.lib.cuEventCreate(ctypes.byref(handle), CU_EVENT_DEFAULT), "cuEventCreate")
        return handle

    def record(self, event: Any, stream: int) -> None:
        self.check(self.lib.cuEventRecord(event, stream), "cuEventRecord")

    def elapsed_ms(self, start: Any, stop: Any) -> float:
        self.check(self.lib.cuEventSynchronize(stop), "cuEventSynchronize")
        value = ctypes.c_float()
        self.check(self.lib.cuEventElapsedTime(ctypes.byref(value), start, stop),
                   "cuEventElapsedTime")
        return value.value

    def destroy_event(self, event: Any) -> None:
        self.lib.cuEventDestroy_v2(event)
