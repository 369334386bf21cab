#!/usr/bin/env python3
"""Prints the markdown table of one run of the tutorials: for each tutorial
(and direction), the geometric mean and the range of Phobos's ratio to the
Triton kernel for the same job, from the JSON files the tutorials write.
`bench/current_numbers.py update --tutorials DIR` makes such a run the table
of docs/tutorials.md and docs/benchmarks.md.
Usage: bench/tutorials_table.py DIR   (a device run's tutorials folder)"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from current_numbers import from_tutorials, read_tutorials, tutorials_table  # noqa: E402


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/tutorials")
    records = read_tutorials(folder)
    if not records:
        sys.exit(f"no tutorial records in {folder}")
    print("Ratio = Phobos / Triton in the unit of the plot (higher is better; 1.00 is parity).\n")
    print("\n".join(tutorials_table(from_tutorials(records))))


if __name__ == "__main__":
    main()
