#!/usr/bin/env python3
"""Writes the markdown table of the tutorials' GPU runs: for each tutorial
(and direction), the geometric mean and the range of Phobos's ratio to the
Triton kernel for the same job, from the JSON files the tutorials write.
Usage: bench/tutorials_table.py DIR   (docs/tutorials, or a device run's)"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def geomean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values))


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/tutorials")
    records = [json.loads(p.read_text()) for p in sorted(folder.glob("t0*.json"))]
    if not records:
        sys.exit(f"no tutorial records in {folder}")
    print(f"Device: {records[0]['device']}, {records[0]['date']}. Ratio = Phobos / Triton in "
          "the unit of the plot (higher is better; 1.00 is parity).\n")
    print("| tutorial | direction | points | ratio to Triton (geomean) | min | max | plot |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for record in records:
        for key, direction in (("ratio_to_triton", "forward"),
                               ("ratio_to_triton_bwd", "backward")):
            ratios = [row[key] for row in record["rows"] if row.get(key)]
            if not ratios:
                continue
            print(f"| {record['title']} | {direction} | {len(ratios)} | "
                  f"{geomean(ratios):.2f} | {min(ratios):.2f} | {max(ratios):.2f} | "
                  f"[{record['name']}.png](tutorials/{record['name']}.png) |")


if __name__ == "__main__":
    main()
