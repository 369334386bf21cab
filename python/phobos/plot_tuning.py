"""Draws a phobos-tune report as a bar chart.

``phobos-tune FILE.ph --dim ... --json REPORT.json`` writes the search's
table as JSON; this draws it: one horizontal bar per timed variant, fastest
first, the winner in green, each with its time and its ratio to the best,
then every variant that was dropped (pruned, wrong, failed to compile or
run) with the reason, under a title naming the kernel, the device, the
problem and the date.

    python -m phobos.plot_tuning REPORT.json -o REPORT.png

It needs matplotlib (Debian: ``python3-matplotlib``); nothing else in the
package does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

#: The statuses phobos-tune writes for a variant that was not timed, and
#: the word the chart puts before the reason.
_DROPPED = {"pruned": "pruned", "wrong": "wrong", "compile error": "compile error",
            "failed": "failed", "pending": "not run"}


def variant_label(report: dict[str, Any], variant: dict[str, int]) -> str:
    """`TILE_M=128,TILE_N=64` in the space's order (``variant_order``), as
    phobos-tune's table writes it."""
    names = [name for name in report.get("variant_order", []) if name in variant]
    names += sorted(name for name in variant if name not in names)
    return ",".join(f"{name}={variant[name]}" for name in names) or "-"


def _rows(report: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    """The timed variants, fastest first, and the others in the space's order."""
    variants = report.get("variants", [])
    timed = sorted((v for v in variants if isinstance(v.get("time_ms"), (int, float))),
                   key=lambda v: v["time_ms"])
    dropped = [v for v in variants if not isinstance(v.get("time_ms"), (int, float))]
    return timed, dropped


def _title(report: dict[str, Any]) -> str:
    dims = " ".join(f"{name}={value}" for name, value in report.get("dims", {}).items())
    lines = [f"phobos-tune {report.get('kernel', '?')} on {report.get('device') or report.get('backend', '?')}",
             "   ".join(part for part in (dims, report.get("date", "")) if part)]
    if report.get("checked_with"):
        lines.append(f"checked with {report['checked_with']}")
    return "\n".join(line for line in lines if line)


def plot(report: dict[str, Any], output: str | Path) -> None:
    """Writes the chart of `report` (a parsed ``--json`` report) to `output`;
    the format follows the file's suffix (.png, .svg, .pdf)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timed, dropped = _rows(report)
    best_index = report.get("best", -1)
    variants = report.get("variants", [])
    best = variants[best_index] if 0 <= best_index < len(variants) else None
    best_ms = best["time_ms"] if best and isinstance(best.get("time_ms"), (int, float)) else None
    rows = len(timed) + len(dropped)
    figure, axes = plt.subplots(figsize=(10, 1.8 + 0.3 * max(rows, 1)))
    labels, y = [], 0
    worst = max((v["time_ms"] for v in timed), default=0.0)
    for variant in timed:
        is_best = variant is best
        axes.barh(y, variant["time_ms"], color="#2e9e4f" if is_best else "#3b6fb6")
        value = f"{variant['time_ms']:.4f} ms"
        if best_ms:
            value += f"  {variant['time_ms'] / best_ms:.2f}x"
        axes.text(variant["time_ms"] + 0.01 * worst, y, value, va="center", fontsize=8,
                  color="#2e9e4f" if is_best else "black")
        labels.append(variant_label(report, variant.get("variant", {})))
        y += 1
    for variant in dropped:
        status = variant.get("status", "pending")
        reason = (variant.get("reason") or "").split("\n")[0]
        text = f"{_DROPPED.get(status, status)}: {reason}" if reason else _DROPPED.get(status, status)
        axes.text(0.01 * (worst or 1.0), y, text, va="center", fontsize=8,
                  color="gray" if status == "pruned" else "#c0392b")
        labels.append(variant_label(report, variant.get("variant", {})))
        y += 1
    axes.set_yticks(range(rows), labels, fontsize=8)
    axes.set_ylim(rows - 0.5, -0.5)
    axes.set_xlim(0, (worst or 1.0) * 1.35)
    axes.set_xlabel("time (ms), the median of CUDA-event timings; shorter is faster"
                    if report.get("backend") != "interpreter" else
                    "time (ms), the interpreter's wall clock")
    axes.set_title(_title(report), fontsize=10, loc="left")
    axes.grid(True, axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m phobos.plot_tuning",
        description="Draw a phobos-tune --json report as a bar chart.")
    parser.add_argument("report", help="the JSON file phobos-tune --json wrote")
    parser.add_argument("-o", "--output", help="the image to write (default: REPORT with .png)")
    args = parser.parse_args(argv)
    try:
        report = json.loads(Path(args.report).read_text())
    except (OSError, ValueError) as error:
        print(f"plot_tuning: cannot read '{args.report}': {error}", file=sys.stderr)
        return 1
    if not isinstance(report, dict) or "variants" not in report:
        print(f"plot_tuning: '{args.report}' is not a phobos-tune report", file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot_tuning: matplotlib is missing (Debian: python3-matplotlib)", file=sys.stderr)
        return 1
    output = args.output or str(Path(args.report).with_suffix(".png"))
    plot(report, output)
    print(f"plot_tuning: wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
