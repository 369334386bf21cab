#!/usr/bin/env python3
"""The Python package on the GPU: every example launched from Python with torch
and with CuPy arrays, compared with phobos-run on the same inputs and with a
float64 reference (outputs poisoned with NaN first), and the launch overhead
of a small cached kernel next to Triton's and torch's, in the same run.

    PHOBOS_HOME=/path/to/dist python3 bench/python_gpu.py [--launches 5000] [--json out.json]
                                                          [--persistent-only]

It also launches a copy of the HGEMM example that says @persistent (from
Python, with as many CTAs as the GPU holds, looping over 561 tiles) against
float64; --persistent-only runs only that.

PHOBOS_HOME holds lib/libphobos.so, lib/libphobos-python.so and bin/phobos-run
(scripts/build-static.sh makes them: build-static/dist). Needs an NVIDIA GPU, NumPy, and torch and/or
CuPy; Triton is optional (its column is left out when it is missing). The
package is used from this checkout (python/) unless one is installed.
Exit status 1 when any check fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "python" / "tests"))

import numpy as np  # noqa: E402

import phobos  # noqa: E402
from phobos import Kernel  # noqa: E402
from phobos.ph2py import convert  # noqa: E402
from example_cases import CASES  # noqa: E402


def load_example(name: str, folder: Path, source: str | None = None) -> Kernel:
    """The example's kernel through ph2py (or `source`'s, Phobos text)."""
    path = folder / f"{name}.py"
    if source is None:
        source = (REPO / "examples" / f"{name}.ph").read_text()
    path.write_text(convert(source, f"{name}.ph"))
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    (kernel,) = [v for v in vars(module).values() if isinstance(v, Kernel)]
    return kernel


class Backend:
    def __init__(self, name: str) -> None:
        self.name = name
        if name == "torch":
            import torch
            self.lib = torch
        else:
            import cupy
            self.lib = cupy

    def to_device(self, array: np.ndarray):
        if self.name == "torch":
            return self.lib.from_numpy(array.copy()).cuda()
        return self.lib.asarray(array)

    def to_host(self, array) -> np.ndarray:
        if self.name == "torch":
            return array.cpu().numpy()
        return self.lib.asnumpy(array)

    def synchronize(self) -> None:
        if self.name == "torch":
            self.lib.cuda.synchronize()
        else:
            self.lib.cuda.get_current_stream().synchronize()


def run_phobos_run(name: str, kernel: Kernel, args: list, variant: dict, folder: Path) -> dict:
    """phobos-run on the .ph file, on the GPU, with the same inputs."""
    tool = phobos._tools.find_tool("phobos-run")
    command = [tool, str(REPO / "examples" / f"{name}.ph")]
    if variant:
        command += ["--variant", ",".join(f"{k}={v}" for k, v in variant.items())]
    outputs = {}
    contract = kernel.contract(**variant)
    for slot, value in zip(contract.params, args):
        if slot.kind == "tensor":
            path = folder / f"{name}.{slot.name}.in.npy"
            np.save(path, value)
            command += ["--input", f"{slot.name}={path}"]
            if slot.written:
                outputs[slot.name] = folder / f"{name}.{slot.name}.out.npy"
                command += ["--output", f"{slot.name}={outputs[slot.name]}"]
        else:
            command += ["--scalar", f"{slot.name}={value!r}"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"phobos-run failed: {result.stderr.strip()}")
    return {n: np.load(p) for n, p in outputs.items()}


def rel_err(got: np.ndarray, want: np.ndarray) -> float:
    got = got.astype(np.float64)
    want = want.astype(np.float64)
    if not np.all(np.isfinite(got)):
        return float("inf")
    scale = np.max(np.abs(want)) or 1.0
    return float(np.max(np.abs(got - want)) / scale)


def check_examples(backends: list[Backend], folder: Path) -> list[dict]:
    rows = []
    for name in sorted(CASES):
        make, reference, tolerance, variant = CASES[name]
        if make is None:  # bf16 inputs: NumPy has none
            continue
        kernel = load_example(name, folder)
        args = make()
        expected = reference([a.copy() if isinstance(a, np.ndarray) else a for a in args])
        try:
            from_run = run_phobos_run(name, kernel, args, variant, folder)
        except Exception as error:  # noqa: BLE001 - reported in the table
            from_run = None
            run_error = str(error).splitlines()[0]
        names = [p.name for p in kernel.translation.params]
        for backend in backends:
            row = {"example": name, "backend": backend.name}
            try:
                device_args = [backend.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
                kernel[None](*device_args, **variant)
                backend.synchronize()
                errors, same = [], []
                for output, want in expected.items():
                    got = backend.to_host(device_args[names.index(output)])
                    errors.append(rel_err(got, want))
                    if from_run is not None:
                        same.append(rel_err(got, from_run[output]))
                row["max_rel_err"] = max(errors)
                row["vs_phobos_run"] = max(same) if from_run is not None else None
                row["ok"] = row["max_rel_err"] <= tolerance and from_run is not None and \
                    row["vs_phobos_run"] <= tolerance
                if from_run is None:
                    row["error"] = run_error
            except Exception as error:  # noqa: BLE001
                row.update(ok=False, error=str(error).splitlines()[0])
            rows.append(row)
            print(f"  {name:26s} {backend.name:6s} "
                  f"{'ok' if row['ok'] else 'FAILED'} {row.get('max_rel_err', float('nan')):.2e} "
                  f"vs phobos-run {row.get('vs_phobos_run')} {row.get('error', '')}", flush=True)
    return rows


def time_launches(launch, synchronize, count: int) -> float:
    """Host microseconds per launch of a cached kernel (small grid): batches
    of 200 launches timed on the host before the synchronisation that
    follows each (untimed), so the GPU never backs the launches up; the
    median over ``count`` launches, after a warm-up."""
    for _ in range(50):
        launch()
    synchronize()
    samples = []
    for _ in range(max(1, count // 200)):
        begin = time.perf_counter()
        for _ in range(200):
            launch()
        samples.append((time.perf_counter() - begin) / 200 * 1e6)
        synchronize()
    return sorted(samples)[len(samples) // 2]


def launch_overhead(folder: Path, count: int) -> dict:
    import torch
    kernel = load_example("vector_add", folder)
    n = 1024
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty(n, device="cuda")
    results = {}
    results["phobos (torch arrays)"] = time_launches(lambda: kernel[(1,)](x, y, out), torch.cuda.synchronize, count)
    # A new grid function at every launch, as Triton's tutorials write it.
    results["phobos (torch arrays, grid a new lambda)"] = time_launches(
        lambda: kernel[lambda meta: (-(-meta["N"] // meta["BLOCK"]),)](x, y, out),
        torch.cuda.synchronize, count)
    results["phobos (torch, variant given)"] = time_launches(
        lambda: kernel[(1,)](x, y, out, BLOCK=1024), torch.cuda.synchronize, count)
    assert torch.allclose(out, x + y)
    saxpy = load_example("saxpy_fp32", folder)
    results["phobos saxpy (torch arrays, an f32 scalar, grid inferred)"] = time_launches(
        lambda: saxpy[None](x, y, out, 2.0), torch.cuda.synchronize, count)
    assert torch.allclose(out, 2.0 * x + y)
    try:
        import cupy
        cx, cy, cout = cupy.asarray(x.cpu().numpy()), cupy.asarray(y.cpu().numpy()), cupy.empty(n, cupy.float32)
        results["phobos (CuPy arrays)"] = time_launches(
            lambda: kernel[(1,)](cx, cy, cout), cupy.cuda.get_current_stream().synchronize, count)
    except ImportError:
        pass
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offsets < n
            tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) +
                     tl.load(y_ptr + offsets, mask=mask), mask=mask)

        results["triton"] = time_launches(lambda: add_kernel[(1,)](x, y, out, n, BLOCK=1024),
                                          torch.cuda.synchronize, count)
        results["triton (grid a new lambda)"] = time_launches(
            lambda: add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](
                x, y, out, n, BLOCK=1024), torch.cuda.synchronize, count)
        results["triton_version"] = triton.__version__
    except ImportError:
        pass
    results["torch (x + y, out=)"] = time_launches(lambda: torch.add(x, y, out=out),
                                                   torch.cuda.synchronize, count)
    return results


def check_persistent(backends: list[Backend], folder: Path) -> list[dict]:
    """The HGEMM example with @persistent: 33 x 17 tiles of 128 x 128 walked
    by the resident CTAs, C poisoned with NaN (beta = 0 does not read it)."""
    source = (REPO / "examples" / "gemm_f16_tc.ph").read_text().replace(
        "@pipeline\n", "@pipeline\n@persistent\n", 1)
    kernel = load_example("persistent_hgemm", folder, source)
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (4100, 1016)).astype(np.float16)
    b = rng.uniform(-1, 1, (1016, 2056)).astype(np.float16)
    want = 1.5 * (a.astype(np.float64) @ b.astype(np.float64))
    rows = []
    for backend in backends:
        row = {"example": "gemm_f16_tc @persistent", "backend": backend.name}
        try:
            c = np.full((4100, 2056), np.nan, dtype=np.float16)
            device_args = [backend.to_device(a), backend.to_device(b), backend.to_device(c), 1.5, 0.0]
            kernel[None](*device_args)
            backend.synchronize()
            row["max_rel_err"] = rel_err(backend.to_host(device_args[2]), want)
            loaded = next(iter(kernel._gpu.values()))
            row["resident_ctas"] = loaded.resident
            row["ok"] = row["max_rel_err"] <= 1e-2 and loaded.contract.persistent and \
                loaded.resident > 0
        except Exception as error:  # noqa: BLE001
            row.update(ok=False, error=str(error).splitlines()[0])
        rows.append(row)
        print(f"  {row['example']:26s} {backend.name:6s} {'ok' if row['ok'] else 'FAILED'} "
              f"{row.get('max_rel_err', float('nan')):.2e} resident CTAs "
              f"{row.get('resident_ctas')} {row.get('error', '')}", flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launches", type=int, default=5000, help="launches per timing sample")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--persistent-only", action="store_true",
                        help="only the @persistent HGEMM check")
    parser.add_argument("--overhead-only", action="store_true",
                        help="only the launch overhead")
    options = parser.parse_args()
    if "PHOBOS_HOME" not in os.environ:
        print("python_gpu: set PHOBOS_HOME to the folder with lib/libphobos.so and bin/phobos-run",
              file=sys.stderr)
        return 2
    os.environ.setdefault("PHOBOS_CACHE_DIR", tempfile.mkdtemp(prefix="phobos-cache-"))
    backends = []
    for name in ("torch", "cupy"):
        try:
            backends.append(Backend(name))
        except ImportError:
            print(f"python_gpu: {name} is not installed; skipping it", file=sys.stderr)
    if not backends:
        print("python_gpu: needs torch or CuPy", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="phobos-python-gpu-"))
    rows = []
    if not options.persistent_only and not options.overhead_only:
        print("== examples from Python on the GPU (vs float64 reference, vs phobos-run)")
        rows = check_examples(backends, folder)
    if not options.overhead_only:
        print("== a @persistent kernel from Python (vs float64 reference)")
        rows += check_persistent(backends, folder)
    overhead = {}
    if any(b.name == "torch" for b in backends) and not options.persistent_only:
        print(f"== launch overhead (us per launch, {options.launches} launches of vector_add, N=1024)")
        overhead = launch_overhead(folder, options.launches)
    print("\n| example | backend | max rel err | vs phobos-run | result |")
    print("| --- | --- | --- | --- | --- |")
    for row in rows:
        vs = row.get("vs_phobos_run")
        print(f"| {row['example']} | {row['backend']} | {row.get('max_rel_err', float('nan')):.2e} | "
              f"{'-' if vs is None else f'{vs:.2e}'} | {'ok' if row['ok'] else 'FAILED ' + row.get('error', '')} |")
    if overhead:
        print("\n| launcher | us per launch |")
        print("| --- | --- |")
        for name, value in overhead.items():
            if isinstance(value, float):
                print(f"| {name} | {value:.2f} |")
        if "triton" in overhead:
            ratio = overhead["phobos (torch arrays)"] / overhead["triton"]
            overhead["ratio_phobos_to_triton"] = ratio
            print(f"\nphobos / triton launch overhead: {ratio:.2f}x (triton {overhead.get('triton_version')})")
    if options.json:
        Path(options.json).write_text(json.dumps({"examples": rows, "launch_overhead_us": overhead},
                                                 indent=1))
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
