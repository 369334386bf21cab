"""The kernel cache, which the package reaches through libphobos: entries
shared with phobos-compile, 8 processes compiling one kernel at once, and
damaged entries found and rebuilt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import HEADER
from phobos import _tools

KERNEL = HEADER + '''@ph.kernel
@ph.autotune(BLOCK=[64, 256])
def twice(x: ph.tensor[ph.f32][N], y: ph.tensor[ph.f32][N]):
    base: ph.let = ph.ctx.block.x * BLOCK
    y[base:+BLOCK] = 2.0 * x[base:+BLOCK]
'''


def test_python_and_phobos_compile_share_entries(write_module, tmp_path, monkeypatch):
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    kernel = write_module(KERNEL).twice
    compiled = kernel.compile(chip="sm_80", BLOCK=128)
    assert compiled.directory.parent.parent == tmp_path / "cache" / "v1"
    assert (compiled.directory / "manifest.json").is_file()
    assert compiled.ptx and b".entry twice" in compiled.ptx
    assert compiled.contract.variant == [("BLOCK", 128)]
    assert compiled.contract.chip == "sm_80"
    # phobos-compile on the same source and span map finds the entry instead of
    # compiling (the PTX's line info names the Python lines the map gives).
    source, span_map = kernel._source_files()
    result = subprocess.run([_tools.find_tool("phobos-compile"), str(source), "--cache",
                             "--span-map", str(span_map), "--chip", "sm_80",
                             "--variant", "BLOCK=128"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == str(compiled.directory)
    # Without the map, its line info names the generated text: another entry.
    result = subprocess.run([_tools.find_tool("phobos-compile"), str(source), "--cache",
                             "--chip", "sm_80", "--variant", "BLOCK=128"], capture_output=True,
                            text=True)
    assert result.returncode == 0 and result.stdout.strip() != str(compiled.directory)


def test_specialised_kernels_have_the_same_keys_as_phobos_compile(write_module, tmp_path,
                                                                 monkeypatch):
    # A GPU launch with N = 4096 adds @aligned(N = 16), as phobos-run's do;
    # the digest has an `aligned` line that phobos-compile --specialize-dims
    # computes the same, and N = 4097 adds nothing (the general kernel).
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    kernel = write_module(KERNEL).twice
    variant = (("BLOCK", 128),)
    aligned = kernel._specialization(variant, {"N": 4096})
    assert aligned == (("N", 16),)
    assert kernel._specialization(variant, {"N": 4097}) == ()
    assert kernel._specialization(variant, {"N": 4100}) == (("N", 4),)
    compiled = kernel._compile(variant, "sm_80", aligned, {"N": 4096})
    assert compiled.contract.aligned == {"N": 16}
    general = kernel.compile(chip="sm_80", BLOCK=128)
    assert general.directory != compiled.directory and general.contract.aligned == {}
    source, span_map = kernel._source_files()
    result = subprocess.run([_tools.find_tool("phobos-compile"), str(source), "--cache",
                             "--span-map", str(span_map), "--chip", "sm_80",
                             "--variant", "BLOCK=128", "--specialize-dims", "N=4096"],
                            capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == str(compiled.directory)
    # Switched off, a kernel adds nothing.
    kernel.specialize = False
    assert kernel._specialization(variant, {"N": 4096}) == ()


def test_python_reads_the_tuning_record_phobos_tune_writes(write_module, tmp_path, monkeypatch):
    # The tuning cache's key is the library's (TuningKey, whose digests
    # unittests/Tune/TunerTest.cpp checks): a kernel finds the record
    # phobos-tune stored for its chip and extents, and no other.
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    source, _ = write_module(KERNEL).twice._source_files()
    result = subprocess.run(
        [_tools.find_tool("phobos-tune"), str(source), "--backend", "interpreter",
         "--dim", "N=512", "--cache-dir", str(tmp_path / "cache"), "--quiet",
         "--variants", "BLOCK=128"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    kernel = write_module(KERNEL).twice
    assert kernel._tuned_variant("interpreter", {"N": 512}) == {"BLOCK": 128}
    assert kernel._tuned_variant("interpreter", {"N": 1024}) is None
    assert kernel._tuned_variant("sm_90a", {"N": 512}) is None
    assert len(list((tmp_path / "cache" / "v1" / "tuning").glob("??/*.json"))) == 1


def test_eight_processes_compile_one_kernel(write_module, tmp_path):
    module = write_module(KERNEL, "cache_race")
    cache = tmp_path / "race-cache"
    script = (f"import sys; sys.path.insert(0, {str(Path(module.__file__).parent)!r})\n"
              "import cache_race\n"
              "c = cache_race.twice.compile(chip='sm_90', BLOCK=256)\n"
              "print(c.directory)\n")
    env = dict(os.environ, PHOBOS_CACHE_DIR=str(cache))
    processes = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(8)]
    outputs = [p.communicate(timeout=300) for p in processes]
    for process, (out, err) in zip(processes, outputs):
        assert process.returncode == 0, err
    directories = {out.strip() for out, _ in outputs}
    assert len(directories) == 1
    entries = [p for p in (cache / "v1").glob("??/*") if p.is_dir()]
    assert len(entries) == 1
    assert not list((cache / "v1" / "tmp").iterdir())  # no staging left behind
    assert (entries[0] / "manifest.json").is_file() and (entries[0] / "kernel.ptx").is_file()


@pytest.mark.parametrize("damage", ["truncate-ptx", "flip-cubin", "drop-manifest", "bad-json"])
def test_a_damaged_entry_is_rebuilt(write_module, tmp_path, monkeypatch, damage, capfd):
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    # One file throughout: the entry's line info names it.
    kernel = write_module(KERNEL, "damaged").twice
    first = kernel.compile(chip="sm_90")
    directory = first.directory
    if damage == "truncate-ptx":
        (directory / "kernel.ptx").write_bytes(first.ptx[:100])
    elif damage == "flip-cubin":
        path = directory / ("kernel.cubin" if first.cubin else "kernel.ptx")
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "drop-manifest":
        (directory / "manifest.json").unlink()
    else:
        (directory / "contract.json").write_text("{not json")
    # A fresh kernel object (a new process) finds the damage, never loads it.
    again = write_module(KERNEL, "damaged").twice
    rebuilt = again.compile(chip="sm_90")
    assert "is damaged" in capfd.readouterr().err
    assert rebuilt.directory == directory
    assert rebuilt.ptx == first.ptx
    # Intact again: a third kernel object reads it without a note.
    third = write_module(KERNEL, "damaged").twice.compile(chip="sm_90")
    assert third.ptx == first.ptx and "is damaged" not in capfd.readouterr().err


def test_the_cpp_cache_reports_damage_too(write_module, tmp_path, monkeypatch):
    monkeypatch.setenv("PHOBOS_CACHE_DIR", str(tmp_path / "cache"))
    kernel = write_module(KERNEL).twice
    first = kernel.compile(chip="sm_90")
    (first.directory / "kernel.ptx").write_bytes(b"garbage")
    source, span_map = kernel._source_files()
    result = subprocess.run([_tools.find_tool("phobos-compile"), str(source), "--cache",
                             "--span-map", str(span_map), "--chip", "sm_90"],
                            capture_output=True, text=True)
    assert result.returncode == 0
    assert "is damaged ('kernel.ptx' does not match its digest)" in result.stderr
    assert (first.directory / "kernel.ptx").read_bytes() == first.ptx
