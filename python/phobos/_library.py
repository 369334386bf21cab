"""libphobos through ctypes: the compiler, the kernel cache, the launch
checks and the CPU interpreter in this process (include/phobos-c/Compiler.h
and Runtime.h).

The library is looked for in ``$PHOBOS_HOME/lib`` (or ``$PHOBOS_HOME``), next
to the package (``phobos/lib``), and in ``build/lib`` of the checkout the
package sits in. Everything after the Phobos text and its span map is the
library's: parsing, the @autotune variants, the kernel cache and its key,
compiling, assembling, the chip rules and the interpreter.
"""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path
from typing import Any, Sequence

from phobos._errors import PhobosError, ToolNotFoundError

_LIBRARY_NAME = "libphobos.so"


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class _Handle(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class _CompileRequest(ctypes.Structure):
    _fields_ = [("kernel", _StringRef), ("variant", _StringRef), ("specializeDims", _StringRef),
                ("chip", _StringRef), ("cacheDir", _StringRef), ("assemble", ctypes.c_bool),
                ("withoutLineInfo", ctypes.c_bool)]


class _VisualizeRequest(ctypes.Structure):
    _fields_ = [("kernel", _StringRef), ("variant", _StringRef), ("dims", _StringRef),
                ("chip", _StringRef), ("cta", ctypes.c_int64 * 3), ("scalars", _StringRef),
                ("maxGridElements", ctypes.c_int64), ("json", ctypes.c_bool),
                ("grid", ctypes.c_int64 * 3), ("maxGridSteps", ctypes.c_uint64),
                ("maxWriteRuns", ctypes.c_int64), ("tuningReport", _StringRef),
                ("tuningReportFile", _StringRef), ("cacheDir", _StringRef),
                ("clusterPlan", _StringRef), ("clusterPlanFile", _StringRef),
                ("clusterSummary", _StringRef), ("clusterSummaryFile", _StringRef),
                ("maxIrLines", ctypes.c_int64)]


class _Argument(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("elementType", _StringRef), ("rank", ctypes.c_ssize_t),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("floatValue", ctypes.c_double),
                ("intValue", ctypes.c_int64)]


class _LaunchArgument(ctypes.Structure):
    _fields_ = [("isTensor", ctypes.c_bool), ("address", ctypes.c_uint64),
                ("elementType", _StringRef), ("elementName", _StringRef),
                ("rank", ctypes.c_ssize_t), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("isInteger", ctypes.c_bool),
                ("intValue", ctypes.c_int64), ("floatValue", ctypes.c_double)]


_S, _H = _StringRef, _Handle
_I64P = ctypes.POINTER(ctypes.c_int64)
# name -> (result type, argument types)
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "phobosErrorGetMessage": (_S, [_H]),
    "phobosErrorGetFile": (_S, [_H]),
    "phobosErrorGetLine": (ctypes.c_uint, [_H]),
    "phobosErrorGetColumn": (ctypes.c_uint, [_H]),
    "phobosErrorGetParameter": (_S, [_H]),
    "phobosErrorDestroy": (None, [_H]),
    "phobosCompilerVersion": (_S, []),
    "phobosDefaultCacheDir": (_S, []),
    "phobosChipForCapability": (ctypes.c_size_t, [ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
                                                  ctypes.c_size_t]),
    "phobosChipIsSupported": (ctypes.c_bool, [_S]),
    "phobosSessionCreate": (_H, []),
    "phobosSessionDestroy": (None, [_H]),
    "phobosSessionLoad": (_H, [_H, _S, _S, _S]),
    "phobosSessionGetNumKernels": (ctypes.c_ssize_t, [_H]),
    "phobosSessionGetKernelName": (_S, [_H, ctypes.c_ssize_t]),
    "phobosSessionCompile": (_H, [_H, ctypes.POINTER(_CompileRequest), ctypes.POINTER(_H)]),
    "phobosKernelBuildGetContract": (_S, [_H]),
    "phobosKernelBuildGetPtx": (_S, [_H]),
    "phobosKernelBuildHasCubin": (ctypes.c_bool, [_H]),
    "phobosKernelBuildGetCubin": (_S, [_H]),
    "phobosKernelBuildGetCacheEntry": (_S, [_H]),
    "phobosKernelBuildIsFromCache": (ctypes.c_bool, [_H]),
    "phobosKernelBuildGetNotes": (_S, [_H]),
    "phobosKernelBuildGetDiagnostics": (_S, [_H]),
    "phobosKernelBuildDestroy": (None, [_H]),
    "phobosSessionGetAutotuneSpace": (_H, [_H, _S, ctypes.POINTER(_S)]),
    "phobosSessionGetTunedVariant": (_H, [_H, _S, _S, _S, ctypes.c_bool, _S,
                                         ctypes.POINTER(_S)]),
    "phobosSessionInterpret": (_H, [_H, _S, _S, ctypes.POINTER(ctypes.c_int64),
                                    ctypes.POINTER(_Argument), ctypes.c_ssize_t, ctypes.c_uint64,
                                    ctypes.c_uint]),
    "phobosSessionRaceCheck": (_H, [_H, _S, _S, ctypes.POINTER(ctypes.c_int64),
                                    ctypes.POINTER(_Argument), ctypes.c_ssize_t, ctypes.c_uint64,
                                    ctypes.c_uint, ctypes.POINTER(ctypes.c_ssize_t)]),
    "phobosSessionVisualize": (_H, [_H, ctypes.POINTER(_VisualizeRequest), ctypes.POINTER(_S)]),
    "phobosLaunchContractCreate": (_H, [_S, ctypes.POINTER(_H)]),
    "phobosLaunchContractDestroy": (None, [_H]),
    "phobosLaunchBind": (_H, [_H, ctypes.POINTER(_LaunchArgument), ctypes.c_ssize_t,
                              ctypes.c_void_p, ctypes.POINTER(_H)]),
    "phobosBoundLaunchSetGrid": (_H, [_H, _H, _I64P]),
    "phobosBoundLaunchGetGrid": (None, [_H, ctypes.c_int64, _I64P]),
    "phobosBoundLaunchGetTileGrid": (None, [_H, _I64P]),
    "phobosBoundLaunchGetNumParams": (ctypes.c_ssize_t, [_H]),
    "phobosBoundLaunchGetParam": (ctypes.c_void_p, [_H, ctypes.c_ssize_t]),
    "phobosBoundLaunchGetNumTensorMaps": (ctypes.c_ssize_t, [_H]),
    "phobosBoundLaunchGetTensorMap": (ctypes.c_void_p, [_H, ctypes.c_ssize_t]),
    "phobosBoundLaunchGetNumDims": (ctypes.c_ssize_t, [_H]),
    "phobosBoundLaunchGetDimName": (_S, [_H, ctypes.c_ssize_t]),
    "phobosBoundLaunchGetDimValue": (ctypes.c_int64, [_H, ctypes.c_ssize_t]),
    "phobosBoundLaunchDestroy": (None, [_H]),
}

