"""The race check is clean on every tutorial: each CPU test of
test_tutorials.py runs again with every launch race-checked
(``kernel[grid](..., race_check=True)``), and still gets its answer. A race
would raise phobos.RaceError naming both accesses."""

from __future__ import annotations

import pytest

import test_tutorials as tutorials
from phobos._kernel import Kernel


@pytest.fixture
def race_checked(monkeypatch):
    """Every launch of a kernel race-checked; the names of the kernels
    launched."""
    launched: list[str] = []
    original = Kernel.launch

    def launch(self, grid, args, stream=None, race_check=False, **variant):
        launched.append(self.name)
        return original(self, grid, args, stream, race_check=True, **variant)

    monkeypatch.setattr(Kernel, "launch", launch)
    return launched


@pytest.mark.parametrize("case", [
    pytest.param(tutorials.test_01_vector_add_ragged, id="t01"),
    pytest.param(lambda: tutorials.test_02_fused_softmax((37, 200)), id="t02"),
    pytest.param(tutorials.test_03_matmul_grouped_ordering_covers_every_tile, id="t03"),
    pytest.param(tutorials.test_05_layer_norm_forward_and_backward, id="t05"),
    pytest.param(lambda: tutorials.test_06_fused_attention_forward_and_backward(False, 64),
                 id="t06"),
    pytest.param(lambda: tutorials.test_06_fused_attention_forward_and_backward(True, 64),
                 id="t06-causal"),
    pytest.param(lambda: tutorials.test_06_fused_attention_forward_and_backward(True, 128),
                 id="t06-causal-d128"),
])
def test_tutorial_is_race_free(case, race_checked):
    case()
    assert race_checked, "no launch was race-checked"


def test_the_fixture_does_check(race_checked, write_module):
    """A racy kernel launched as the tutorials launch theirs raises: the
    fixture really routes kernel[grid](...) through the race check."""
    import numpy as np

    from conftest import HEADER
    from phobos import RaceError

    module = write_module(HEADER + '''@ph.kernel
def shifted(X: ph.tensor[ph.f32][N]):
    b: ph.let = ph.program_id(0)
    X[b * 64:+64] = X[(b + 1) * 64:+64] + 1.0
''', "racy_tutorial_style")
    with pytest.raises(RaceError):
        module.shifted[(3,)](np.zeros(256, np.float32))
    assert race_checked == ["shifted"]
