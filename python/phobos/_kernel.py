"""The kernel object a ``@ph.kernel`` makes: its Phobos text, compilation
through the kernel cache, the launcher (``kernel[grid](*args)``) for GPU and
CPU arrays, and the autotuner."""

from __future__ import annotations

import atexit
import ctypes
import dataclasses
import hashlib
import itertools
import json
import math
import os
import shutil
import struct
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from phobos import _library, _tuner
from phobos._arrays import _ITEMSIZE, ArrayInfo, describe, stream_handle
from phobos._cuda import CudaDriver
from phobos._contract import (Bound, Contract, bind, grid_extents, parameter_types,
                              within_limits)
from phobos._errors import ArgumentError, CompileError, KernelRuntimeError, PhobosError, RaceError
from phobos._library import LibraryError
from phobos._frontend import Translation, translate_function
from phobos._tuner import TuneResult

Variant = tuple  # ((name, value), ...) in @autotune order
Aligned = tuple  # ((dim, multiple), ...): promises a launch's specialisation adds, by name
# The most variants variants() lists, as phobos-compile --all-variants.
MAX_ENUMERATED_VARIANTS = 4096

_work_lock = threading.Lock()
_work_dir: Path | None = None


def _process_dir() -> Path:
    """A folder for this process's generated sources and CPU-path arrays."""
    global _work_dir
    with _work_lock:
        if _work_dir is None:
            _work_dir = Path(tempfile.mkdtemp(prefix="phobos-"))
            atexit.register(shutil.rmtree, _work_dir, True)
        return _work_dir


@dataclasses.dataclass
class CompiledVariant:
    """One compiled variant: where it is in the cache, and what is in it."""
    variant: dict[str, int]
    chip: str
    directory: Path | None  # the kernel cache entry (None: not cached)
    contract: Contract
    ptx: bytes | None
    cubin: bytes | None
    #: Whether the PTX and cubin carry line info (.file/.loc at the Python lines).
    lineinfo: bool = True