_lock = threading.Lock()
_library: Any = None
_fast_launch: Any = None
_FAST_LAUNCH_NAME = "libphobos-python.so"


def install_places(folder: str, name: str) -> list[Path]:
    """Where the package looks for ``name`` of an install's ``folder`` (lib,
    bin): ``$PHOBOS_HOME/<folder>`` (or ``$PHOBOS_HOME``), next to the
    package (``phobos/<folder>``), and ``build/<folder>`` of the checkout the
    package sits in."""
    places: list[Path] = []
    home = os.environ.get("PHOBOS_HOME")
    if home:
        places += [Path(home) / folder / name, Path(home) / name]
    package = Path(__file__).resolve().parent
    places.append(package / folder / name)
    # A checkout: python/phobos/ beside build/<folder>/.
    places.append(package.parent.parent / "build" / folder / name)
    return places


def _candidates(name: str = _LIBRARY_NAME) -> list[Path]:
    return install_places("lib", name)


def fast_launch() -> Any:
    """libphobos-python (lib/Bindings/Python/FastLaunch.c), the launch fast
    path in C, opened with the GIL held through its calls; None where it is
    not built (planned launches then run in Python)."""
    global _fast_launch
    if _fast_launch is not None:
        return _fast_launch or None
    with _lock:
        for place in _candidates(_FAST_LAUNCH_NAME):
            if place.is_file():
                try:
                    handle = ctypes.PyDLL(str(place))
                except OSError:
                    continue
                p = ctypes.c_void_p
                handle.phobosPyPlanCreate.restype = p
                handle.phobosPyPlanCreate.argtypes = [p, p, p, p, p, ctypes.c_uint,
                                                      ctypes.c_uint, p, ctypes.c_int]
                handle.phobosPyPlanSetTensor.restype = ctypes.c_int
                handle.phobosPyPlanSetTensor.argtypes = [
                    p, ctypes.c_int, ctypes.py_object, ctypes.py_object, ctypes.c_long,
                    ctypes.c_int, ctypes.POINTER(ctypes.c_longlong), p]
                handle.phobosPyPlanSetSpan.restype = ctypes.c_int
                handle.phobosPyPlanSetSpan.argtypes = [p, ctypes.c_int, ctypes.c_ulonglong,
                                                       ctypes.c_int]
                handle.phobosPyPlanSetMapped.restype = ctypes.c_int
                handle.phobosPyPlanSetMapped.argtypes = [p, ctypes.c_int, ctypes.c_ulonglong]
                handle.phobosPyPlanSetScalar.restype = ctypes.c_int
                handle.phobosPyPlanSetScalar.argtypes = [p, ctypes.c_int, ctypes.c_int, p]
                handle.phobosPyPlanDestroy.restype = None
                handle.phobosPyPlanDestroy.argtypes = [p]
                handle.phobosPyPlanLaunch.restype = ctypes.c_int
                handle.phobosPyPlanLaunch.argtypes = [p, ctypes.py_object, ctypes.c_uint,
                                                      ctypes.c_uint, ctypes.c_uint, p]
                handle.phobosPyLaunchTypes.restype = ctypes.py_object
                handle.phobosPyLaunchTypes.argtypes = []
                _fast_launch = handle
                return handle
        _fast_launch = False
        return None


