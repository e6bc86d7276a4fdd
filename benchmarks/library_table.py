"""docs/benchmarks/library.md's table from a bench report over the offline library.

For every task the library covers: eager, torch.compile and library-kernel times (medians from
the verdict, all timed in one process per task, interleaved), the speedups, and the fraction of
the roofline floor each reaches (floor / time); the geometric means; the tasks not covered.

    warpsmith bench builtin/level1 --generator library --device cuda --depth 0
    warpsmith report BENCH_ID --format json --out suite.json
    python benchmarks/library_table.py suite.json > table.md
"""

from __future__ import annotations

import json
import math
import statistics
import sys


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def table(report: dict) -> str:
    timed = [t for t in report["tasks"] if t["status"] == "passed" and t.get("timed")]
    rows = ["| task | eager µs | compile µs | library µs | ×eager | ×compile | floor µs | "
            "roofline: eager | compile | library |", "|---|---|---|---|---|---|---|---|---|---|"]
    for t in timed:
        floor = t["floor_us"]
        rows.append(f"| {t['task']} | {t['eager_us']:.1f} | {t['compile_us']:.1f} | "
                    f"{t['time_us']:.1f} | {t['speedup_vs_eager']:.2f}× | "
                    f"{t['speedup_vs_compile']:.2f}× | {floor:.1f} | "
                    f"{floor / t['eager_us']:.0%} | {floor / t['compile_us']:.0%} | "
                    f"{floor / t['time_us']:.0%} |")
    beats = sum(t["speedup_vs_compile"] > 1 for t in timed)

    def reach(key):
        return statistics.median(t["floor_us"] / t[key] for t in timed)

    rows += ["", f"Geometric mean over the {len(timed)} covered tasks: "
             f"{geomean([t['speedup_vs_eager'] for t in timed]):.2f}× vs eager, "
             f"{geomean([t['speedup_vs_compile'] for t in timed]):.2f}× vs torch.compile; "
             f"the library kernel beats torch.compile on {beats} of {len(timed)}. Median "
             f"fraction of the floor: library {reach('time_us'):.0%}, torch.compile "
             f"{reach('compile_us'):.0%}, eager {reach('eager_us'):.0%}."]
    other = [t for t in report["tasks"] if t not in timed]
    if other:
        rows += ["", "Not covered (or not passed): " + ", ".join(
            f"{t['task']} ({t['status']})" for t in other) + "."]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(table(json.load(f)), end="")
