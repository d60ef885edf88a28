#!/usr/bin/env python3
"""The wide validation's summary (docs/model.md, "Wide validation"): runs slicescope-bench-model
on each setting of tests/data/model-validation-wide/settings.txt and prints, for all kernels, the
fit half (settings 1, 3, 5, ...), the held-out half (2, 4, 6, ...) and each strategy: how many
kernels, how many outside 1.5x and 2x, and the smallest, median and largest modelled / measured.

    scripts/model-wide-summary.py [--data DIR] [BENCH] [WORST]

DIR: the traces and settings.txt (default tests/data/model-validation-wide, what
scripts/model-validate.sh wrote); BENCH: the slicescope-bench-model binary (default
build/bin/slicescope-bench-model); WORST: also list the WORST kernels furthest below 1 and the
five furthest above.
"""
import argparse
import statistics
import subprocess
from pathlib import Path

root = Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser()
parser.add_argument("--data", type=Path, default=root / "tests/data/model-validation-wide")
parser.add_argument("bench", nargs="?", default=str(root / "build/bin/slicescope-bench-model"))
parser.add_argument("worst", nargs="?", type=int, default=0)
args = parser.parse_args()
data = args.data
bench = args.bench
names = [line.split(":")[0] for line in (data / "settings.txt").read_text().splitlines() if line.strip()]
half = {name: ("fit" if i % 2 == 0 else "out") for i, name in enumerate(names)}

rows = []  # (setting, strategy, ratio)
for name in names:
    table = subprocess.run([bench, str(data / f"{name}.json")], capture_output=True, text=True).stdout
    for line in table.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 7 and cells[1] != "strategy" and not cells[1].startswith("-"):
            rows.append((name, cells[1], float(cells[6])))


def summary(label, selected):
    ratios = [r for _, _, r in selected]
    out15 = sum(1 for r in ratios if r > 1.5 or r < 1 / 1.5)
    out2 = sum(1 for r in ratios if r > 2 or r < 0.5)
    inside = 100 * (len(ratios) - out15) // len(ratios)
    print(f"{label:26s} n={len(ratios):3d} >1.5x={out15:3d} ({inside}% in) >2x={out2:2d} "
          f"min={min(ratios):.2f} med={statistics.median(ratios):.2f} max={max(ratios):.2f}")


summary("ALL", rows)
summary("fit half", [r for r in rows if half[r[0]] == "fit"])
summary("out half", [r for r in rows if half[r[0]] == "out"])
for strategy in sorted({s for _, s, _ in rows}):
    summary(strategy, [r for r in rows if r[1] == strategy])
if args.worst:
    for name, strategy, ratio in sorted(rows, key=lambda r: r[2])[: args.worst]:
        print(f"  {ratio:.3f} {strategy:24s} {name} {half[name]}")
    for name, strategy, ratio in sorted(rows, key=lambda r: -r[2])[:5]:
        print(f"  {ratio:.3f} {strategy:24s} {name} {half[name]}")
