#!/usr/bin/env python3
"""Where the host time of a launch from Python goes: tutorial 06's forward
at small shapes, where a call may cost more than its kernel.

For each head size, causal flag and shape: the median of `bench_ms` (the
L2 flushed before each launch, as the SDPA grid times it), the wall time a
call takes in a loop of 50 (host and GPU), the kernel's own time from
torch's profiler, and how many of the 50 calls took the full launch path
(`Kernel._launch_gpu`: checks, binding, tensor maps) instead of a plan.
Then cProfile of 50 calls at D 64 and D 128 (non-causal), by own time.

    PHOBOS_HOME=DIST python3 bench/experiments/launch_probe.py [--shapes 16x512,128x1024]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "tutorials"))


def main() -> int:
    pairs = lambda text: [tuple(int(x) for x in item.split("x")) for item in text.split(",")]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", type=pairs, default=pairs("16x512,128x1024"))
    args = parser.parse_args()
    import torch
    from torch.profiler import ProfilerActivity, profile

    import phobos._kernel as kernel_module
    import t06_fused_attention as t06
    from _common import bench_ms

    full = [0]
    launch_gpu = kernel_module.Kernel._launch_gpu

    def counted(self, *rest, **keywords):
        full[0] += 1
        return launch_gpu(self, *rest, **keywords)

    kernel_module.Kernel._launch_gpu = counted
    print("| D | causal | B*H | N | bench_ms | a call (loop) | kernel (profiler) | full paths of 50 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for d in (64, 128):
        for causal in (False, True):
            for bh, n in args.shapes:
                q, k, v = (torch.randn(1, bh, n, d, device="cuda", dtype=torch.float16)
                           for _ in range(3))
                call = lambda: t06.attention(q, k, v, causal)
                call()
                torch.cuda.synchronize()
                flushed = bench_ms(call, warmup=3, rep=30)
                full[0] = 0
                torch.cuda.synchronize()
                start = time.perf_counter()
                for _ in range(50):
                    call()
                torch.cuda.synchronize()
                loop = (time.perf_counter() - start) / 50 * 1e3
                paths = full[0]
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(10):
                        call()
                    torch.cuda.synchronize()
                kernels = sorted(e.device_time for e in prof.events()
                                 if e.device_type == torch.autograd.DeviceType.CUDA
                                 and "attn" in e.name)
                kernel = kernels[len(kernels) // 2] / 1e3 if kernels else float("nan")
                print(f"| {d} | {int(causal)} | {bh} | {n} | {flushed:.4f} | {loop:.4f} | "
                      f"{kernel:.4f} | {paths} |", flush=True)
    for d in (64, 128):
        bh, n = args.shapes[0]
        q, k, v = (torch.randn(1, bh, n, d, device="cuda", dtype=torch.float16)
                   for _ in range(3))
        t06.attention(q, k, v, False)
        torch.cuda.synchronize()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(50):
            t06.attention(q, k, v, False)
        torch.cuda.synchronize()
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
        print(f"\n== D {d}, B*H {bh}, N {n}: cProfile of 50 calls, by own time")
        print("\n".join(out.getvalue().splitlines()[:30]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
