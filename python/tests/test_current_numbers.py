"""bench/current_numbers.py: the rows it makes of a GPU run's JSON (the
attention grid's, the tutorials' records), without a GPU."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def numbers():
    spec = importlib.util.spec_from_file_location("current_numbers",
                                                  ROOT / "bench" / "current_numbers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def attention_record(backward: bool) -> dict:
    row = {"D": 128, "causal": True, "BH": 16, "N": 512, "fwd_err": 4.9e-4,
           "sdpa_ms": 0.016, "phobos_ms": 0.052, "best_variant": "BR=64,BC=64",
           "best_ms": 0.040, "ratio": 0.016 / 0.052, "best_ratio": 0.4, "phobos_tflops": 21.0}
    if backward:
        row.update(bwd_err=2e-3, sdpa_bwd_ms=0.05, phobos_bwd_ms=0.08, bwd_ratio=0.625)
    return {"date": "2026-12-06", "card": "NVIDIA H100 80GB HBM3", "rows": [row],
            "command": "PHOBOS_HOME=DIST python3 bench/attention_sdpa_gpu.py"}


def test_attention_rows_carry_the_best_variant_and_the_backward(numbers):
    forward, backward = numbers.from_attention(attention_record(backward=True))
    assert forward["case"] == "D128 causal B*H=16 N=512"
    assert forward["variant"] == "BR=64,BC=64"
    assert forward["phobos"] == 0.04 and forward["peer_value"] == 0.016
    assert forward["ratio"] == 0.4
    assert "default variant 0.31x" in forward["note"]
    assert backward["group"].startswith("attention f16 backward")
    assert backward["ratio"] == 0.625 and backward["phobos"] == 0.08
    # Both render in a table with their card, date and command.
    lines = numbers.workload_table([forward, backward])
    assert len(lines) == 4 and all("NVIDIA H100 80GB HBM3" in line for line in lines[2:])


def test_attention_without_backward_makes_forward_rows_only(numbers):
    rows = numbers.from_attention(attention_record(backward=False))
    assert [row["name"] for row in rows] == ["forward"]


def tutorial_record(sweep: str | None) -> dict:
    record = {"name": "t01-vector-add", "title": "vector add, f32", "x": "size",
              "unit": "GB/s", "date": "2026-12-06", "device": "card",
              "rows": [{"size": 1, "ratio_to_triton": 0.5}, {"size": 2, "ratio_to_triton": 2.0}]}
    if sweep:
        record["sweep"] = sweep
    return record


@pytest.mark.parametrize("sweep, quick", [("full", False), ("quick", True), (None, True)])
def test_the_reproduce_command_names_the_sweep(numbers, sweep, quick):
    (row,) = numbers.from_tutorials([tutorial_record(sweep)])
    assert ("PHOBOS_TUTORIAL_QUICK=1" in row["command"]) == quick
    assert row["command"].endswith("python/tutorials/t01_vector_add.py")
    assert math.isclose(row["geomean"], 1.0) and row["min"] == 0.5 and row["max"] == 2.0
