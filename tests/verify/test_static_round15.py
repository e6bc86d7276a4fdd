"""Red-team round 15: the scan's own work on a candidate's bytes, in the trusted process before
any deadline, is bounded by the size of the file (E110)."""

import ast
import itertools
from pathlib import Path

import pytest

from warpsmith.verify import static
from warpsmith.verify.static import kernels

from .test_static import HONEST

CORPORA = Path(__file__).resolve().parents[1] / "kernels"


def _chain(n: int) -> str:
    lines = "\n".join(f"    p{i} = p{i - 1} + 1\n    v{i} = tl.load(p{i})" for i in range(1, n))
    return f"""import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(p0):
{lines}


class ModelNew(nn.Module):
    def forward(self, x):
        k[(1,)](x)
        return x
"""


def test_compile_time_names_are_linear_in_a_chain(monkeypatch):
    """E110: the fixpoint of compile-time names dropped one name of `p1 = p0 + 1`,
    `p2 = p1 + 1`, ... a pass, over every assignment each pass: 1000 lines took 74 s of the
    host-python rule alone. Now each value is read once."""
    calls = itertools.count()
    real = kernels._static_reads

    def counted(node):
        next(calls)
        return real(node)

    monkeypatch.setattr(kernels, "_static_reads", counted)
    n = 600
    tree = ast.parse(_chain(n))
    kernel = next(f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "k")
    names = kernels._compile_time_names(kernel, tree)
    assert not names & {f"p{i}" for i in range(n)}  # p0 is a plain parameter: none is static
    assert next(calls) < 40 * n  # a walk of each value, not a pass per name


def test_static_reads_agrees_with_all_static_on_the_corpora():
    """The worklist's reading of a value is _all_static's: for any set S of compile-time
    names, _all_static(node, S) == ok and reads <= S (every expression of every corpus file,
    against its own names, none of them, and each one left out)."""
    checked = 0
    for path in sorted(CORPORA.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text())
        except (SyntaxError, UnicodeDecodeError, RecursionError):
            continue  # E68, E104: nested past the parser
        exprs = [n for n in ast.walk(tree) if isinstance(n, ast.expr)][:400]
        for node in exprs:
            try:
                ok, reads = kernels._static_reads(node)
            except RecursionError:  # the scan refuses such a file whole (too-deep)
                continue
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            for known in [names, set(), *(names - {x} for x in sorted(names)[:3])]:
                assert kernels._all_static(node, known) == (ok and reads <= known), \
                    (path.name, ast.unparse(node)[:80], known)
                checked += 1
    assert checked > 10_000


def test_a_source_past_the_bound_is_refused_unread():
    """620 KB of tuples of names (`b1 = (a0, a0, ...)`, each a0 holding 64 paths) kept
    `warpsmith verify` in the scan for 7 minutes of wall time, every rule linear: the scan
    reads at most MAX_SOURCE_CHARS, and a larger file is refused before it is parsed."""
    padding = "\n".join(f"v{i} = torch.nn.functional.relu" for i in range(
        static.MAX_SOURCE_CHARS // 30))
    source = HONEST + padding + "\n"
    assert len(source) > static.MAX_SOURCE_CHARS
    scanned = static.scan(source)
    assert [f.rule for f in scanned.rejected] == ["source-too-large"]
    assert static.scan(source.encode()).rejected[0].rule == "source-too-large"
    assert static.tf32_dots(source) == []
    assert static.scan(HONEST).findings == ()  # an honest file is far below it


@pytest.mark.parametrize("path", sorted((CORPORA / "good").glob("*.py")), ids=lambda p: p.name)
def test_honest_files_are_far_below_the_bound(path):
    assert len(path.read_text()) * 8 < static.MAX_SOURCE_CHARS


def test_a_file_past_the_cap_is_refused_without_being_read_whole(tmp_path, monkeypatch):
    """verify() reads at most one byte past static.MAX_SOURCE_BYTES: a file of gigabytes is
    not loaded into the trusted process first (found by red-team round 15)."""
    from warpsmith.verify import pipeline

    path = tmp_path / "huge.py"
    path.write_bytes(b"#" * (static.MAX_SOURCE_BYTES + 10))
    read = []
    real_open = type(path).open

    def spy_open(self, *args, **kwargs):
        f = real_open(self, *args, **kwargs)
        if self == path:
            real_read = f.read
            f.read = lambda n=-1: read.append(n) or real_read(n)
        return f

    monkeypatch.setattr(type(path), "open", spy_open)
    v = pipeline.verify("level1/relu", path, device="cpu", store=None)
    assert (v.status, v.rules) == ("rejected", ("source-too-large",)), v.reasons
    assert read == [static.MAX_SOURCE_BYTES + 1]
