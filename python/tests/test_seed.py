"""Seed 002's saxpy, exactly as the seed writes it."""

from __future__ import annotations

import numpy as np

SEED_PROGRAM = '''from __future__ import annotations

import phobos.lang as ph


@ph.kernel
@ph.autotune(BLOCK=[16, 8192])
def saxpy(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N], out: ph.tensor[ph.f32][N], alpha: ph.f32):
    base: ph.let = ph.ctx.block.x * BLOCK
    out[base:+BLOCK] = alpha * x[base:+BLOCK] + y[base:+BLOCK]
'''

SEED_SOURCE = '''@autotune(BLOCK in [16, 8192])
kernel saxpy(x: tensor<f32>[N], y: tensor<f32>[N], out: tensor<f32>[N], alpha: f32) {
    let base = ctx.block.x * BLOCK
    out[base :+ BLOCK] = alpha * x[base :+ BLOCK] + y[base :+ BLOCK]
}'''


def test_saxpy_source_is_the_seeds(write_module, capsys):
    module = write_module(SEED_PROGRAM, "seed_saxpy")
    print(module.saxpy.source)
    assert capsys.readouterr().out == SEED_SOURCE + "\n"


def test_saxpy_launches_as_the_seed_writes_it(write_module):
    module = write_module(SEED_PROGRAM, "seed_saxpy_launch")
    rng = np.random.default_rng(0)
    n = 1000
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    module.saxpy[lambda meta: (-(-meta["N"] // meta["BLOCK"]),)](x, y, out, 2.0)
    expected = 2.0 * x.astype(np.float64) + y
    assert np.max(np.abs(out - expected)) < 1e-6


def test_the_package_has_the_projects_version():
    import re
    from pathlib import Path

    import phobos
    root = Path(__file__).resolve().parents[2]
    project = re.search(r"project\(phobos VERSION ([0-9.]+)", (root / "CMakeLists.txt").read_text())
    packaged = re.search(r'^version = "([0-9.]+)"', (root / "python" / "pyproject.toml").read_text(),
                         re.MULTILINE)
    assert project and packaged
    assert phobos.__version__ == project.group(1) == packaged.group(1)
