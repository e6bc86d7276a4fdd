"""The scan's own work at its size bound (red-team round 15, E110): the rules run in the
verifier's process before any deadline, so each must be linear in the source with a small
constant. Worst-case files at static.MAX_SOURCE_CHARS for each rule family are scanned under
a bound a slow shared CI machine meets with margin, and the findings of every corpus file
are those the scan gave before its per-scan caches and worklists (a snapshot:
static_findings_snapshot.json, written by the code of commit 787721b)."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch  # noqa: F401  (imported before any scan is timed, as in the verifier)

from warpsmith.verify import static

CORPORA = Path(__file__).resolve().parents[1] / "kernels"
SNAPSHOT = Path(__file__).with_name("static_findings_snapshot.json")
CAP = static.MAX_SOURCE_CHARS
HEAD = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n\n\n"
TAIL = ("\n\nclass ModelNew(nn.Module):\n    def forward(self, x):\n        k[(1,)](x, x)\n"
        "        return x\n")
KERNEL = "@triton.jit\ndef k(p, q):\n    tl.store(p, tl.load(p))\n\n"


def _fill(head: str, line, tail: str, budget: int = CAP) -> str:
    """head, then line(1), line(2), ... as many as fit in `budget` characters, then tail."""
    out, i, size = [], 1, len(head) + len(tail) + 1
    while size + len(line(i)) + 1 <= budget:
        out.append(line(i))
        size += len(out[-1]) + 1
        i += 1
    return head + "\n".join(out) + "\n" + tail


def chain_store() -> str:
    """E110: a chain of assignments in a kernel, a load and a store on every line."""
    return _fill(HEAD + "@triton.jit\ndef k(p0, q):\n",
                 lambda i: f"    p{i} = p{i - 1} + 1\n    tl.store(p{i}, tl.load(p{i}))", TAIL)


def chain_roots() -> str:
    """A chain that reads a new name a line: each address is made of more names."""
    return _fill(HEAD + "@triton.jit\ndef k(p0, q):\n",
                 lambda i: f"    p{i} = p{i - 1} + u{i}\n    tl.store(p{i}, tl.load(p{i}))", TAIL)


def wide_kernel() -> str:
    """Many names in one kernel, each loaded and stored."""
    return _fill(HEAD + "@triton.jit\ndef k(p0, q):\n",
                 lambda i: f"    v{i} = tl.load(p0 + {i})\n    tl.store(q + v{i}, v{i})", TAIL)


def many_kernels() -> str:
    return _fill(HEAD, lambda i: f"@triton.jit\ndef k{i}(p):\n    tl.store(p, tl.load(p) + 1)\n",
                 TAIL.replace("k[(1,)](x, x)", "k1[(1,)](x)"))


def many_kernels_and_constants() -> str:
    head = _fill(HEAD, lambda i: f"C{i} = {i}", "", CAP // 2)
    return _fill(head, lambda i: f"@triton.jit\ndef k{i}(p):\n    tl.store(p, tl.load(p) + C{i})\n",
                 TAIL.replace("k[(1,)](x, x)", "k1[(1,)](x)"))


def alias_chain() -> str:
    """Module-level aliases, each an attribute of the last: bindings' paths."""
    return _fill(HEAD + KERNEL + "a0 = torch.nn\n", lambda i: f"a{i} = a{i - 1}.functional", TAIL)


def many_names() -> str:
    return _fill(HEAD + KERNEL, lambda i: f"n{i} = torch.nn.functional.relu", TAIL)


def tuples() -> str:
    return _fill(HEAD + KERNEL + "a0 = torch\n", lambda i: f"a{i} = (a{i - 1}, a{i - 1})", TAIL)


