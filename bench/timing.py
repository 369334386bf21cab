"""CUDA-event timing shared by the GPU benchmark scripts."""
from __future__ import annotations

import torch


def median_ms(fn, warm: int = 5, reps: int = 30) -> float:
    """Median of CUDA-event timings of `fn` after `warm` untimed calls."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]
