"""phobos-run with --check --json, shared by the GPU A/B scripts."""
from __future__ import annotations

import json
import os
import subprocess


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
