"""Checks the rule of docs/architecture.md ("Library dependencies"): each
library under lib/ uses only the libraries above it, in the order
lib/CMakeLists.txt adds them.

The order is the order in which CMake meets the libraries' definitions
(add_library and the add_*_library wrappers), following add_subdirectory
from lib/CMakeLists.txt. Two kinds of use are read:

- links: the Phobos libraries a definition's arguments (LINK_LIBS, DEPENDS)
  or a target_link_libraries name;
- includes: the "Phobos/..." headers a file under lib/ or include/Phobos/
  includes. A header belongs to the library whose folder mirrors its path
  (include/Phobos/Dialect/Tile/IR/X.h: lib/Dialect/Tile/IR), the one in
  that folder or below it that compiles X.cpp where there are several, the
  first library below a folder that has none of its own (Conversion/Passes.h:
  the first conversion library), or, where no folder mirrors it, the
  library that compiles X.cpp.

A use of a library that comes later in the order (or of one that does not
come at all before its user) runs back up the layers and is reported with
its file, and line for an include.

Usage: python3 layers.py SOURCE_ROOT
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

COMMAND = re.compile(r"([A-Za-z_]\w*)\s*\(((?:[^()]|\([^()]*\))*)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s*"(Phobos/[^"]+)"')
SOURCE_SUFFIXES = (".cpp", ".c", ".cc")


@dataclass
class Library:
    name: str
    folder: str  # relative to lib/
    cmake: Path
    order: int
    sources: set[str] = field(default_factory=set)
    uses: list[str] = field(default_factory=list)


def strip_comments(text: str) -> str:
    return "\n".join(re.sub(r"#.*", "", line) for line in text.splitlines())


def read_libraries(root: Path) -> tuple[dict[str, Library], list[str]]:
    """The libraries in the order CMake defines them, and the problems
    reading the CMake files."""
    libraries: dict[str, Library] = {}
    problems: list[str] = []
    lib = root / "lib"

    def visit(folder: Path, seen: set[Path]) -> None:
        cmake = folder / "CMakeLists.txt"
        if cmake in seen:
            return
        seen.add(cmake)
        if not cmake.is_file():
            problems.append(f"{cmake.relative_to(root)}: added by add_subdirectory, "
                            f"but there is no such file")
            return
        for match in COMMAND.finditer(strip_comments(cmake.read_text())):
            command, args = match.group(1).lower(), match.group(2).split()
            if command == "add_subdirectory" and args:
                visit(folder / args[0], seen)
            elif re.fullmatch(r"add_(\w+_)?library", command) and args:
                name = args[0]
                library = Library(name, folder.relative_to(lib).as_posix(), cmake,
                                  len(libraries))
                library.sources = {Path(a).stem for a in args[1:]
                                   if a.endswith(SOURCE_SUFFIXES)}
                library.uses = args[1:]
                libraries[name] = library
            elif command == "target_link_libraries" and args:
                if args[0] in libraries:
                    libraries[args[0]].uses += args[1:]

    visit(lib, set())
    # Only names defined here are Phobos libraries; keywords, MLIR and LLVM
    # libraries and other targets are dropped.
    for library in libraries.values():
        library.uses = [u for u in dict.fromkeys(library.uses)
                        if u in libraries and u != library.name]
    return libraries, problems


def libraries_in(libraries: dict[str, Library], folder: str) -> list[Library]:
    """The libraries defined in `folder` (relative to lib/)."""
    return [l for l in libraries.values() if l.folder == folder]


def owner_of_header(libraries: dict[str, Library], lib: Path,
                    include: str) -> Library | None:
    """The library an include "Phobos/..." belongs to."""
    parts = Path(include).parts[1:]  # without "Phobos"
    stem = Path(include).name.split(".")[0]
    folder = ""
    for part in parts[:-1]:
        if not (lib / folder / part).is_dir():
            break
        folder = f"{folder}/{part}" if folder else part
    if folder:
        below = [l for l in libraries.values()
                 if l.folder == folder or l.folder.startswith(folder + "/")]
        for library in below:
            if stem in library.sources:
                return library
        if libraries_in(libraries, folder) or not below:
            while True:
                here = libraries_in(libraries, folder)
                if here:
                    return here[0]
                if "/" not in folder:
                    return None
                folder = folder.rsplit("/", 1)[0]
        # A folder of several libraries and none of its own (Conversion/):
        # its shared header is the first of them, so that none of them is
        # taken to use a later one by including it.
        return min(below, key=lambda l: l.order)
    for library in libraries.values():
        if stem in library.sources:
            return library
    return None


def owner_of_file(libraries: dict[str, Library], lib: Path,
                  root: Path, path: Path) -> Library | None:
    """The library a file under lib/ or include/Phobos/ is part of."""
    if path.is_relative_to(root / "include" / "Phobos"):
        return owner_of_header(libraries, lib,
                               path.relative_to(root / "include").as_posix())
    folder = path.parent.relative_to(lib).as_posix()
    while True:
        here = libraries_in(libraries, "" if folder == "." else folder)
        for library in here:
            if path.stem in library.sources:
                return library
        if here:
            return here[0]
        if folder in ("", "."):
            return None
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""


def main() -> int:
    root = Path(sys.argv[1])
    lib = root / "lib"
    libraries, problems = read_libraries(root)
    errors = list(problems)
    links = includes = 0
    for library in libraries.values():
        for used in library.uses:
            links += 1
            if libraries[used].order > library.order:
                errors.append(
                    f"{library.cmake.relative_to(root)}: {library.name} links "
                    f"{used}, which lib/CMakeLists.txt adds after it "
                    f"({libraries[used].folder}): a use back up the layers")
    files = [p for base in (lib, root / "include" / "Phobos") if base.is_dir()
             for p in sorted(base.rglob("*"))
             if p.suffix in (".cpp", ".c", ".h") and p.is_file()]
    for path in files:
        user = owner_of_file(libraries, lib, root, path)
        if user is None:
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            used = owner_of_header(libraries, lib, match.group(1))
            if used is None or used is user:
                continue
            includes += 1
            if used.order > user.order:
                errors.append(
                    f"{path.relative_to(root)}:{number}: {user.name} includes "
                    f"{match.group(1)} of {used.name}, which lib/CMakeLists.txt "
                    f"adds after it: a use back up the layers")
    for error in errors:
        print(error)
    print(f"{len(libraries)} libraries in order, {links} links and {includes} "
          f"includes between them, {len(errors) - len(problems)} back up the "
          f"layers" + (f", {len(problems)} CMake files missing" if problems else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
