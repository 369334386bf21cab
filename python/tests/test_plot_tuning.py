"""python -m phobos.plot_tuning: phobos-tune's JSON report drawn by matplotlib.

The report comes from a real search (the interpreter standing in for the
GPU, as test/Tools/phobos-tune/search.test runs it), so the chart reads what
the tuner writes, not a hand-made copy of it.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import REPO, tool_dir
from phobos import plot_tuning

SHIFTED = REPO / "test" / "Tools" / "phobos-tune" / "Inputs" / "shifted.ph"


@pytest.fixture(scope="module")
def report_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tune-report")
    path = folder / "report.json"
    subprocess.run([str(tool_dir() / "phobos-tune"), str(SHIFTED), "--backend", "interpreter",
                    "--dim", "N=512", "--seed", "1", "--quiet",
                    "--cache-dir", str(folder / "cache"), "--json", str(path)],
                   check=True, capture_output=True, text=True)
    return path


def test_labels_follow_the_space_order(report_path):
    report = json.loads(report_path.read_text())
    labels = {plot_tuning.variant_label(report, v["variant"]) for v in report["variants"]}
    # shifted.ph's space is @autotune(B ..., BAD ..., A ...): the table's order.
    assert "B=16,BAD=1,A=3" in labels
    assert plot_tuning.variant_label({}, {}) == "-"


def test_draws_the_report(report_path, tmp_path):
    pytest.importorskip("matplotlib", reason="python3-matplotlib is not installed")
    out = tmp_path / "report.png"
    assert plot_tuning.main([str(report_path), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_refuses_what_is_not_a_report(tmp_path, capsys):
    path = tmp_path / "other.json"
    path.write_text('{"rows": []}')
    assert plot_tuning.main([str(path)]) == 1
    assert "is not a phobos-tune report" in capsys.readouterr().err
