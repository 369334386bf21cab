"""What the tutorials share: arrays of the caller's kind (NumPy on the CPU,
torch on the GPU), and, on the GPU, timing and a perf_report-style plot.

Nothing here is needed to read a tutorial; it keeps them short.
"""

from __future__ import annotations

import datetime
import json
import math
import os
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

#: Where the GPU runs put their plots and figures: docs/tutorials, or
#: $PHOBOS_TUTORIAL_OUT (the device run writes under its $OUT).
DOCS = Path(os.environ.get("PHOBOS_TUTORIAL_OUT") or
            Path(__file__).resolve().parents[2] / "docs" / "tutorials")


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def next_power_of_2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def is_numpy(array: Any) -> bool:
    return isinstance(array, np.ndarray)


def empty(like: Any, shape: Sequence[int], dtype: str) -> Any:
    """An uninitialised array of `shape` and `dtype` ("f16", "f32") beside
    `like`: NumPy for NumPy, torch on `like`'s device for torch."""
    if is_numpy(like):
        return np.empty(tuple(shape), {"f16": np.float16, "f32": np.float32}[dtype])
    import torch
    return torch.empty(tuple(shape), dtype={"f16": torch.float16, "f32": torch.float32}[dtype],
                       device=like.device)


def zeros(like: Any, shape: Sequence[int], dtype: str) -> Any:
    out = empty(like, shape, dtype)
    out[...] = 0
    return out


# -- the GPU side: timing, plots, records ------------------------------------------------

def bench_ms(fn: Callable[[], Any], warmup: int = 10, rep: int = 50) -> float:
    """Median milliseconds of `fn` on the current CUDA stream, the L2 flushed
    before each run (a 256 MB memset), with CUDA events, as Triton's
    do_bench measures."""
    import torch
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(rep)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(rep)]
    for start, stop in zip(starts, stops):
        flush.zero_()
        start.record()
        fn()
        stop.record()
    torch.cuda.synchronize()
    times = sorted(start.elapsed_time(stop) for start, stop in zip(starts, stops))
    return times[len(times) // 2]


def device_name() -> str:
    import torch
    return torch.cuda.get_device_name()


def report(name: str, title: str, x_name: str, unit: str, rows: list[dict[str, Any]],
           lines: Sequence[str]) -> dict[str, Any]:
    """Writes docs/tutorials/<name>.json and .png: one line per provider
    (`lines`) of `unit` (higher is better) against `x_name`, with the card
    and the date in the title, like Triton's perf_report. Returns the
    record, which holds the ratio of Phobos to Triton at every point."""
    DOCS.mkdir(parents=True, exist_ok=True)
    date = datetime.date.today().isoformat()
    card = device_name()
    for row in rows:
        if row.get("phobos") and row.get("triton"):
            row["ratio_to_triton"] = row["phobos"] / row["triton"]
    record = {"name": name, "title": title, "x": x_name, "unit": unit, "date": date,
              "device": card, "sweep": "quick" if quick() else "full", "lines": list(lines),
              "rows": rows}
    (DOCS / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{name}: matplotlib is missing; {name}.json written, no plot")
        return record
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for line in lines:
        points = [(row[x_name], row[line]) for row in rows if row.get(line)]
        if points:
            axes.plot(*zip(*points), marker="o", label=line)
    axes.set_xlabel(x_name)
    axes.set_ylabel(unit)
    if len(rows) > 2 and rows[-1][x_name] / max(1, rows[0][x_name]) >= 16:
        axes.set_xscale("log", base=2)
    axes.set_title(f"{title}\n{card}, {date}", fontsize=10)
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(DOCS / f"{name}.png", dpi=110)
    plt.close(figure)
    print(f"{name}: wrote {DOCS / (name + '.png')}")
    return record


def geomean(values: Sequence[float]) -> float:
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def quick() -> bool:
    """PHOBOS_TUTORIAL_QUICK=1: fewer benchmark points (device time is scarce)."""
    return os.environ.get("PHOBOS_TUTORIAL_QUICK", "") not in ("", "0")
