"""The race check from Python: kernel.race_check(grid, *args) and
kernel[grid](..., race_check=True) run the launch on the CPU interpreter and
raise RaceError naming both accesses at this file's lines (through the
span map), the tensor, an element and the two CTAs; a clean run writes the
outputs and returns."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import HEADER
from phobos import ArgumentError, RaceError

KERNELS = HEADER + '''@ph.kernel
def shifted(X: ph.tensor[ph.f32][N]):
    b: ph.let = ph.program_id(0)
    X[b * 64:+64] = X[(b + 1) * 64:+64] + 1.0


@ph.kernel
def own_block(X: ph.tensor[ph.f32][N], W: ph.tensor[ph.f32][N]):
    b: ph.let = ph.program_id(0)
    X[b * 64:+64] = X[b * 64:+64] * W[0:+64]
'''


def line_of(path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1)
                if text in line)


def test_a_race_is_reported_at_the_python_lines(write_module, tmp_path):
    module = write_module(KERNELS, "racy_kernels")
    x = np.zeros(256, np.float32)
    with pytest.raises(RaceError) as caught:
        module.shifted.race_check((3,), x)
    line = line_of(tmp_path / "racy_kernels.py", "X[b * 64:+64] = X[(b + 1) * 64:+64]")
    message = str(caught.value)
    assert caught.value.races == 1
    assert f"racy_kernels.py:{line}:" in message
    assert "race on X[" in message and "has a write here that nothing orders with CTA" in message
    assert "'s read" in message and "note:" in message
    assert "race check: 1 unordered pair of accesses" in message
    # The launch keyword is the same check.
    with pytest.raises(RaceError):
        module.shifted[(3,)](x, race_check=True)


def test_a_clean_run_writes_the_outputs(write_module):
    module = write_module(KERNELS)
    x = np.arange(256, dtype=np.float32)
    w = np.full(256, 2.0, np.float32)
    module.own_block.race_check((4,), x, w)
    np.testing.assert_array_equal(x, 2.0 * np.arange(256, dtype=np.float32))
    module.own_block[(4,)](x, w, race_check=True)
    np.testing.assert_array_equal(x, 4.0 * np.arange(256, dtype=np.float32))


def test_gpu_arrays_are_refused(write_module):
    class DeviceArray:
        __cuda_array_interface__ = {"shape": (256,), "typestr": "<f4", "data": (0x1000, False),
                                    "strides": None, "version": 3}

    module = write_module(KERNELS)
    with pytest.raises(ArgumentError, match="race_check.*runs on the CPU interpreter"):
        module.own_block.race_check((4,), DeviceArray(), DeviceArray())