class _GpuKernel:
    """A variant loaded on one device, with its parameters' buffers."""

    def __init__(self, compiled: CompiledVariant, device: int, driver: Any) -> None:
        self.contract = compiled.contract
        self.device = device
        driver.make_current(device)
        image = compiled.cubin if compiled.cubin is not None else compiled.ptx
        self.module, self.function = driver.load(image, self.contract.kernel,
                                                 line_info=compiled.lineinfo)
        driver.allow_shared_memory(self.function, device, self.contract.shared_memory_bytes)
        # A persistent kernel launches as many CTAs as the device holds at once.
        self.resident = (driver.resident_ctas(self.function, device, self.contract.cta_threads,
                                              self.contract.shared_memory_bytes)
                         if self.contract.persistent else 0)
        self.slots = [kind() for kind in parameter_types(self.contract)]
        # A CUtensorMap parameter is 128 bytes, 64-byte aligned; each launch
        # copies in the ones the library encoded for its tensors.
        self.map_buffers = [ctypes.create_string_buffer(192) for _ in self.contract.tensor_maps]
        self.maps = [(ctypes.addressof(buffer) + 63) // 64 * 64 for buffer in self.map_buffers]
        pointers = [ctypes.cast(ctypes.pointer(slot), ctypes.c_void_p) for slot in self.slots]
        pointers += [ctypes.c_void_p(address) for address in self.maps]
        self.params = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        self.lock = threading.Lock()


class Kernel:
    """A Phobos kernel written in Python.

    ``source`` is the Phobos it spells; ``kernel[grid](*args, stream=None,
    **variant)`` launches it: on the GPU for arrays with
    ``__cuda_array_interface__`` (torch, CuPy, Numba), on the CPU interpreter
    for NumPy arrays. ``grid`` is a tuple of 1 to 3 extents, a callable of a
    dict of the dims and the variant's values that returns one, or None for
    the grid the launch contract infers.
    """

    def __init__(self, translation: Translation, function: Callable[..., Any] | None = None) -> None:
        self.translation = translation
        self.function = function
        self.name = translation.name
        self.source = translation.source
        self.__doc__ = getattr(function, "__doc__", None)
        self.__wrapped__ = function
        self._space: dict[str, list[int]] | None = None
        self._files: tuple[Path, Path] | None = None
        self._library_session: _library.Session | None = None
        self._compiled: dict[tuple[Variant, str, Aligned], CompiledVariant] = {}
        self._gpu: dict[tuple[Variant, int, Aligned], _GpuKernel] = {}
        self._specializations: dict[tuple[Variant, tuple[tuple[str, int], ...]], Aligned] = {}
        self._specialize = True
        self._lineinfo = True
        #: Steps one CTA may run on the CPU interpreter before it is stopped at
        #: the loop it is in, as phobos-run --step-limit (None: 2^27, about ten
        #: seconds of a spin loop); a small one finds a hang fast.
        self.step_limit: int | None = None
        # Launch plans of cached GPU launches (_LaunchPlan), by grid and
        # variant keywords, the latest first; cleared when what chose them
        # changes.
        self._plans: dict[tuple, list[_LaunchPlan]] = {}
        self._last_plans: tuple[Any, list[_LaunchPlan]] | None = None
        # The plans that run in C (libphobos-python's LaunchTable), for
        # launches without variant keywords: kernel[grid](...) then reaches
        # cuLaunchKernel without a Python frame. None where the library is
        # not built; Launcher (in Python) then serves kernel[grid].
        types = _library.launch_types()
        self._table = types[0](_raise_launch_error) if types else None
        self._launcher = types[1] if types else Launcher
        # (chip, dims) -> the tuned variant, or None: the tuning cache has none.
        self._tuned: dict[tuple[str, tuple[tuple[str, int], ...], bool], dict[str, int] | None] = {}
        #: How @ph.autotune asked to search (search=, reference=, rtol=, ...).
        self.tune_options: dict[str, Any] = dict(getattr(function, "__phobos_tune_options__", {}))
        #: Searches this kernel has run (phobos-tune calls), for tests and curiosity.
        self.searches = 0
        self._lock = threading.Lock()

    @property
    def space(self) -> dict[str, list[int]]:
        """The @autotune space, each dimension's values as the language
        expands them (``[16, 8192]``: 16, 32, ..., 8192), the default first:
        the library's reading of the kernel's Phobos text."""
        if self._space is None:
            try:
                self._space = self._session().autotune_space(self.name)
            except LibraryError as error:
                raise CompileError(error.message, self.name) from None
        return self._space

    @property
    def specialize(self) -> bool:
        """GPU launches compile the kernel specialised for the divisibility
        of their extents by 2, 4, 8 or 16 (as phobos-run does, and Triton for
        integers divisible by 16); False compiles the general kernel."""
        return self._specialize

    @specialize.setter
    def specialize(self, value: bool) -> None:
        self._specialize = bool(value)
        self._forget_plans()

    @property
    def lineinfo(self) -> bool:
        """GPU compiles carry line info: the PTX's .file/.loc name the Python
        lines, so compute-sanitizer, cuda-gdb and Nsight Compute show them
        (the default; the same registers, a cubin about 3x larger). False
        leaves it out; ``@ph.kernel(lineinfo=False)`` does it at the
        definition."""
        return self._lineinfo

    @lineinfo.setter
    def lineinfo(self, value: bool) -> None:
        with self._lock:
            self._lineinfo = bool(value)
            self._compiled.clear()
            self._gpu.clear()
        self._forget_plans()

    @classmethod
    def from_function(cls, function: Callable[..., Any]) -> "Kernel":
        return cls(translate_function(function), function)

    def __repr__(self) -> str:
        return f"<phobos kernel {self.name} from {self.translation.python_file}:{self.translation.def_pos[0]}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"launch a kernel with a grid: {self.name}[grid](...) (grid: a tuple, a "
                        "callable of the dims and variant, or None to infer it)")

    def __getitem__(self, grid: Any) -> Any:
        return self._launcher(self._table, self, grid)

    def _launch_slow(self, grid: Any, args: tuple, stream: Any = None,
                     race_check: bool = False, **variant: int) -> None:
        """What kernel[grid](...) does when no plan in C takes the launch:
        the plans in Python, else the full path (which makes a plan)."""
        if not race_check and self._plans and _launch_planned(self, grid, args, stream, variant):
            return
        self.launch(grid, args, stream, race_check=race_check, **variant)

    def race_check(self, grid: Any, *args: Any, **variant: int) -> None:
        """Runs the launch on the CPU interpreter with the race check
        (``phobos-run --race-check``): every pair of accesses to one element
        by two CTAs that the memory model leaves unordered (a write and any
        other access; an atomic_add and a plain access) raises
        :class:`RaceError`, whose message names both accesses at this
        file's lines, the tensor, an element and the two CTAs. A clean run
        returns None, with the outputs written as by a launch. NumPy arrays
        only (the check is the interpreter's); ``kernel[grid](...,
        race_check=True)`` is the same."""
        infos = [describe(arg) for arg in args]
        if any(info is not None and info.device >= 0 for info in infos):
            raise ArgumentError(self.name, "race_check", "runs on the CPU interpreter: pass "
                                "NumPy arrays (numpy.asarray of the GPU arrays' copies)")
        self._launch_cpu(grid, args, infos, variant, race_check=True)

    def _forget_plans(self) -> None:
        self._plans.clear()
        self._last_plans = None
        if self._table is not None:
            self._table.clear()

    # -- variants ---------------------------------------------------------------------

    def default_variant(self) -> dict[str, int]:
        return {name: values[0] for name, values in self.space.items()}

    def variants(self) -> list[dict[str, int]]:
        """Every variant of the @autotune space, the default first. A space
        of more than 4096 variants (40 dimensions of two values are 2^40)
        is refused instead of built, as `phobos-compile --all-variants`
        refuses it."""
        count = 1
        for values in self.space.values():
            count *= len(values)
        if count > MAX_ENUMERATED_VARIANTS:
            raise PhobosError(f"{self.name}: the @autotune space has {count} variants, more "
                              f"than the {MAX_ENUMERATED_VARIANTS} Phobos enumerates; pass "
                              f"the variants to try (tune(..., variants=[...]))")
        names = list(self.space)
        return [dict(zip(names, combo)) for combo in itertools.product(*self.space.values())]

    def _variant(self, given: Mapping[str, Any], implied: Mapping[str, int] | None = None) -> Variant:
        """Keywords first, then what the arguments imply, then the first value."""
        for name, value in given.items():
            if name not in self.space:
                known = ", ".join(self.space) or "none"
                raise ArgumentError(self.name, name, f"is not an @autotune dimension of "
                                    f"'{self.name}' (its dimensions: {known})")
            if isinstance(value, bool) or not isinstance(value, int):
                raise ArgumentError(self.name, name, f"a variant value is an integer, got {value!r}")
        chosen = []
        for name, values in self.space.items():
            if name in given:
                chosen.append((name, int(given[name])))
            elif implied and name in implied:
                chosen.append((name, int(implied[name])))
            else:
                chosen.append((name, values[0]))
        return tuple(chosen)

    # -- compiling --------------------------------------------------------------------

    def _source_files(self) -> tuple[Path, Path]:
        with self._lock:
            if self._files is None:
                digest = hashlib.sha256((self.source + self.translation.span_map_json())
                                        .encode()).hexdigest()[:16]
                folder = _process_dir() / f"{self.name}-{digest}"
                folder.mkdir(exist_ok=True)
                source = folder / f"{self.name}.ph"
                span_map = folder / f"{self.name}.map.json"
                source.write_text(self.source + "\n")
                span_map.write_text(self.translation.span_map_json())
                self._files = (source, span_map)
            return self._files

    def _specialization(self, variant: Variant, dims: Mapping[str, int]) -> Aligned:
        """The @aligned promises a GPU launch with these extents adds to the
        variant, as phobos-run's do (specializeAlignment in lib/Driver): each
        tensor extent divisible by 2, 4, 8 or 16 (the largest) unless the
        kernel already promises a multiple of it; sorted by name; empty: the
        general kernel."""
        if not self.specialize:
            return ()
        key = (variant, tuple(sorted(dims.items())))
        found = self._specializations.get(key)
        if found is not None:
            return found
        contract = self._compile(variant, "contract").contract
        promised = contract.aligned
        # Extents bound at launch only: an axis static in the variant (a
        # literal, an @autotune name) has nothing to specialise.
        named = {dim for slot in contract.params if slot.kind == "tensor"
                 for dim, extent in zip(slot.dims, slot.static_shape) if extent < 0}
        added = []
        for name, value in dims.items():
            if name not in named or value <= 0:
                continue
            power = min(16, value & -value)
            if power < 2:
                continue
            promise = promised.get(name, 0)
            if (math.lcm(promise, power) if promise > 0 else power) == promise:
                continue
            added.append((name, power))
        found = tuple(sorted(added))
        self._specializations[key] = found
        return found

    def _session(self) -> _library.Session:
        """The kernel's program loaded in libphobos (once per kernel)."""
        with self._lock:
            if self._library_session is None:
                self._library_session = _library.Session(
                    self.source + "\n", f"{self.name}.ph", self.translation.span_map_json())
            return self._library_session

    def _compile(self, variant: Variant, chip: str, aligned: Aligned = (),
                 extents: Mapping[str, int] | None = None) -> CompiledVariant:
        """The variant for ``chip`` ("contract" for the contract alone), from
        the kernel cache or compiled into it, in this process (libphobos);
        specialised with the promises ``aligned`` (from _specialization of
        ``extents``) when given."""
        key = (variant, chip, aligned)
        compiled = self._compiled.get(key)
        if compiled is not None:
            return compiled
        if aligned:
            assert extents is not None
        specialize = [(name, extents[name]) for name, _ in aligned] if aligned else []
        try:
            build = self._session().compile(self.name, variant, chip,
                                            _library.default_cache_dir(), specialize,
                                            lineinfo=self._lineinfo)
        except LibraryError as error:
            raise CompileError(error.message, self.name) from None
        if build.notes:
            sys.stderr.write("".join(f"phobos: note: {line}\n"
                                     for line in build.notes.splitlines()))
        if build.diagnostics:
            sys.stderr.write(build.diagnostics + "\n")  # warnings, at the Python lines
        compiled = CompiledVariant(dict(variant), chip,
                                   Path(build.cache_entry) if build.cache_entry else None,
                                   Contract(build.contract_json),
                                   build.ptx or None, build.cubin, self._lineinfo)
        self._compiled[key] = compiled
        return compiled

    def compile(self, chip: str = "sm_90", **variant: int) -> CompiledVariant:
        """Compiles a variant (keywords; the rest take their first value) for
        ``chip`` into the kernel cache, or takes it from there."""
        return self._compile(self._variant(variant), chip)

    def contract(self, **variant: int) -> Contract:
        """The launch contract of a variant (no GPU pipeline runs)."""
        return self._compile(self._variant(variant), "contract").contract

    # -- launching --------------------------------------------------------------------

    def _implied(self, infos: Sequence[ArrayInfo | None]) -> dict[str, int]:
        """Dims bound by the arrays' shapes, by name (first tensor wins)."""
        dims: dict[str, int] = {}
        for param, info in zip(self.translation.params, infos):
            if info is None or param.kind != "tensor" or len(info.shape) != len(param.dims):
                continue
            for dim, extent in zip(param.dims, info.shape):
                dims.setdefault(dim, int(extent))
        return dims

    def _searches_at_launch(self) -> bool:
        options = self.tune_options
        return bool(options.get("search", "reference" in options)) and len(self.variants()) > 1

    def _choose(self, given: Mapping[str, Any], infos: Sequence[ArrayInfo | None], chip: str,
                grid: Any = None, args: Sequence[Any] | None = None,
                stream: Any = None) -> Variant:
        if len(given) == len(self.space):
            return self._variant(given)
        dims = self._implied(infos)
        tuned = self._tuned_variant(chip, dims)
        if tuned is None and not given and args is not None and self._searches_at_launch():
            # @ph.autotune(search=True / reference=...): the first launch of
            # this shape on this chip searches; later ones find the winner.
            options = self.tune_options
            result = self.tune(grid, *args, reference=options.get("reference"),
                               rtol=options.get("rtol"), warmup=options.get("warmup", 3),
                               rep=options.get("rep", 20), stream=stream,
                               init=options.get("init"), _launch_best=False)
            tuned = result.best
        implied = {name: dims[name] for name in self.space if name in dims}
        if tuned:
            implied.update(tuned)
        return self._variant(given, implied)

    def _grid(self, grid: Any, contract: Contract, bound: Bound, variant: Variant) -> tuple[int, int, int]:
        """Chooses the bound launch's grid: the one given, a grid function's
        answer, or (None) the one the contract infers."""
        if callable(grid):
            grid = grid(_grid_meta(contract, bound, variant))
        return bound.set_grid(grid)

    def launch(self, grid: Any, args: Sequence[Any], stream: Any = None,
               race_check: bool = False, **variant: int) -> None:
        if race_check:
            self.race_check(grid, *args, **variant)
            return
        if self._plans and _launch_planned(self, grid, args, stream, variant):
            return
        infos = [describe(arg) for arg in args]
        on_gpu = any(info is not None and info.device >= 0 for info in infos)
        if on_gpu:
            self._launch_gpu(grid, args, infos, stream, variant)
        else:
            if stream is not None:
                raise ArgumentError(self.name, "stream", "NumPy arrays run on the CPU "
                                    "interpreter, which has no streams")
            self._launch_cpu(grid, args, infos, variant)

    def _launch_gpu(self, grid: Any, args: Sequence[Any], infos: list[ArrayInfo | None],
                    stream: Any, given: Mapping[str, Any]) -> None:
        driver = CudaDriver.get()
        device = next(info.device for info in infos if info is not None and info.device >= 0)
        chip = driver.chip(device)
        variant = self._choose(given, infos, chip, grid, args, stream)
        extents = self._implied(infos)
        aligned = self._specialization(variant, extents)
        loaded = self._gpu.get((variant, device, aligned))
        if loaded is None:
            loaded = self._load(variant, device, chip, driver, aligned, extents)
        contract = loaded.contract
        bound = bind(contract, args, infos,
                     driver.entry_point("cuTensorMapEncodeTiled") if loaded.maps else None)
        self._grid(grid, contract, bound, variant)
        # A persistent kernel's CTAs walk its tiles along x, as many as the
        # device holds at once.
        grid3 = bound.launch.grid(loaded.resident)
        handle = stream_handle(stream, infos, device)
        driver.make_current(device)
        with loaded.lock:
            for slot, value in zip(loaded.slots, bound.values):
                slot.value = value
            for address, encoded in zip(loaded.maps, bound.tensor_maps):
                ctypes.memmove(address, encoded, len(encoded))
            driver.launch(loaded.function, grid3, contract.cta_threads,
                          contract.shared_memory_bytes, handle, loaded.params)
        signature = _signature(args, infos)
        grid_key = _grid_key(grid)
        if signature is not None and grid_key is not _UNKEYABLE and \
                not (contract.persistent and callable(grid)):
            plan = _LaunchPlan(self, loaded, driver, args, infos, bound, variant,
                               None if callable(grid) else grid3, signature[0])
            plans = self._plans.setdefault((grid_key, tuple(sorted(given.items()))), [])
            plans.insert(0, plan)
            del plans[_MAX_PLANS:]
            if self._table is not None and not given:
                self._table.set(grid_key, [
                    (p, p.native, p.grid3, *p.stream_call) for p in plans
                    if p.native and p.grid3 is not None])

    def _load(self, variant: Variant, device: int, chip: str, driver: Any,
              aligned: Aligned = (), extents: Mapping[str, int] | None = None) -> _GpuKernel:
        compiled = self._compile(variant, chip, aligned, extents)
        with self._lock:
            loaded = self._gpu.get((variant, device, aligned))
            if loaded is None:
                loaded = _GpuKernel(compiled, device, driver)
                self._gpu[(variant, device, aligned)] = loaded
        return loaded

    def _launch_cpu(self, grid: Any, args: Sequence[Any], infos: list[ArrayInfo | None],
                    given: Mapping[str, Any], race_check: bool = False) -> Bound:
        variant = self._choose(given, infos, "interpreter", grid, args)
        contract = self._compile(variant, "contract").contract
        bound = bind(contract, args, infos)
        grid3 = self._grid(grid, contract, bound, variant)
        run_interpreter(self, variant, contract, bound, grid3, race_check)
        return bound

    # -- autotuning -------------------------------------------------------------------

    def _tuning_key(self, chip: str, dims: Mapping[str, int]) -> tuple:
        return chip, tuple(sorted(dims.items())), self.specialize

    def _tuned_variant(self, chip: str, dims: Mapping[str, int]) -> dict[str, int] | None:
        """The tuning cache's winner for these dims on this chip (read once
        per process and shape)."""
        key = self._tuning_key(chip, dims)
        if key in self._tuned:
            return self._tuned[key]
        found = self._session().tuned_variant(
            self.name, chip, dict(dims), chip != "interpreter" and not self.specialize,
            _library.default_cache_dir())
        if found is not None and set(found) != set(self.space):
            found = None  # a record of another space
        self._tuned[key] = found
        return found

    def _remember_tuned(self, chip: str, dims: Mapping[str, int], best: Mapping[str, int]) -> None:
        self._tuned[self._tuning_key(chip, dims)] = dict(best)
        self._forget_plans()

    def tune(self, grid: Any, *args: Any, reference: Callable[..., Any] | None = None,
             rtol: float | None = None, warmup: int = 3, rep: int = 20, stream: Any = None,
             variants: Iterable[Mapping[str, int]] | None = None, force: bool = False,
             init: Mapping[str, Any] | None = None, seed: int | None = None,
             quiet: bool = False, _launch_best: bool = True, **fixed: int) -> TuneResult:
        """Searches the @autotune space for the problem these arguments pose
        (their shapes, the scalars), with phobos-tune: compiles every variant
        (or ``variants``; keywords fix dimensions) in parallel, checks each
        on fresh random inputs against ``reference`` (a function of the
        arguments as float64 NumPy arrays returning the expected outputs:
        one array, a tuple in parameter order or a dict by name; without one,
        against the interpreter on a small problem), times the ones that
        pass on the arguments' device (the CPU interpreter for NumPy arrays)
        and remembers the fastest in the tuning cache for this chip and these
        dims: later launches without variant keywords use it, in this process
        and others. A problem tuned before is not searched again unless
        ``force``. ``init`` fills tensors as phobos-run's --init does
        (``{"Locks": 0}``). The outputs are left holding one launch of the
        best variant."""
        return _tuner.tune(self, grid, args, reference, rtol, warmup, rep, stream, variants,
                           fixed, force=force, init=init, seed=seed,
                           launch_best=_launch_best, quiet=quiet)


    # -- the visualizer ---------------------------------------------------------------

    def visualize(self, path: str | os.PathLike[str] | None = None, *,
                  dims: Mapping[str, int] | None = None, grid: Sequence[int] | None = None,
                  chip: str = "sm_90", cta: Sequence[int] = (0, 0, 0),
                  scalars: Mapping[str, float] | None = None,
                  max_grid_elements: int | None = None, max_grid_steps: int | None = None,
                  max_write_runs: int | None = None, max_ir_lines: int | None = None,
                  tuning_report: str | os.PathLike[str] | None = None,
                  cluster_plan: str | os.PathLike[str] | None = None,
                  cluster_summary: str | os.PathLike[str] | None = None, **variant: int) -> str:
        """The page ``phobos-viz`` writes for a variant (keywords; the rest
        take their first value) and a problem (``dims``, the extents of the
        kernel's dims: the grid, and the kernel specialised for them as a
        launch compiles it; ``grid``, 1 to 3 extents, where the slices do
        not infer it), built in this process: one self-contained HTML
        document with this file's source, the IR after every pass, the
        layouts, the shared buffers, the memory traffic of the CTA ``cta``
        on the interpreter, and which CTA of the whole grid wrote each
        element, with the race check's races (the scalars of those runs
        from ``scalars``, the others as phobos-run gives them), and the
        autotuner's search: ``tuning_report`` (a file phobos-tune --json
        wrote), else what :meth:`tune` remembered for these dims, and for
        an @ph.cluster kernel the plan of a job (``cluster_plan``, what
        phobos-sched --plan JOB --json wrote; ``cluster_summary``, its
        --summary-json after a run). Written to
        ``path`` when given; returned either way. The page's limits, as
        phobos-viz's options: ``max_grid_elements`` (a tile's or buffer's
        grid), ``max_grid_steps`` (the interpreter steps of the whole grid's
        run), ``max_write_runs`` (a written tensor's map), ``max_ir_lines``
        (a pass's IR, past which it is listed by its counts); docs/debugging.md,
        "The visualizer"."""
        limits = {"max_grid_elements": max_grid_elements, "max_grid_steps": max_grid_steps,
                  "max_write_runs": max_write_runs, "max_ir_lines": max_ir_lines}
        files = {"tuning_report": tuning_report, "cluster_plan": cluster_plan,
                 "cluster_summary": cluster_summary}
        page = self._visualize(dims, grid, chip, cta, scalars, limits, files, variant,
                               as_json=False)
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

    def visualization_data(self, *, dims: Mapping[str, int] | None = None,
                           grid: Sequence[int] | None = None, chip: str = "sm_90",
                           cta: Sequence[int] = (0, 0, 0),
                           scalars: Mapping[str, float] | None = None,
                           max_grid_elements: int | None = None,
                           max_grid_steps: int | None = None,
                           max_write_runs: int | None = None,
                           max_ir_lines: int | None = None,
                           tuning_report: str | os.PathLike[str] | None = None,
                           cluster_plan: str | os.PathLike[str] | None = None,
                           cluster_summary: str | os.PathLike[str] | None = None,
                           **variant: int) -> dict[str, Any]:
        """The data of :meth:`visualize`'s page (``phobos-viz --json``): one
        object per panel, in the form include/Phobos/Viz/Visualization.h
        documents."""
        limits = {"max_grid_elements": max_grid_elements, "max_grid_steps": max_grid_steps,
                  "max_write_runs": max_write_runs, "max_ir_lines": max_ir_lines}
        files = {"tuning_report": tuning_report, "cluster_plan": cluster_plan,
                 "cluster_summary": cluster_summary}
        return json.loads(self._visualize(dims, grid, chip, cta, scalars, limits, files,
                                          variant, as_json=True))

    def _visualize(self, dims: Mapping[str, int] | None, grid: Sequence[int] | None, chip: str,
                   cta: Sequence[int], scalars: Mapping[str, float] | None,
                   limits: Mapping[str, int | None],
                   files: Mapping[str, str | os.PathLike[str] | None], variant: Mapping[str, int],
                   as_json: bool) -> str:
        chosen = self._variant(variant)
        texts: dict[str, tuple[str, str]] = {}
        for param, path in files.items():
            texts[param] = ("", "")
            if path is None:
                continue
            try:
                texts[param] = (Path(path).read_text(encoding="utf-8"), str(path))
            except (OSError, UnicodeDecodeError, TypeError) as error:
                raise ArgumentError(self.name, param, f"cannot read {path!r}: {error}") from None
        for name, value in limits.items():
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or
                                      value < 1):
                raise ArgumentError(self.name, name, f"expected a positive integer, got {value!r}")
        extents = []
        for name, value in (dims or {}).items():
            if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, int):
                raise ArgumentError(self.name, "dims", f"expected a dict of dim names to "
                                    f"integers, got {name!r}: {value!r}")
            if not 1 <= value <= 2**31 - 1:
                raise ArgumentError(self.name, "dims", f"{name}={value}: extents are between 1 "
                                    f"and {2**31 - 1}")
            extents.append((name, value))
        grid3 = (0, 0, 0)
        if grid is not None:
            given = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
            if not 1 <= len(given) <= 3 or any(isinstance(extent, bool) or
                                               not isinstance(extent, int) or
                                               not 1 <= extent <= 2**31 - 1 for extent in given):
                raise ArgumentError(self.name, "grid", f"expected 1 to 3 extents between 1 and "
                                    f"{2**31 - 1}, got {grid!r}")
            grid3 = given + (1,) * (3 - len(given))
        block = tuple(cta)
        if not 1 <= len(block) <= 3 or any(isinstance(index, bool) or not isinstance(index, int)
                                           or index < 0 for index in block):
            raise ArgumentError(self.name, "cta", f"expected 1 to 3 block indices (integers "
                                f"of at least 0), got {cta!r}")
        block = block + (0,) * (3 - len(block))
        values = []
        for name, value in (scalars or {}).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ArgumentError(self.name, "scalars", f"{name}: expected a number, got "
                                    f"{value!r}")
            values.append((name, float(value)))
        if not isinstance(chip, str) or not _library.chip_is_supported(chip):
            raise ArgumentError(self.name, "chip", f"unsupported chip {chip!r}; Phobos targets "
                                "sm_80 to sm_90a")
        try:
            return self._session().visualize(
                self.name, chosen, extents, chip, block, values,
                limits.get("max_grid_elements") or 0, as_json, grid3,
                limits.get("max_grid_steps") or 0, limits.get("max_write_runs") or 0,
                texts["tuning_report"][0], texts["tuning_report"][1], _library.default_cache_dir(),
                (texts["cluster_plan"], texts["cluster_summary"]),
                limits.get("max_ir_lines") or 0)
        except LibraryError as error:
            raise CompileError(error.message, self.name) from None


