"""The tuning cache's records, as phobos-tune writes them
(lib/Runtime/TuningCache.cpp). The kernel cache itself (keys, entries,
damage) is libphobos's: the package reaches it through phobos._library.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def cache_root() -> Path:
    """The kernel cache's root, as the library forms it ($PHOBOS_CACHE_DIR,
    else $XDG_CACHE_HOME/phobos, else ~/.cache/phobos)."""
    from phobos._library import default_cache_dir
    return Path(default_cache_dir())


# -- the tuning cache -----------------------------------------------------------------

def tuning_digest(compiler: str, chip: str, kernel: str, dims: dict[str, int],
                  source: str, general: bool = False) -> str:
    """The key of a tuned choice, exactly as TuningKey::digest computes it
    (lib/Runtime/TuningCache.cpp); ``general``: a search of the general
    kernels (--no-specialize), which has a record of its own."""
    dims_text = ",".join(f"{name}={dims[name]}" for name in sorted(dims))
    data = source.encode("utf-8")
    general_line = "general\n" if general else ""
    head = (f"phobos-tuning 1\ncompiler {compiler}\nchip {chip}\nkernel {kernel}\n"
            f"dims {dims_text}\n{general_line}source {len(data)}\n").encode("utf-8")
    return hashlib.sha256(head + data).hexdigest()


def tuning_record_path(root: Path, digest: str) -> Path:
    return root / "v1" / "tuning" / digest[:2] / f"{digest}.json"


def tuned_variant(root: Path, digest: str) -> dict[str, int] | None:
    """The winner a tuning record names, in @autotune order, or None."""
    try:
        record = json.loads(tuning_record_path(root, digest).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("key") != digest:
        return None
    order, variant = record.get("variant_order"), record.get("variant")
    if not isinstance(order, list) or not isinstance(variant, dict):
        return None
    try:
        return {name: int(variant[name]) for name in order}
    except (KeyError, TypeError, ValueError):
        return None
