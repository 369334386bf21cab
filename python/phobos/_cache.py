"""The kernel cache, as the C++ side (lib/Runtime/KernelCache.cpp) lays it out.

An entry is ``<root>/v1/<2 hex>/<sha256>/`` holding ``contract.json``,
``kernel.ptx``, ``kernel.cubin`` (when ptxas ran) and ``manifest.json``,
which lists every file with its size and SHA-256. phobos-compile --cache
writes entries (in a staging directory, renamed into place); this module
computes keys and reads entries, and removes one that does not match its
manifest so that it is rebuilt. docs/python.md describes the format.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any, Sequence

FORMAT = 1


def cache_root() -> Path:
    """``$PHOBOS_CACHE_DIR``, else ``$XDG_CACHE_HOME/phobos``, else ``~/.cache/phobos``."""
    explicit = os.environ.get("PHOBOS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "phobos"
    return Path.home() / ".cache" / "phobos"


def key_digest(compiler: str, chip: str, kernel: str,
               variant: Sequence[tuple[str, int]], source: str,
               aligned: Sequence[tuple[str, int]] = ()) -> str:
    """The entry's key, exactly as KernelCacheKey::digest computes it;
    ``aligned``: the promises a launch's specialisation added, sorted by name
    (only specialised kernels have that line)."""
    variant_text = ",".join(f"{name}={value}" for name, value in variant)
    data = source.encode("utf-8")
    aligned_line = ("aligned " + ",".join(f"{name}={value}" for name, value in aligned) + "\n"
                    if aligned else "")
    head = (f"phobos-kernel-cache 1\ncompiler {compiler}\nchip {chip}\nkernel {kernel}\n"
            f"variant {variant_text}\n{aligned_line}source {len(data)}\n").encode("utf-8")
    return hashlib.sha256(head + data).hexdigest()


def entry_dir(root: Path, digest: str) -> Path:
    return root / "v1" / digest[:2] / digest


@dataclasses.dataclass
class Entry:
    directory: Path
    contract: dict[str, Any]
    ptx: bytes | None
    cubin: bytes | None


class DamagedEntry(Exception):
    pass


def _discard(root: Path, directory: Path) -> None:
    staging = root / "v1" / "tmp"
    staging.mkdir(parents=True, exist_ok=True)
    trash = staging / f"discarded.{uuid.uuid4().hex}"
    try:
        os.rename(directory, trash)
    except OSError:
        return  # another process discarded it first
    shutil.rmtree(trash, ignore_errors=True)


def _read_entry(directory: Path, digest: str) -> Entry:
    try:
        manifest = json.loads((directory / "manifest.json").read_bytes())
    except FileNotFoundError:
        raise DamagedEntry("no manifest.json") from None
    except (OSError, ValueError):
        raise DamagedEntry("manifest.json is not JSON") from None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or manifest.get("format") != FORMAT or manifest.get("key") != digest:
        raise DamagedEntry("manifest.json does not describe this key")
    data: dict[str, bytes] = {}
    for name, described in files.items():
        if "/" in name or not isinstance(described, dict):
            raise DamagedEntry(f"manifest.json lists '{name}' without a digest")
        try:
            content = (directory / name).read_bytes()
        except OSError:
            raise DamagedEntry(f"'{name}' is missing") from None
        if len(content) != described.get("bytes") or hashlib.sha256(content).hexdigest() != described.get("sha256"):
            raise DamagedEntry(f"'{name}' does not match its digest")
        data[name] = content
    if "contract.json" not in data:
        raise DamagedEntry("no contract.json")
    try:
        contract = json.loads(data["contract.json"])
    except ValueError:
        raise DamagedEntry("contract.json is not JSON") from None
    return Entry(directory, contract, data.get("kernel.ptx"), data.get("kernel.cubin"))


def lookup(root: Path, digest: str) -> tuple[Entry | None, str]:
    """The intact entry of ``digest`` (or None) and, when one was found
    damaged and removed, what was wrong with it."""
    directory = entry_dir(root, digest)
    if not directory.is_dir():
        return None, ""
    try:
        return _read_entry(directory, digest), ""
    except DamagedEntry as damage:
        _discard(root, directory)
        return None, (f"cache entry '{directory}' is damaged ({damage}); it was removed and "
                      "will be rebuilt")


def write_atomic(path: Path, data: bytes) -> None:
    """Writes a file whole or not at all (a temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


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