class Launcher:
    """``kernel[grid]``: call it with the kernel's arguments. (Where
    libphobos-python is built, kernel[grid] is its Launcher in C instead,
    which tries the kernel's plans in C first.)"""

    __slots__ = ("kernel", "grid")

    def __init__(self, table: Any, kernel: Kernel, grid: Any) -> None:
        self.kernel = kernel
        self.grid = grid

    def __call__(self, *args: Any, stream: Any = None, **variant: int) -> None:
        self.kernel._launch_slow(self.grid, args, stream, **variant)


def run_interpreter(kernel: Kernel, variant: Variant, contract: Contract, bound: Bound,
                    grid: tuple[int, int, int], race_check: bool = False) -> None:
    """Runs a bound launch on the CPU interpreter (libphobos, in this
    process), in place on the NumPy arrays: an array passed for two
    parameters is one tensor, as on the GPU."""
    arguments: list[Any] = []
    for slot in contract.params:
        if slot.kind == "tensor":
            info = bound.arrays[slot.name]
            if slot.written and not getattr(getattr(info.obj, "flags", None), "writeable", True):
                raise ArgumentError(kernel.name, slot.name, "is a read-only array, but the "
                                    "kernel writes it")
            arguments.append((info.ptr, slot.dtype, info.shape))
        else:
            value = bound.scalars[slot.name]
            if isinstance(value, int):
                arguments.append((float(value), value))
            else:
                arguments.append((value, 0))
    try:
        kernel._session().interpret(kernel.name, variant, grid, arguments,
                                    step_limit=kernel.step_limit or 0, race_check=race_check)
    except LibraryError as error:
        races = getattr(error, "races", 0)
        if races:
            raise RaceError(error.message, races) from None
        raise KernelRuntimeError(error.message) from None



# -- the launch fast path ---------------------------------------------------------------
#
# A launch that went through every check (_launch_gpu) leaves a plan keyed by
# what those checks depended on: the grid (when not a callable), the variant
# keywords and each argument's signature (a tensor's library, element type,
# shape, contiguity, device and stream; a scalar's Python type). A later
# launch with the same key re-checks only what can change between calls: the
# pointers (null, 16-byte alignment), the scalars' values and a callable
# grid's result; anything else it sees goes back to the full path, which
# raises the same errors as before.

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

    def __init__(self, kernel: Kernel, loaded: _GpuKernel, driver: Any, args: Sequence[Any],
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
        for buffer, (param, *_), encoded in zip(self.map_buffers, contract.tensor_maps,
                                                 bound.tensor_maps):
            address = (ctypes.addressof(buffer) + 63) // 64 * 64
            ctypes.memmove(address, encoded, len(encoded))
            self.maps.append((address, tensor_ordinal[param], bound.arrays[param].ptr))
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
    torch tensors and f32/f64/i32/i64/bool scalars, no tensor maps."""
    native = _library.fast_launch()
    entry_points = driver.entry_points()
    if native is None or entry_points is None or plan.maps:
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
