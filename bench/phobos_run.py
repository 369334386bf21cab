"""phobos-run with --check --json, the interleaved runs and options of an
A/B comparison, and copies of an example with one more decorator, shared by
the GPU A/B scripts and bench/experiments/."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def save_to_out(name: str, rows) -> None:
    """Writes `rows` as JSON to $OUT/`name` when $OUT is set (the device
    tool's folder of files that come back)."""
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], name), "w") as handle:
            json.dump(rows, handle, indent=2)


def run_json(bindir: str, path: str, dims: dict, variant: dict, scalars: dict,
             repeat: int = 0, extra: tuple = (), env: dict | None = None) -> dict:
    """`phobos-run PATH --check --json` with these values (and `--bench`
    with `repeat` timed launches after 3 warm-up ones when `repeat` is
    positive), in the environment `env` (default: this process's); its
    PHOBOS_RESULT object, or a failed check with the tail of what it
    printed."""
    argv = [os.path.join(bindir, "phobos-run"), path, "--check", "--samples=256", "--json",
            *extra, "--variant=" + ",".join(f"{k}={v}" for k, v in variant.items())]
    if repeat > 0:
        argv += ["--bench", f"--repeat={repeat}", "--warmup=3"]
    argv += [f"--dim={k}={v}" for k, v in dims.items()]
    argv += [f"--scalar={k}={v}" for k, v in scalars.items()]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("PHOBOS_RESULT "):
            return json.loads(line[len("PHOBOS_RESULT "):])
    return {"check": "error", "time_ms": float("nan"),
            "error": (proc.stderr or proc.stdout)[-400:]}


def ab_parser(rounds: int, only: bool = False) -> argparse.ArgumentParser:
    """The options of an interleaved A/B script: the tools' folder, the
    rounds of its arms, the timed launches of a run and (with `only`) the
    kinds of workload to keep."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bindir")
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--repeat", type=int, default=30)
    if only:
        parser.add_argument("--only", default="")
    return parser


def interleaved_runs(rounds: int, arms, run_arm, label) -> tuple[dict, list]:
    """Runs `run_arm(arm)` (a `run_json` result) for each of `arms` in turn,
    `rounds` times over, so that a drift of the card's clocks falls on every
    arm alike: the times of each arm's runs, and every run's check. Prints
    each run whose check failed after `label(arm)`."""
    times = {arm: [] for arm in arms}
    checks = []
    for _ in range(rounds):
        for arm in arms:
            result = run_arm(arm)
            times[arm].append(result.get("time_ms", float("nan")))
            checks.append(result.get("check"))
            if result.get("check") != "ok":
                print(f"  {label(arm)}: {result}", flush=True)
    return times, checks


def checks_summary(checks: list) -> str:
    """"ok" when every check passed, else all of them, in order."""
    return "ok" if all(c == "ok" for c in checks) else ",".join(map(str, checks))


def sanitize_run(bindir: str, tool: str, path: str, dims: dict, variant: dict, scalars: dict,
                 label: str, env: dict | None = None, extra: tuple = (),
                 check: bool = True) -> bool:
    """`phobos-run PATH --check` under compute-sanitizer's `tool` (memcheck,
    racecheck, synccheck), failing on any report; prints one line with
    `label` and the check's and the sanitizer's summaries. True when clean.
    `check` false: a kernel with no reference runs without --check (its
    values checked elsewhere)."""
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    cmd = [sanitizer, "--tool", tool, "--error-exitcode", "99", "--print-limit", "10",
           os.path.join(bindir, "phobos-run"), path] + (["--check"] if check else [])
    if variant:
        cmd.append("--variant=" + ",".join(f"{k}={v}" for k, v in variant.items()))
    cmd += [f"--dim={k}={v}" for k, v in dims.items()]
    cmd += [f"--scalar={k}={v}" for k, v in scalars.items()]
    cmd += list(extra)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    summary = [line for line in (proc.stdout + proc.stderr).splitlines()
               if "ERROR SUMMARY" in line or "check" in line]
    ok = proc.returncode == 0
    print(f"sanitize {tool:9} {label}: {'ok' if ok else 'FAILED rc=' + str(proc.returncode)} "
          f"{summary[-2:]}", flush=True)
    return ok


def specialised_copy(example: str, directory: str, specialised: bool = True,
                     decorator: str = "@warp_specialize") -> str:
    """The example with `decorator` (@warp_specialize, @persistent) before
    its @pipeline, or (with `specialised` false) without it."""
    lines = open(os.path.join(ROOT, "examples", example)).read().splitlines()
    out = []
    for line in lines:
        if line.startswith(decorator):
            continue
        if line.startswith("@pipeline") and specialised:
            out.append(decorator)
        out.append(line)
    prefix = decorator.lstrip("@") + "_" if specialised else "plain_"
    path = os.path.join(directory, prefix + example)
    with open(path, "w") as handle:
        handle.write("\n".join(out) + "\n")
    return path