def launch_types() -> tuple[Any, Any] | None:
    """(LaunchTable, Launcher): the types of libphobos-python that make
    ``kernel[grid](...)`` a call into C (FastLaunch.c); None where the
    library is not built."""
    native = fast_launch()
    return None if native is None else native.phobosPyLaunchTypes()


def library() -> Any:
    """The loaded libphobos (opened once per process)."""
    global _library
    with _lock:
        if _library is not None:
            return _library
        places = _candidates()
        for place in places:
            if place.is_file():
                break
        else:
            looked = ", ".join(str(p.parent) for p in places)
            raise ToolNotFoundError(
                f"cannot find {_LIBRARY_NAME}: looked in {looked}; build Phobos "
                "(scripts/setup.sh, or scripts/build-static.sh for a machine without LLVM) "
                "and set PHOBOS_HOME to the folder that holds lib/")
        try:
            handle = ctypes.CDLL(str(place))
        except OSError as exc:
            raise ToolNotFoundError(f"cannot load {place}: {exc}") from None
        for name, (result, arguments) in _SIGNATURES.items():
            function = getattr(handle, name)
            function.restype = result
            function.argtypes = arguments
        _library = handle
        return handle


def _text(ref: _StringRef) -> str:
    return ctypes.string_at(ref.data, ref.length).decode("utf-8", "replace") if ref.length else ""


def _bytes(ref: _StringRef) -> bytes:
    return ctypes.string_at(ref.data, ref.length) if ref.length else b""


class _In:
    """Strings passed in: kept alive for the call."""

    def __init__(self) -> None:
        self.keep: list[Any] = []

    def __call__(self, text: str | bytes) -> _StringRef:
        data = text.encode("utf-8") if isinstance(text, str) else text
        buffer = ctypes.c_char_p(data)
        self.keep.append(buffer)
        return _StringRef(ctypes.cast(buffer, ctypes.c_void_p), len(data))


