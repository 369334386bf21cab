"""The autotuner: every variant of a kernel's @autotune space, checked against
a reference, the passing ones timed, the fastest remembered per chip and dims
(in the kernel cache, so later processes use it too)."""

from __future__ import annotations

import json
import math
import statistics
import sys
import time
from typing import Any, Callable, Iterable, Mapping, Sequence

from phobos import _cache
from phobos._arrays import describe
from phobos._errors import ArgumentError, PhobosError


def _library(array: Any) -> str:
    module = type(array).__module__
    for name in ("numpy", "torch", "cupy"):
        if module.startswith(name):
            return name
    return module


def _copy(array: Any) -> Any:
    library = _library(array)
    if library == "torch":
        return array.clone()
    if library in ("numpy", "cupy"):
        return array.copy()
    raise PhobosError(f"tune needs NumPy, torch or CuPy arrays to restore the outputs between "
                      f"variants, got {type(array).__name__}")


def _restore(array: Any, saved: Any) -> None:
    library = _library(array)
    if library == "torch":
        array.copy_(saved)
    elif library == "numpy":
        import numpy as np
        np.copyto(array, saved)
    else:
        array[...] = saved


def to_float64(array: Any) -> Any:
    """A float64 NumPy copy of a NumPy, torch or CuPy array (or anything
    NumPy can read)."""
    import numpy as np
    library = _library(array)
    if library == "torch":
        return array.detach().to("cpu").double().numpy()
    if library == "cupy":
        return array.get().astype(np.float64)
    return np.asarray(array, dtype=np.float64).copy()


def max_relative_error(got: Any, expected: Any) -> float:
    """``max |got - expected| / max |expected|``; infinite where the result
    holds NaN or infinity and the reference does not."""
    import numpy as np
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if got.shape != expected.shape:
        return math.inf
    if not np.all(np.isfinite(got) | ~np.isfinite(expected)):
        return math.inf
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    diff = float(np.max(np.abs(got - expected))) if got.size else 0.0
    if diff == 0:
        return 0.0
    return diff / scale if scale > 0 else math.inf


def _expected_outputs(reference: Callable[..., Any], args: Sequence[Any],
                      written: list[str], names: list[str]) -> dict[str, Any]:
    produced = reference(*args)
    if isinstance(produced, Mapping):
        unknown = [n for n in produced if n not in written]
        if unknown:
            raise PhobosError(f"the reference returned '{unknown[0]}', which the kernel does not "
                              f"write (it writes {', '.join(written)})")
        return {name: to_float64(value) for name, value in produced.items()}
    if not isinstance(produced, (tuple, list)):
        produced = (produced,)
    if len(produced) != len(written):
        raise PhobosError(f"the reference returned {len(produced)} arrays but the kernel writes "
                          f"{len(written)} tensors ({', '.join(written)})")
    return {name: to_float64(value) for name, value in zip(written, produced)}


def tune(kernel: Any, grid: Any, args: Sequence[Any], reference: Callable[..., Any] | None,
         rtol: float | None, warmup: int, rep: int, stream: Any,
         variants: Iterable[Mapping[str, int]] | None, fixed: Mapping[str, int]):
    from phobos._kernel import TuneResult, _stream_handle
    for name in fixed:
        if name not in kernel.space:
            raise ArgumentError(kernel.name, name, f"is not an @autotune dimension of "
                                f"'{kernel.name}'")
    if variants is not None:
        candidates = [dict(kernel._variant(v)) for v in variants]
    else:
        candidates = [v for v in kernel.variants() if all(v[k] == fixed[k] for k in fixed)]
    if not candidates:
        raise PhobosError(f"{kernel.name}: no variant to tune")
    infos = [describe(arg) for arg in args]
    on_gpu = any(info is not None and info.device >= 0 for info in infos)
    params = kernel.translation.params
    contract = kernel.contract(**candidates[0])
    written = [slot.name for slot in contract.params if slot.kind == "tensor" and slot.written]
    index = {p.name: i for i, p in enumerate(params)}
    if len(args) != len(params):
        raise ArgumentError(kernel.name, "", f"expected {len(params)} arguments, got {len(args)}")
    saved = {name: _copy(args[index[name]]) for name in written}
    expected = _expected_outputs(reference, args, written, [p.name for p in params]) \
        if reference is not None else None
    if rtol is None:
        reduced = any(p.dtype in ("f16", "bf16") for p in params) or "@tensorcore" in kernel.source
        rtol = 1e-2 if reduced else 1e-5
    driver = None
    device = 0
    if on_gpu:
        from phobos._cuda import Driver
        driver = Driver.get()
        device = next(info.device for info in infos if info is not None and info.device >= 0)
        chip = driver.chip(device)
        handle = _stream_handle(stream, infos, device)
    else:
        chip = "interpreter"
        handle = None

    def launch(variant: Mapping[str, int]) -> None:
        kernel.launch(grid, args, stream, **variant)

    results: list[dict[str, Any]] = []
    for variant in candidates:
        for name in written:
            _restore(args[index[name]], saved[name])
        row: dict[str, Any] = {"variant": variant}
        try:
            launch(variant)
            if driver is not None:
                driver.synchronize(handle)
        except PhobosError as error:
            row.update(status="failed", error=str(error).splitlines()[0])
            results.append(row)
            continue
        got = {name: to_float64(args[index[name]]) for name in written}
        if expected is None:
            expected = got  # the first variant that runs is the reference
        error = max((max_relative_error(got[n], expected[n]) for n in expected), default=0.0)
        row["max_rel_err"] = error
        if not error <= rtol:
            row.update(status="wrong", error=f"max rel err {error:.3g} > {rtol:g}")
            results.append(row)
            continue
        if driver is not None:
            for _ in range(warmup):
                launch(variant)
            start, stop = driver.event(), driver.event()
            samples = []
            for _ in range(max(1, rep)):
                driver.record(start, handle)
                launch(variant)
                driver.record(stop, handle)
                samples.append(driver.elapsed_ms(start, stop))
            driver.destroy_event(start)
            driver.destroy_event(stop)
            row["time_ms"] = statistics.median(samples)
        else:
            begin = time.perf_counter()
            launch(variant)
            row["time_ms"] = (time.perf_counter() - begin) * 1e3
        row["status"] = "ok"
        results.append(row)
    for name in written:
        _restore(args[index[name]], saved[name])
    passing = [row for row in results if row["status"] == "ok"]
    if not passing:
        raise PhobosError(f"{kernel.name}: no variant passed the check:\n" +
                          TuneResult({}, results).table())
    best = min(passing, key=lambda row: row["time_ms"])["variant"]
    # The outputs hold the best variant's result.
    launch(best)
    if driver is not None:
        driver.synchronize(handle)
    _remember(kernel, chip, kernel._implied(infos), best)
    return TuneResult(dict(best), results)


def _remember(kernel: Any, chip: str, dims: Mapping[str, int], best: Mapping[str, int]) -> None:
    path = kernel._tuning_file()
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        table = {}
    table[kernel._tuning_key(chip, dims)] = {"variant": dict(best)}
    try:
        _cache.write_atomic(path, json.dumps(table, indent=1, sort_keys=True).encode())
    except OSError as error:
        print(f"phobos: note: the tuned variant is not remembered: {error}", file=sys.stderr)
    kernel._tuned = table
