"""The autotuner from Python: ``Kernel.tune`` and the search ``@ph.autotune``
starts at a launch both run ``phobos-tune`` (lib/Tune), the same C++ search
the command line uses: it compiles the space in parallel through the kernel
cache, checks every variant on fresh random inputs, times the ones that
pass and remembers the winner in the tuning cache, where later launches
(in this process or others) find it.

A reference written in Python is run here, once, on the random inputs this
module makes; phobos-tune compares every variant's outputs with what it
returned (``--check-input``/``--expect``). Without a reference the
interpreter checks every variant on a small problem (``--check
interpreter``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from phobos import _library, _tools
from phobos._arrays import describe, stream_handle
from phobos._contract import bind, grid_extents
from phobos._cuda import CudaDriver
from phobos._errors import ArgumentError, PhobosError

_NUMPY_DTYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "i32": "int32",
                 "i64": "int64", "bool": "bool"}


@dataclasses.dataclass
class TuneResult:
    """What a search found: the best variant, every variant's outcome (as
    phobos-tune reports it) and the whole report."""
    best: dict[str, int]
    results: list[dict[str, Any]]
    report: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def from_cache(self) -> bool:
        """True when the tuning cache answered and nothing was searched."""
        return bool(self.report.get("from_cache"))

    def table(self) -> str:
        lines = []
        for row in self.results:
            name = ",".join(f"{k}={v}" for k, v in row["variant"].items()) or "-"
            if row["status"] == "ok":
                error = row.get("max_rel_err")
                error_text = f"{error:.2e}" if isinstance(error, (int, float)) else str(error)
                lines.append(f"{name:40s} {row['time_ms']:10.4f} ms  err {error_text}")
            else:
                lines.append(f"{name:40s} {row['status']}: {row.get('error', '')}".rstrip())
        return "\n".join(lines)


def _variant_text(variant: Mapping[str, int]) -> str:
    return ",".join(f"{name}={value}" for name, value in variant.items()) or "-"


def _grid3(name: str, grid: Any) -> list[int]:
    return list(grid_extents(name, grid))


def _meta(contract: Any, dims: Mapping[str, int], variant: Mapping[str, int]) -> dict[str, int]:
    meta: dict[str, int] = {}
    for slot in contract.params:
        for dim, extent in zip(slot.dims, slot.static_shape):
            if extent >= 0 and not dim.isdigit():
                meta[dim] = extent
    meta.update(dims)
    meta.update(variant)
    return meta


def _fill(slot: Any, shape: tuple[int, ...], how: Any, rng: Any) -> Any:
    """A tensor as phobos-run fills it (random, a number, iota, uniform:LO:HI)."""
    import numpy as np
    dtype = _NUMPY_DTYPES[slot.dtype]
    if how is None or how == "random":
        if slot.dtype == "bool":
            return rng.integers(0, 2, size=shape).astype(np.bool_)
        if slot.dtype in ("i32", "i64"):
            return rng.integers(-8, 9, size=shape).astype(dtype)
        return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
    if isinstance(how, str) and how == "iota":
        return np.arange(math.prod(shape)).reshape(shape).astype(dtype)
    if isinstance(how, str) and how.startswith("uniform:"):
        _, low, high = how.split(":")
        return rng.uniform(float(low), float(high), size=shape).astype(dtype)
    return np.full(shape, float(how)).astype(dtype)


def _to_float64(array: Any) -> Any:
    import numpy as np
    return np.asarray(array, dtype=np.float64)


def tune(kernel: Any, grid: Any, args: Sequence[Any], reference: Callable[..., Any] | None,
         rtol: float | None, warmup: int, rep: int, stream: Any,
         variants: Iterable[Mapping[str, int]] | None, fixed: Mapping[str, int],
         force: bool = False, init: Mapping[str, Any] | None = None,
         seed: int | None = None, launch_best: bool = True, quiet: bool = False) -> TuneResult:
    import numpy as np
    for name in fixed:
        if name not in kernel.space:
            raise ArgumentError(kernel.name, name, f"is not an @autotune dimension of "
                                f"'{kernel.name}'")
    params = kernel.translation.params
    if len(args) != len(params):
        raise ArgumentError(kernel.name, "", f"expected {len(params)} arguments, got {len(args)}")
    init = dict(init or {})
    infos = [describe(arg) for arg in args]
    on_gpu = any(info is not None and info.device >= 0 for info in infos)
    if on_gpu:
        driver = CudaDriver.get()
        device = next(info.device for info in infos if info is not None and info.device >= 0)
        chip, backend = driver.chip(device), "gpu"
    else:
        chip, backend = "interpreter", "interpreter"
    dims = kernel._implied(infos)
    implied = {name: dims[name] for name in kernel.space if name in dims}
    contract = kernel.contract(**dict(kernel._variant({}, implied)))
    # The arguments must fit the kernel (the same checks as a launch).
    bound = bind(contract, args, infos)
    if variants is not None:
        candidates = [dict(kernel._variant(v)) for v in variants]
    else:
        candidates = [v for v in kernel.variants() if all(v[k] == fixed[k] for k in fixed)]
    if not candidates:
        raise PhobosError(f"{kernel.name}: no variant to tune")
    if seed is None:
        seed = int.from_bytes(__import__("os").urandom(4), "little")

    tool = _tools.find_tool("phobos-tune")
    source, span_map = kernel._source_files()
    folder = Path(tempfile.mkdtemp(prefix="tune-", dir=source.parent))
    try:
        report_path = folder / "report.json"
        command = [tool, str(source), "--kernel", kernel.name, "--span-map", str(span_map),
                   "--json", str(report_path), "--backend", backend, "--seed", str(seed),
                   "--warmup", str(warmup), "--repeat", str(rep),
                   "--cache-dir", _library.default_cache_dir()]
        if on_gpu:
            command += ["--chip", chip]
        if quiet:
            command.append("--quiet")
        if force:
            command.append("--force")
        if not getattr(kernel, "specialize", True):
            command.append("--no-specialize")
        if rtol is not None:
            command += ["--tolerance", repr(float(rtol))]
        command += [f"--dim={name}={value}" for name, value in dims.items()]
        for name, value in bound.scalars.items():
            command.append(f"--scalar={name}={_scalar_text(value)}")
        for name, how in init.items():
            command.append(f"--init={name}={how}")
        if variants is not None:
            command += ["--variants", ";".join(_variant_text(v) for v in candidates)]
        elif fixed:
            command += ["--fix", ",".join(f"{k}={v}" for k, v in fixed.items())]

        slots = [slot for slot in contract.params]
        grids: dict[str, dict[str, list[int]]] = {}
        if reference is not None:
            # Fresh random inputs at the problem's shapes; the reference sees
            # them as float64 (outputs the kernel only writes: NaN).
            rng = np.random.default_rng(seed)
            arrays: list[Any] = []
            command += ["--check", "expected"]
            command += [f"--check-dim={name}={value}" for name, value in dims.items()]
            for slot, arg in zip(slots, args):
                if slot.kind != "tensor":
                    arrays.append(bound.scalars[slot.name])
                    continue
                if slot.dtype == "bf16":
                    raise PhobosError(f"{kernel.name}: bf16 tensor '{slot.name}' cannot be "
                                      "checked against a Python reference (NumPy has no "
                                      "bfloat16); tune without reference= (the interpreter "
                                      "checks)")
                shape = tuple(bound.arrays[slot.name].shape)
                if slot.read or not slot.written:
                    array = _fill(slot, shape, init.get(slot.name), rng)
                    path = folder / f"{slot.name}.in.npy"
                    np.save(path, array, allow_pickle=False)
                    command.append(f"--check-input={slot.name}={path}")
                    arrays.append(_to_float64(array))
                else:
                    arrays.append(np.full(shape, np.nan))
            written = [slot.name for slot in slots if slot.kind == "tensor" and slot.written]
            expected = _expected_outputs(reference, arrays, written)
            for name, array in expected.items():
                path = folder / f"{name}.expected.npy"
                np.save(path, np.ascontiguousarray(array, dtype=np.float64), allow_pickle=False)
                command.append(f"--expect={name}={path}")
            check_dims = dims
        else:
            command += ["--check", "interpreter"]
            check_dims = dims
            if callable(grid):
                # The interpreter checks on a smaller problem; its grids come
                # from the grid function too, so ask which problem that is.
                probe = _tools.run_tool([tool, str(source), "--kernel", kernel.name,
                                         "--print-check-dims", "--quiet"] +
                                        (["--no-specialize"] if not getattr(
                                            kernel, "specialize", True) else []) +
                                        [f"--dim={n}={v}" for n, v in dims.items()])
                if probe.returncode != 0:
                    raise PhobosError(probe.stderr.strip() or "phobos-tune failed")
                check_dims = json.loads(probe.stdout)
                command += [f"--check-dim={name}={value}" for name, value in check_dims.items()]
        if callable(grid):
            grids = {"grids": {}, "check_grids": {}}
            for variant in candidates:
                text = _variant_text(variant)
                grids["grids"][text] = _grid3(kernel.name, grid(_meta(contract, dims, variant)))
                grids["check_grids"][text] = _grid3(
                    kernel.name, grid(_meta(contract, check_dims, variant)))
            grid_path = folder / "grids.json"
            grid_path.write_text(json.dumps(grids))
            command += ["--grid-file", str(grid_path)]
        elif grid is not None:
            command += ["--grid", ",".join(map(str, _grid3(kernel.name, grid)))]

        kernel.searches += 1
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=None if not quiet
                                else subprocess.PIPE, text=True, encoding="utf-8",
                                errors="replace")
        if not report_path.exists():
            raise PhobosError(f"{kernel.name}: phobos-tune failed (exit {result.returncode}):\n"
                              f"{(result.stderr or '').strip()}\n{result.stdout.strip()}".strip())
        report = json.loads(report_path.read_text())
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    rows = []
    for row in report["variants"]:
        entry = {"variant": dict(row["variant"]), "status": row["status"],
                 "time_ms": row["time_ms"], "max_rel_err": row["max_rel_err"]}
        if row["status"] != "ok":
            entry["error"] = row["reason"]
        rows.append(entry)
    if report.get("best", -1) < 0:
        raise PhobosError(f"{kernel.name}: no variant passed the check:\n" +
                          TuneResult({}, rows, report).table())
    best = dict(report["best_variant"])
    kernel._remember_tuned(chip, dims, best)
    if launch_best:
        # The outputs hold the best variant's result, as one launch leaves them.
        kernel.launch(grid, args, stream, **best)
        if on_gpu:
            CudaDriver.get().synchronize(stream_handle(stream, infos, device))
    return TuneResult(best, rows, report)


def _expected_outputs(reference: Callable[..., Any], args: Sequence[Any],
                      written: list[str]) -> dict[str, Any]:
    produced = reference(*args)
    if isinstance(produced, Mapping):
        unknown = [n for n in produced if n not in written]
        if unknown:
            raise PhobosError(f"the reference returned '{unknown[0]}', which the kernel does not "
                              f"write (it writes {', '.join(written)})")
        return {name: _to_float64(value) for name, value in produced.items()}
    if not isinstance(produced, (tuple, list)):
        produced = (produced,)
    if len(produced) != len(written):
        raise PhobosError(f"the reference returned {len(produced)} arrays but the kernel writes "
                          f"{len(written)} tensors ({', '.join(written)})")
    return {name: _to_float64(value) for name, value in zip(written, produced)}


def _scalar_text(value: float | int) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    return str(value)
