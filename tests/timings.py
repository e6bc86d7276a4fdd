"""Write tests/slow.txt from measured test durations: the quick suite (`pytest -m "not slow"`)
is then every test under the threshold.

    WARPSMITH_TEST_TIMES=/tmp/times.tsv pytest tests/verify     (any subsets, one at a time)
    python -m tests.timings /tmp/times.tsv [more.tsv or JUnit .xml …] --slow 2.0 --note "…"

A test's time is its setup, call and teardown together; measured several times, the largest
counts. Tests measured this time replace their old entries; the rest of the list is kept.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

SLOW_LIST = Path(__file__).parent / "slow.txt"


def read_tsv(path: Path) -> dict[str, float]:
    runs: dict[tuple[str, int], float] = defaultdict(float)
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for line in path.read_text().splitlines():
        seconds, when, nodeid = line.split("\t", 2)
        round_ = seen[nodeid, when]  # the n-th setup starts the n-th run of that test
        seen[nodeid, when] += 1
        runs[nodeid, round_] += float(seconds)
    return _largest(runs)


def read_junit(path: Path) -> dict[str, float]:
    """JUnit XML (pytest --junitxml): call times only, classname as a dotted module path."""
    runs = {}
    for i, case in enumerate(ET.parse(path).iter("testcase")):
        parts = case.get("classname", "").split(".")
        module = "/".join(parts)
        # a class in the module: its name is capitalised; the file is the part before it
        cls = [p for p in parts if p[:1].isupper()]
        if cls:
            module = "/".join(parts[:parts.index(cls[0])]) + ".py::" + "::".join(cls)
            nodeid = f"{module}::{case.get('name')}"
        else:
            nodeid = f"{module}.py::{case.get('name')}"
        runs[nodeid, i] = float(case.get("time", 0))
    return _largest(runs)


def _largest(runs: dict[tuple[str, int], float]) -> dict[str, float]:
    out: dict[str, float] = {}
    for (nodeid, _), seconds in runs.items():
        out[nodeid] = max(out.get(nodeid, 0.0), seconds)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--slow", type=float, default=2.0, help="seconds: at or above is slow")
    parser.add_argument("--note", default="", help="where and how it was measured")
    args = parser.parse_args(argv)
    measured: dict[str, float] = {}
    for path in args.files:
        times = read_junit(path) if path.suffix == ".xml" else read_tsv(path)
        for nodeid, seconds in times.items():
            measured[nodeid] = max(measured.get(nodeid, 0.0), seconds)
    kept = {n: s for n, s in _old().items() if n not in measured}
    slow = kept | {n: s for n, s in measured.items() if s >= args.slow}
    header = [f"# slow tests (>= {args.slow:g} s), measured: {args.note}",
              "# seconds<TAB>test id; written by `python -m tests.timings` (its docstring)"]
    rows = [f"{s:.1f}\t{n}" for n, s in sorted(slow.items(), key=lambda x: (-x[1], x[0]))]
    SLOW_LIST.write_text("\n".join(header + rows) + "\n")
    quick = [s for s in measured.values() if s < args.slow]
    print(f"{len(measured)} tests measured: {len(quick)} quick, {sum(quick):.0f} s together; "
          f"{len(slow)} listed slow", file=sys.stderr)
    return 0


def _old() -> dict[str, float]:
    if not SLOW_LIST.is_file():
        return {}
    lines = [line for line in SLOW_LIST.read_text().splitlines() if line and line[0] != "#"]
    return {n: float(s) for s, n in (line.split("\t", 1) for line in lines)}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
