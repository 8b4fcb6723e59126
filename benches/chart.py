"""Draws report.py's results as charts (PNG): throughput per workload per
implementation, and, where the run measured linearity, throughput against
stream length.

    python benches/report.py --chart docs/img                   # measure, then draw
    python benches/chart.py benches/RESULTS.md --out docs/img   # draw a saved report

The docs' performance page shows the two in docs/img.

A saved report is the Markdown report.py prints; the charts say which machine
it names. Needs matplotlib (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

# A report's implementations, in the order and colours the charts keep, so
# that one chart reads like the next.
NATIVE = "agentcodec native"
PURE = "agentcodec pure"
# The row label of a linearity run: "<layer> <stream>-<deltas> (linearity), ..."
LINEARITY = re.compile(r"^(?P<what>.+?)-(?P<count>\d+) \(linearity\)")


class Row(NamedTuple):
    workload: str
    implementation: str
    mb_per_s: float
    events_per_s: float
    native_faster_by: float


def parse(report: str) -> tuple[str, list[Row]]:
    """The machine line and the rows of a report's Markdown table."""
    machine = next((line for line in report.splitlines() if line.startswith("Machine:")), "")
    rows = []
    for line in report.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not line.startswith("|") or cells[0] in ("workload", "---"):
            continue
        try:
            numbers = [float(cell.replace(",", "").rstrip("x")) for cell in cells[2:]]
        except ValueError:
            continue
        rows.append(Row(cells[0], cells[1], *numbers))
    return machine, rows


def _colours(implementations: Iterable[str]) -> dict[str, Any]:
    """A colour an implementation: agentcodec's in blues (native dark, pure
    light), each peer its own from matplotlib's twenty."""
    import matplotlib

    names = set(implementations)
    ours = sorted(name for name in names if name.startswith("agentcodec"))
    theirs = sorted(names - set(ours))
    natives = [name for name in ours if "native" in name]
    pures = [name for name in ours if name not in natives]
    blues = matplotlib.colormaps["Blues"]
    colours: dict[str, Any] = {}
    for group, (low, high) in ((natives, (0.95, 0.7)), (pures, (0.5, 0.3))):
        for index, name in enumerate(sorted(group, key=lambda name: (name not in (NATIVE, PURE), name))):
            colours[name] = blues(high if len(group) == 1 else low + (high - low) * index / (len(group) - 1))
    # tab20 without its blues: the pairs at 0 and 1 (indexes 0-1, 18-19 are
    # blue and cyan).
    palette = [matplotlib.colormaps["tab20"](index) for index in range(2, 18)]
    for index, name in enumerate(theirs):
        colours[name] = palette[index % len(palette)]
    return colours


def draw_throughput(rows: Sequence[Row], machine: str, path: Path) -> None:
    """One horizontal group of bars a workload, a bar an implementation, on
    a log scale (the implementations span two orders of magnitude)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [row for row in rows if not LINEARITY.match(row.workload)]
    workloads = list(dict.fromkeys(row.workload for row in rows))
    colours = _colours(row.implementation for row in rows)
    height = 0.8
    figure, axes = plt.subplots(figsize=(11, 0.28 * len(rows) + 1.5))
    position = 0.0
    ticks = []
    for workload in workloads:
        group = [row for row in rows if row.workload == workload]
        bar = height / len(group)
        for offset, row in enumerate(group):
            y = position + offset * bar
            axes.barh(
                y, row.mb_per_s, height=bar, color=colours[row.implementation], label=row.implementation
            )
            axes.text(row.mb_per_s * 1.04, y, f"{row.mb_per_s:,.1f}", va="center", fontsize=6)
        ticks.append(position + (len(group) - 1) * bar / 2)
        position += 1.0
    axes.set_yticks(ticks, labels=[_short(workload) for workload in workloads], fontsize=7)
    axes.invert_yaxis()
    axes.set_xscale("log")
    axes.set_xlabel("MB/s, log scale (higher is faster)")
    axes.grid(axis="x", which="both", alpha=0.3)
    handles, labels = axes.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=False))
    axes.legend(
        unique.values(), unique.keys(), fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.03)
    )
    axes.set_title(f"Throughput per workload, one core\n{_wrapped(machine)}", fontsize=8)
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)


def draw_linearity(rows: Sequence[Row], machine: str, path: Path) -> bool:
    """Throughput against stream length, a line a protocol and backend; False
    when the report has no linearity runs (report.py --full makes them)."""
    series: dict[str, list[tuple[int, float]]] = {}
    for row in rows:
        found = LINEARITY.match(row.workload)
        if found is None:
            continue
        label = f"{found['what']} ({row.implementation.removeprefix('agentcodec ')})"
        series.setdefault(label, []).append((int(found["count"]), row.mb_per_s))
    if not series:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4.5))
    for label, points in sorted(series.items()):
        points.sort()
        style = "-" if "(native)" in label else "--"
        axes.plot(
            [count for count, _ in points], [mbps for _, mbps in points], style, marker="o", label=label
        )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("deltas in the stream (log scale)")
    axes.set_ylabel("MB/s (log scale)")
    axes.grid(which="both", alpha=0.3)
    axes.legend(fontsize=7)
    axes.set_title(
        f"Linearity: throughput against stream length (flat is linear)\n{_wrapped(machine)}", fontsize=8
    )
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)
    return True


def draw(rows: Sequence[Row], machine: str, directory: Path) -> list[Path]:
    """Both charts into ``directory``; returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / "results.png"]
    draw_throughput(rows, machine, written[0])
    if draw_linearity(rows, machine, directory / "linearity.png"):
        written.append(directory / "linearity.png")
    return written


def _wrapped(machine: str) -> str:
    return "\n".join(textwrap.wrap(machine, 130))


def _short(workload: str) -> str:
    """A workload's label without the chunking said on every row."""
    return workload.removesuffix(", network chunks")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a report saved from report.py (Markdown)")
    parser.add_argument("--out", type=Path, help="where to write the PNGs (default: beside the report)")
    args = parser.parse_args(argv)
    machine, rows = parse(args.report.read_text())
    if not rows:
        print(f"{args.report}: no report table found", file=sys.stderr)
        return 1
    for path in draw(rows, machine, args.out or args.report.parent):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