class LibraryError(PhobosError):
    """A failure libphobos reported: its message (every diagnostic, at the
    user's lines) and the first error's place."""

    def __init__(self, message: str, file: str = "", line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.message, self.file, self.line, self.column = message, file, line, column


class LaunchRejected(PhobosError):
    """An argument the launch checks (phobos::bindArguments) refused: which
    parameter ("" for the count or the grid) and why."""

    def __init__(self, param: str, reason: str) -> None:
        super().__init__(f"argument '{param}': {reason}" if param else reason)
        self.param, self.reason = param, reason


def _check(lib: Any, error: _Handle) -> None:
    if not error.ptr:
        return
    try:
        param = _text(lib.phobosErrorGetParameter(error))
        message = _text(lib.phobosErrorGetMessage(error))
        if param:
            raise LaunchRejected(param, message)
        raise LibraryError(message, _text(lib.phobosErrorGetFile(error)), lib.phobosErrorGetLine(error),
                           lib.phobosErrorGetColumn(error))
    finally:
        lib.phobosErrorDestroy(error)


def compiler_version() -> str:
    """The compiler's version, part of every kernel cache and tuning key."""
    return _text(library().phobosCompilerVersion())


def default_cache_dir() -> str:
    """The kernel cache's root as the library forms it (empty: none)."""
    return _text(library().phobosDefaultCacheDir())


def chip_for_capability(major: int, minor: int) -> str:
    """The chip a device of this compute capability compiles for (9.0: sm_90a)."""
    out = ctypes.create_string_buffer(32)
    library().phobosChipForCapability(major, minor, out, len(out))
    return out.value.decode()


def chip_is_supported(chip: str) -> bool:
    """Whether the compiler targets ``chip`` ("sm_80" ... "sm_90a")."""
    return bool(library().phobosChipIsSupported(_In()(chip)))


class Build:
    """One compiled variant (or its contract alone)."""

    __slots__ = ("contract_json", "ptx", "cubin", "cache_entry", "from_cache", "notes",
                 "diagnostics")

    def __init__(self, contract_json: str, ptx: bytes, cubin: bytes | None, cache_entry: str,
                 from_cache: bool, notes: str, diagnostics: str) -> None:
        self.contract_json = contract_json
        self.ptx = ptx
        self.cubin = cubin
        self.cache_entry = cache_entry
        self.from_cache = from_cache
        self.notes = notes
        self.diagnostics = diagnostics


def _spec(pairs: Sequence[tuple[str, int]]) -> str:
    return ",".join(f"{name}={value}" for name, value in pairs)


class Session:
    """A program loaded in libphobos (phobos::Session). Its calls hold a lock:
    one compile or interpreter run at a time per session."""

    def __init__(self, text: str, file_name: str, span_map_json: str = "") -> None:
        self._lib = library()
        self._handle = self._lib.phobosSessionCreate()
        self._lock = threading.Lock()
        arg = _In()
        _check(self._lib, self._lib.phobosSessionLoad(self._handle, arg(text), arg(file_name),
                                                      arg(span_map_json)))

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.ptr:
            self._lib.phobosSessionDestroy(handle)
            self._handle = None

    def kernel_names(self) -> list[str]:
        with self._lock:
            count = self._lib.phobosSessionGetNumKernels(self._handle)
            return [_text(self._lib.phobosSessionGetKernelName(self._handle, i))
                    for i in range(count)]

    def compile(self, kernel: str, variant: Sequence[tuple[str, int]], chip: str,
                cache_dir: str, specialize: Sequence[tuple[str, int]] = (),
                assemble: bool = True, lineinfo: bool = True) -> Build:
        """The variant for ``chip`` ("contract": the contract alone), from the
        kernel cache at ``cache_dir`` or compiled into it; specialised for the
        extents ``specialize`` when given; with line info (.file/.loc at the
        Python lines) unless ``lineinfo`` is False."""
        lib = self._lib
        arg = _In()
        request = _CompileRequest(arg(kernel), arg(_spec(variant)), arg(_spec(specialize)),
                                  arg(chip), arg(cache_dir), assemble, not lineinfo)
        handle = _Handle()
        with self._lock:
            _check(lib, lib.phobosSessionCompile(self._handle, ctypes.byref(request),
                                                 ctypes.byref(handle)))
        try:
            cubin = _bytes(lib.phobosKernelBuildGetCubin(handle)) \
                if lib.phobosKernelBuildHasCubin(handle) else None
            return Build(_text(lib.phobosKernelBuildGetContract(handle)),
                         _bytes(lib.phobosKernelBuildGetPtx(handle)), cubin,
                         _text(lib.phobosKernelBuildGetCacheEntry(handle)),
                         bool(lib.phobosKernelBuildIsFromCache(handle)),
                         _text(lib.phobosKernelBuildGetNotes(handle)),
                         _text(lib.phobosKernelBuildGetDiagnostics(handle)))
        finally:
            lib.phobosKernelBuildDestroy(handle)

    def autotune_space(self, kernel: str) -> dict[str, list[int]]:
        """The kernel's @autotune space as the language expands it, in
        @autotune order, each dimension's default first."""
        arg = _In()
        found = _StringRef()
        with self._lock:
            _check(self._lib, self._lib.phobosSessionGetAutotuneSpace(
                self._handle, arg(kernel), ctypes.byref(found)))
            text = _text(found)
        space: dict[str, list[int]] = {}
        for part in filter(None, text.split(",")):
            name, values = part.split("=")
            space[name] = [int(value) for value in values.split(":")]
        return space

    def tuned_variant(self, kernel: str, chip: str, dims: dict[str, int], general: bool,
                      cache_dir: str) -> dict[str, int] | None:
        """The variant a search stored in the tuning cache for these extents
        on this chip (in @autotune order), or None."""
        arg = _In()
        found = _StringRef()
        with self._lock:
            _check(self._lib, self._lib.phobosSessionGetTunedVariant(
                self._handle, arg(kernel), arg(chip), arg(_spec(sorted(dims.items()))), general,
                arg(cache_dir), ctypes.byref(found)))
            text = _text(found)
        if not text:
            return None
        return {name: int(value) for name, value in
                (part.split("=") for part in text.split(","))}

    def interpret(self, kernel: str, variant: Sequence[tuple[str, int]],
                  grid: tuple[int, int, int], arguments: Sequence[Any],
                  step_limit: int = 0, threads: int = 0, race_check: bool = False) -> int:
        """Runs the variant on the interpreter in place. ``arguments``: per
        parameter, (address, element type, shape) for a tensor, or
        (float value, int value) for a scalar. With ``race_check``, returns
        how many pairs of ops race (the LibraryError raised then has each
        at the user's lines); else 0."""
        arg = _In()
        packed = (_Argument * max(1, len(arguments)))()
        shapes = []
        for slot, value in zip(packed, arguments):
            if len(value) == 3:
                address, element, shape = value
                extents = (ctypes.c_int64 * max(1, len(shape)))(*shape)
                shapes.append(extents)
                slot.data = address
                slot.elementType = arg(element)
                slot.rank = len(shape)
                slot.shape = extents
            else:
                slot.data = None
                slot.floatValue, slot.intValue = value
        grid3 = (ctypes.c_int64 * 3)(*grid)
        races = ctypes.c_ssize_t(0)
        with self._lock:
            if race_check:
                error = self._lib.phobosSessionRaceCheck(
                    self._handle, arg(kernel), arg(_spec(variant)), grid3, packed,
                    len(arguments), step_limit, threads, ctypes.byref(races))
            else:
                error = self._lib.phobosSessionInterpret(
                    self._handle, arg(kernel), arg(_spec(variant)), grid3, packed,
                    len(arguments), step_limit, threads)
            try:
                _check(self._lib, error)
            except LibraryError as failure:
                failure.races = races.value
                raise
        return races.value


    def visualize(self, kernel: str, variant: Sequence[tuple[str, int]],
                  dims: Sequence[tuple[str, int]], chip: str, cta: tuple[int, int, int],
                  scalars: Sequence[tuple[str, float]], max_grid_elements: int,
                  json: bool, grid: tuple[int, int, int] = (0, 0, 0), max_grid_steps: int = 0,
                  max_write_runs: int = 0, tuning_report: str = "",
                  tuning_report_file: str = "", cache_dir: str = "",
                  cluster_files: Sequence[tuple[str, str]] = (("", ""), ("", "")),
                  max_ir_lines: int = 0) -> str:
        """The page phobos-viz writes for the variant and the problem
        ``dims`` on ``grid`` (zeros: the one the kernel infers; its data,
        JSON text, with ``json``), built in this process
        (phobosSessionVisualize). Limits of 0 take the defaults. The
        autotuning panel shows ``tuning_report`` (phobos-tune --json's
        text), else the record in the kernel cache at ``cache_dir``. The
        cluster panel shows ``cluster_files``: (text, file name) of a plan
        (phobos-sched --plan JOB --json) and of a job summary."""
        arg = _In()
        request = _VisualizeRequest(
            arg(kernel), arg(_spec(variant)), arg(_spec(dims)), arg(chip),
            (ctypes.c_int64 * 3)(*cta), arg(",".join(f"{name}={value!r}" for name, value in scalars)),
            max_grid_elements, json, (ctypes.c_int64 * 3)(*grid), max_grid_steps, max_write_runs,
            arg(tuning_report), arg(tuning_report_file), arg(cache_dir),
            arg(cluster_files[0][0]), arg(cluster_files[0][1]), arg(cluster_files[1][0]),
            arg(cluster_files[1][1]), max_ir_lines)
        found = _StringRef()
        with self._lock:
            _check(self._lib, self._lib.phobosSessionVisualize(
                self._handle, ctypes.byref(request), ctypes.byref(found)))
            return _text(found)


def _check_launch(lib: Any, error: _Handle) -> None:
    """_check for the launch checks: every error is a rejected launch (the
    count and the grid name no argument)."""
    try:
        _check(lib, error)
    except LibraryError as failure:
        raise LaunchRejected("", failure.message) from None


class LaunchContract:
    """A variant's launch contract in the library (phobos::LaunchContract),
    for checking launches against it."""

    def __init__(self, json_text: str) -> None:
        self._lib = library()
        self._handle = _Handle()
        arg = _In()
        _check(self._lib, self._lib.phobosLaunchContractCreate(arg(json_text),
                                                               ctypes.byref(self._handle)))

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.ptr:
            self._lib.phobosLaunchContractDestroy(handle)
            self._handle = None

    def bind(self, arguments: Sequence[tuple], encode_tiled: int | None) -> "BoundLaunch":
        """Checks and packs a launch's arguments: per parameter, ("tensor",
        address, element type, the caller's name for it, shape, strides or
        None) or ("scalar", value: an int within int64 or a float). The
        tensor maps are encoded with ``encode_tiled``, the address of the
        driver's cuTensorMapEncodeTiled. Raises LaunchRejected at the first
        problem."""
        arg = _In()
        packed = (_LaunchArgument * max(1, len(arguments)))()
        keep = []
        for slot, value in zip(packed, arguments):
            if value[0] == "tensor":
                _, address, element, element_name, shape, strides = value
                extents = (ctypes.c_int64 * max(1, len(shape)))(*shape)
                keep.append(extents)
                slot.isTensor = True
                slot.address = address
                slot.elementType = arg(element)
                slot.elementName = arg(element_name)
                slot.rank = len(shape)
                slot.shape = extents
                if strides is not None:
                    steps = (ctypes.c_int64 * max(1, len(strides)))(*strides)
                    keep.append(steps)
                    slot.strides = steps
            elif isinstance(value[1], int):
                slot.isInteger = True
                slot.intValue = value[1]
                slot.floatValue = float(value[1])
            else:
                slot.floatValue = value[1]
        handle = _Handle()
        _check_launch(self._lib, self._lib.phobosLaunchBind(
            self._handle, packed, len(arguments), encode_tiled, ctypes.byref(handle)))
        return BoundLaunch(self, handle)


class BoundLaunch:
    """A checked launch in the library (phobos::BoundLaunch)."""

    def __init__(self, contract: LaunchContract, handle: _Handle) -> None:
        self._lib = contract._lib
        self._contract = contract
        self._handle = handle

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.ptr:
            self._lib.phobosBoundLaunchDestroy(handle)
            self._handle = None

    def set_grid(self, grid: tuple[int, int, int] | None) -> None:
        """Chooses the grid: ``grid``, or the one the contract infers."""
        given = (ctypes.c_int64 * 3)(*grid) if grid is not None else None
        _check_launch(self._lib, self._lib.phobosBoundLaunchSetGrid(self._contract._handle,
                                                                    self._handle, given))

    def grid(self, resident_ctas: int = 0) -> tuple[int, int, int]:
        out = (ctypes.c_int64 * 3)()
        self._lib.phobosBoundLaunchGetGrid(self._handle, resident_ctas, out)
        return (out[0], out[1], out[2])

    def tile_grid(self) -> tuple[int, int, int]:
        out = (ctypes.c_int64 * 3)()
        self._lib.phobosBoundLaunchGetTileGrid(self._handle, out)
        return (out[0], out[1], out[2])

    def params(self) -> list[bytes]:
        """Each kernel parameter's 8 bytes, in ABI order."""
        lib, handle = self._lib, self._handle
        return [ctypes.string_at(lib.phobosBoundLaunchGetParam(handle, index), 8)
                for index in range(lib.phobosBoundLaunchGetNumParams(handle))]

    def tensor_maps(self) -> list[bytes]:
        lib, handle = self._lib, self._handle
        return [ctypes.string_at(lib.phobosBoundLaunchGetTensorMap(handle, index), 128)
                for index in range(lib.phobosBoundLaunchGetNumTensorMaps(handle))]

    def dims(self) -> dict[str, int]:
        lib, handle = self._lib, self._handle
        return {_text(lib.phobosBoundLaunchGetDimName(handle, index)):
                lib.phobosBoundLaunchGetDimValue(handle, index)
                for index in range(lib.phobosBoundLaunchGetNumDims(handle))}
