"""saxpy written in Python (test/Tools/phobos-viz/python-source.test)."""
from __future__ import annotations

import phobos.lang as ph


@ph.kernel
@ph.autotune(BLOCK=[64, 128])
@ph.cluster(BLOCK=[128])
def saxpy(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N],
          out: ph.tensor[ph.f32][N], alpha: ph.f32):
    base: ph.let = ph.program_id(0) * BLOCK
    out[base:base + BLOCK] = alpha * x[base:base + BLOCK] + y[base:base + BLOCK]