def many_returns() -> str:
    """A function with many returns, called many times: its returns are read a call."""
    head = _fill(HEAD + KERNEL + "def f(x):\n", lambda i: f"    if x == {i}: return torch.nn",
                 "", CAP // 2)
    return _fill(head, lambda i: f"b{i} = f({i})", TAIL)


def deep_nesting() -> str:
    depth = 90
    body = "".join("    " * (d + 1) + f"if p{d}:\n" + "    " * (d + 2) + f"p{d + 1} = p{d} + 1\n"
                   for d in range(depth))
    return _fill(HEAD + "@triton.jit\ndef k(p0, q):\n" + body,
                 lambda i: "    " * (depth + 1) + f"tl.store(p{depth}, tl.load(p{depth}) + {i})",
                 TAIL)


def nested_functions() -> str:
    depth = 90
    head = HEAD + "".join("    " * d + f"def f{d}(a{d}):\n" for d in range(depth))
    return _fill(head, lambda i: "    " * depth + f"x{i} = a{i % depth} + {i}",
                 "    " * depth + "return 1\n\n" + KERNEL + TAIL)


def call_chains() -> str:
    """Calls of calls, 300 deep a line (red-team round of 2026-12-08: 73 s of one scan, the
    callee walked again under every call of the chain)."""
    return _fill(HEAD + KERNEL, lambda i: f"w{i} = x" + "()" * 300, TAIL)


def attribute_chains() -> str:
    """Attributes of attributes, 320 deep a line (the same round: 22 s, the dotted name of
    every link recomputed from the chain's root)."""
    return _fill(HEAD + KERNEL, lambda i: f"w{i} = torch" + ".nn" * 320, TAIL)


WORST = [chain_store, chain_roots, wide_kernel, many_kernels, many_kernels_and_constants,
         alias_chain, many_names, tuples, deep_nesting, nested_functions, many_returns,
         call_chains, attribute_chains]
# CPU seconds of one scan. Measured on the shared 2-core dev machine under load (2026-12-07):
# 0.3 to 5.2 s for each of WORST (alias_chain the most: its paths grow a segment a line),
# where the scan before took 30 s to several minutes. A regression to quadratic misses it far.
BOUND_S = 15.0


@pytest.mark.parametrize("make", WORST, ids=lambda f: f.__name__)
def test_a_worst_case_file_at_the_bound_scans_in_linear_time(make):
    source = make()
    assert CAP - 1000 < len(source) <= CAP
    static.scan("import torch\n")  # imports the scan's lazy modules outside the clock
    start = time.process_time()
    static.scan(source)
    took = time.process_time() - start
    assert took < BOUND_S, f"{make.__name__}: {took:.1f} s of scan at {len(source)} characters"


# Run in a fresh interpreter with a fixed hash seed: what a rule says may depend on the process
# (which of torch's modules are imported yet decides what a path resolves to; rules report a
# set's members in its order), so the snapshot and the test read the corpus alike.
SCAN_CORPUS = """
import hashlib, json, sys
from pathlib import Path
import torch  # noqa: F401  (imported before any scan is timed, as in the verifier)

from warpsmith.verify import static
out = {}
root = Path(sys.argv[1])
for path in sorted(root.rglob("*.py")):
    data = path.read_bytes()
    s = static.scan(data)
    out[str(path.relative_to(root))] = {"sha256": hashlib.sha256(data).hexdigest(), "scan": [
        s.language, s.syntax_error, [[f.rule, f.severity, f.reason, f.line] for f in s.findings]]}
assert static.__file__.startswith(sys.argv[2]), static.__file__
print(json.dumps(out, indent=0, sort_keys=True))
"""


def scan_corpus(src: Path | None = None) -> dict:
    """The findings of every corpus file, by the warpsmith under `src` (default: this one).
    `python -c 'from tests.verify.test_static_scan_cost import scan_corpus; ...'` with the old
    code's src regenerates the snapshot."""
    src = src or Path(static.__file__).resolve().parents[3]  # the code under test
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(src)}
    done = subprocess.run([sys.executable, "-c", SCAN_CORPUS, str(CORPORA), str(src)], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_findings_are_those_of_the_scan_before_its_caches():
    """Every corpus file whose text is the snapshot's gets the snapshot's findings, in order
    (the caches and worklists changed the scan's cost, not what any rule says). A file
    changed or added since has no snapshot to compare with: regenerate it then, with the
    code that wrote it (the module docstring's commit), not with the code under test."""
    snapshot = json.loads(SNAPSHOT.read_text())
    now = scan_corpus()
    same = [key for key in now if key in snapshot and snapshot[key]["sha256"] == now[key]["sha256"]]
    assert len(same) > 250
    for key in same:
        assert now[key]["scan"] == snapshot[key]["scan"], key
