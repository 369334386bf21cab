"""The kernel object a ``@ph.kernel`` makes: its Phobos text, compilation
through the kernel cache, the launcher (``kernel[grid](*args)``) for GPU and
CPU arrays, and the autotuner. The plans that launch a checked launch again
without its checks are phobos._launch_plans's."""

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
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from phobos import _library, _tuner
from phobos._arrays import ArrayInfo, describe, stream_handle
from phobos._cuda import CudaDriver
from phobos._contract import Bound, Contract, bind, parameter_types
from phobos._errors import ArgumentError, CompileError, KernelRuntimeError, PhobosError, RaceError
from phobos._library import LibraryError
from phobos._frontend import translate_function
from phobos._launch_plans import (_MAX_PLANS, _UNKEYABLE, _grid_key, _grid_meta, _LaunchPlan,
                                  _launch_planned, _raise_launch_error, _signature)
from phobos._translation import Translation
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
            if self._table is not None:
                # A callable grid's plans carry the dims and variant it is
                # called with (the C launcher calls it at each launch); the
                # variant keywords are part of the plans' key there too.
                self._table.set(grid_key, [
                    (p, p.native, p.grid_meta if p.grid3 is None else p.grid3, *p.stream_call)
                    for p in plans if p.native], dict(given) if given else None)

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
