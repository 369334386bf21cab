"""kernel.visualize(...) and kernel.visualization_data(...): the page
phobos-viz writes, built in this process through the C API
(phobosSessionVisualize), with the Python file in the code panel and every
op linked to its Python line; bad arguments named, the compiler's refusals
at the Python lines."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from conftest import HEADER, REPO, tool_dir
from phobos import ArgumentError, CompileError

# The saxpy whose span map phobos-viz's lit tests read (python-saxpy.json):
# one copy of the kernel for both.
SAXPY = (REPO / "test" / "Tools" / "phobos-viz" / "Inputs" / "python-saxpy.py").read_text()


def line_of(path, text: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1)
                if text in line)


def test_the_page_is_the_one_phobos_viz_writes(write_module, tmp_path):
    module = write_module(SAXPY, "viz_saxpy")
    page_path = tmp_path / "saxpy.html"
    page = module.saxpy.visualize(page_path, dims={"N": 300}, BLOCK=64)
    assert page_path.read_text(encoding="utf-8") == page
    assert page.startswith("<!DOCTYPE html>")
    # Self-contained: nothing is loaded from elsewhere.
    assert "<script src" not in page and "<link" not in page
    # phobos-viz on the program and span map the package compiles gives the
    # same bytes.
    source, span_map = module.saxpy._source_files()
    tool = subprocess.run([str(tool_dir() / "phobos-viz"), str(source), "--span-map",
                           str(span_map), "--dim", "N=300", "--variant", "BLOCK=64"],
                          capture_output=True, text=True, check=True)
    assert tool.stdout == page
    data = subprocess.run([str(tool_dir() / "phobos-viz"), str(source), "--span-map",
                           str(span_map), "--dim", "N=300", "--variant", "BLOCK=64",
                           "--cta", "4", "--scalar", "alpha=2", "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(data.stdout) == module.saxpy.visualization_data(
        dims={"N": 300}, cta=(4,), scalars={"alpha": 2}, BLOCK=64)
    # A smaller page: the per-thread IR listed by its counts alone.
    small = module.saxpy.visualize(dims={"N": 300}, BLOCK=64, max_ir_lines=150)
    assert len(small) < len(page)
    passes = module.saxpy.visualization_data(dims={"N": 300}, BLOCK=64, max_ir_lines=150)["passes"]
    assert any(p.get("omitted") for p in passes) and "text" in passes[0]


def test_the_data_names_the_python_lines(write_module, tmp_path):
    module = write_module(SAXPY, "viz_saxpy_data")
    path = tmp_path / "viz_saxpy_data.py"
    data = module.saxpy.visualization_data(dims={"N": 300}, cta=(4, 0, 0), BLOCK=128)
    assert data["kernel"] == "saxpy" and data["variant"] == [["BLOCK", 128]]
    assert data["chip"] == "sm_90" and data["dims"] == {"N": 300} and data["grid"] == [3, 1, 1]
    source = data["source"]
    assert source["file"] == str(path) and source["language"] == "python"
    assert source["lines"] == path.read_text().splitlines()
    assert source["hidden"] == [line_of(path, "@ph.cluster")]
    assert data["passes"][0]["pass"] == "input" and len(data["passes"]) > 10
    statement = line_of(path, "out[base:base + BLOCK] =")
    assert data["traffic"] == {"note": "CTA (4, 0, 0) is outside the grid (3, 1, 1)"}
    # CTA (2, 0, 0) of BLOCK=128 over N=300: elements 256..299, the rest of
    # its slices masked; every access at the statement's line.
    data = module.saxpy.visualization_data(dims={"N": 300}, cta=(2,), BLOCK=128)
    accesses = data["traffic"]["accesses"]
    assert sorted(access["kind"] for access in accesses) == ["read", "read", "write"]
    for access in accesses:
        assert access["src"] == statement
        assert access["runs"] == [[256, 44]] and access["masked"] == 84
    # The layouts' values link to the Python lines too.
    assert {value["src"] for value in data["layouts"]["values"]} <= {
        statement, line_of(path, "base: ph.let")}
    # No grid without the dims: the page says what it needs.
    general = module.saxpy.visualization_data()
    assert general["grid"] is None and "'N'" in general["grid_note"]
    assert general["traffic"]["note"] == "the grid needs every launch dim"


OVERLAP = HEADER + '''@ph.kernel
def overlap(X: ph.tensor[ph.f32][N], Y: ph.tensor[ph.f32][N]):
    b: ph.let = ph.program_id(0)
    Y[b * 48:+64] = X[b * 48:+64] * 2.0
'''


def test_the_grid_view_marks_the_races_at_the_python_lines(write_module, tmp_path):
    kernel = write_module(OVERLAP, "viz_overlap").overlap
    line = line_of(tmp_path / "viz_overlap.py", "Y[b * 48:+64] =")
    writes = kernel.visualization_data(dims={"N": 256}, grid=(4,))["writes"]
    assert writes["grid"] == [4, 1, 1]
    [tensor] = writes["tensors"]
    assert tensor["name"] == "Y" and tensor["written"] == 208 and tensor["ctas"] == 4
    assert tensor["runs"] == [[0, 64, 0], [64, 48, 1], [112, 48, 2], [160, 48, 3]]
    assert tensor["raced"] == tensor["several"] == [[48, 16], [96, 16], [144, 16]]
    assert writes["races"] == [{
        "tensor": 0, "element": [48], "count": 48,
        "first": {"access": "write", "cta": [0, 0, 0], "src": line},
        "second": {"access": "write", "cta": [1, 0, 0], "src": line}}]
    # The limits, as phobos-viz's options.
    limited = kernel.visualization_data(dims={"N": 256}, grid=4, max_write_runs=2,
                                        max_grid_steps=10 ** 6)["writes"]
    assert "more than 2 runs" in limited["tensors"][0]["omitted"]
    assert "runs" not in limited["tensors"][0]
    slow = kernel.visualization_data(dims={"N": 256}, grid=(4, 1), max_grid_steps=2)["writes"]
    assert slow == {"note": "the whole grid takes more than 2 interpreter steps (about 100 ns "
                            "each; the budget is phobos-viz --max-grid-steps, max_grid_steps "
                            "in Python)"}


SCALE = HEADER + '''@ph.kernel
@ph.autotune(BLOCK=[64, 128])
def scale(x: ph.tensor[ph.f32][N], out: ph.tensor[ph.f32][N]):
    base: ph.let = ph.program_id(0) * BLOCK
    out[base:base + BLOCK] = 2.0 * x[base:base + BLOCK]
'''


def test_the_autotuning_panel_shows_what_tune_remembered(write_module, tmp_path):
    kernel = write_module(SCALE).scale
    assert "no search of this source and kernel for N=1000" in \
        kernel.visualization_data(dims={"N": 1000})["tuning"]["note"]
    x, out = np.ones(1000, np.float32), np.zeros(1000, np.float32)
    tuned = kernel.tune(None, x, out, quiet=True, warmup=0, rep=1)
    tuning = kernel.visualization_data(dims={"N": 1000})["tuning"]
    assert tuning["from"] == "cache" and tuning["record"]["chip"] == "interpreter"
    report = tuning["report"]
    assert report["kernel"] == "scale" and report["dims"] == {"N": 1000}
    assert report["best_variant"] == tuned.best
    assert sorted(v["variant"]["BLOCK"] for v in report["variants"]) == [64, 128]
    # A report file instead, as phobos-tune --json writes it.
    path = tmp_path / "report.json"
    path.write_text(json.dumps(tuned.report))
    tuning = kernel.visualization_data(dims={"N": 999}, tuning_report=path)["tuning"]
    assert tuning["from"] == "report" and tuning["report"]["best_variant"] == tuned.best
    path.write_text(json.dumps(dict(tuned.report, kernel="saxpy")))
    with pytest.raises(CompileError) as caught:
        kernel.visualize(tuning_report=path)
    assert f"{path}:1:1: error: the tuning report is of kernel 'saxpy', not 'scale'" in \
        str(caught.value)
    with pytest.raises(ArgumentError) as caught:
        kernel.visualize(tuning_report=tmp_path / "missing.json")
    assert caught.value.param == "tuning_report" and "cannot read" in caught.value.reason


def test_the_cluster_panel_draws_a_plan_of_this_kernel(write_module, tmp_path):
    kernel = write_module(SAXPY, "viz_cluster").saxpy
    cluster = kernel.visualization_data()["cluster"]
    assert cluster["note"] == "no cluster job or plan given (phobos-viz --cluster-job JOB plans one)"
    # The @ph.cluster kernel's cluster program: the split refuses this one,
    # and says why at the page.
    assert cluster["program_ir"]["note"].startswith("phobos-cluster-split refused the kernel: ")
    # A plan of two nodes: node 1 fetches what node 0 loaded.
    plan = {"program": "saxpy", "nodes": 2, "node_programs": [
        {"node": 0, "peak_bytes": 1024, "instructions": [
            {"id": 0, "node": 0, "kind": "allocate", "bytes": 1024, "deps": [],
             "tile": {"id": 5, "tensor": "x", "coords": [0]}},
            {"id": 1, "node": 0, "kind": "load", "bytes": 1024, "deps": [0],
             "tile": {"id": 5, "tensor": "x", "coords": [0]}}]},
        {"node": 1, "peak_bytes": 1024, "instructions": [
            {"id": 2, "node": 1, "kind": "allocate", "bytes": 1024, "deps": [],
             "tile": {"id": 5, "tensor": "x", "coords": [0]}},
            {"id": 3, "node": 1, "kind": "fetch", "bytes": 1024, "deps": [2], "from": 0,
             "tile": {"id": 5, "tensor": "x", "coords": [0]}}]}]}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    cluster = kernel.visualization_data(cluster_plan=path)["cluster"]
    assert [(i["id"], i["level"], i.get("source")) for i in cluster["instructions"]] == [
        (0, 0, None), (1, 1, None), (2, 0, None), (3, 2, 1)]
    assert cluster["links"] == [{"from": 0, "to": 1, "bytes": 1024}]
    assert cluster["instructions"][3]["label"] == "fetch x[0]"
    path.write_text(json.dumps(dict(plan, program="matmul")))
    with pytest.raises(CompileError) as caught:
        kernel.visualize(cluster_plan=path)
    assert f"{path}:1:1: error: the cluster plan is of program 'matmul', not kernel 'saxpy'" in \
        str(caught.value)
    with pytest.raises(ArgumentError) as caught:
        kernel.visualize(cluster_summary=tmp_path / "none.json")
    assert caught.value.param == "cluster_summary"


def test_bad_arguments_are_named(write_module):
    kernel = write_module(SAXPY).saxpy
    cases = [
        (dict(dims={"N": 0}), "dims", "N=0: extents are between 1 and 2147483647"),
        (dict(dims={"N": 2.5}), "dims", "expected a dict of dim names to integers"),
        (dict(cta=(-1,)), "cta", "expected 1 to 3 block indices"),
        (dict(cta=(0, 0, 0, 0)), "cta", "expected 1 to 3 block indices"),
        (dict(scalars={"alpha": "two"}), "scalars", "alpha: expected a number, got 'two'"),
        (dict(chip="sm_70"), "chip", "unsupported chip 'sm_70'"),
        (dict(max_grid_elements=0), "max_grid_elements", "expected a positive integer"),
        (dict(max_grid_steps=-1), "max_grid_steps", "expected a positive integer"),
        (dict(max_write_runs=True), "max_write_runs", "expected a positive integer"),
        (dict(max_ir_lines=0), "max_ir_lines", "expected a positive integer"),
        (dict(grid=(0,)), "grid", "expected 1 to 3 extents between 1 and 2147483647"),
        (dict(grid=(1, 2, 3, 4)), "grid", "expected 1 to 3 extents"),
        (dict(TILE=64), "TILE", "is not an @autotune dimension of 'saxpy'"),
    ]
    for keywords, param, reason in cases:
        with pytest.raises(ArgumentError) as caught:
            kernel.visualize(**keywords)
        assert caught.value.param == param, keywords
        assert reason in caught.value.reason, (keywords, caught.value.reason)


def test_the_compilers_refusals_are_at_the_python_lines(write_module, tmp_path):
    kernel = write_module(SAXPY, "viz_refusals").saxpy
    path = tmp_path / "viz_refusals.py"
    definition = line_of(path, "def saxpy(")
    with pytest.raises(CompileError) as caught:
        kernel.visualize(dims={"N": 300, "K": 3})
    assert (f"viz_refusals.py:{definition}:5: error: dim K: kernel 'saxpy' has no dim of that "
            "name (its dims: N)") in str(caught.value)
    with pytest.raises(CompileError) as caught:
        kernel.visualize(dims={"N": 300}, scalars={"beta": 0})
    assert (f"viz_refusals.py:{definition}:5: error: scalar beta: kernel 'saxpy' has no scalar "
            "parameter of that name (its scalars: alpha)") in str(caught.value)
    with pytest.raises(CompileError) as caught:
        kernel.visualize(BLOCK=96)
    assert f"viz_refusals.py:{line_of(path, '@ph.autotune')}:" in str(caught.value)
    # The session is still usable after a refusal, and compiles still work.
    assert kernel.visualization_data(dims={"N": 64})["grid"] == [1, 1, 1]
    assert kernel.compile("contract").contract is not None
