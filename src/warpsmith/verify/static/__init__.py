"""Static scan of a candidate's source (AST), before anything of it runs.

Each rule has an id, a severity and a one-line reason; a rule is a function from the parsed
module to the places it fires. docs/verifier.md lists which exploit each rule stops.

The scan runs the rules of basic.py, lookup.py, escapes.py and kernels.py, in that order
(RULES). Imports go one way: this module imports the rule modules, each of them imports
base.py (the finding, the rule marker, the shared lists and helpers) and lookup.py (what a
name really is), and none imports this module or a later one. Nothing outside the scan is
imported here but pyparse.
"""

from __future__ import annotations

import codecs
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

from ... import pyparse
from . import basic, escapes, kernels, lookup
from .base import (
    MAX_SOURCE_CHARS,
    REJECT,
    WARN,
    Finding,
    Rule,
    detect_language,
    rules_of,
    scanning,
)
from .device import queries_device
from .tf32 import tf32_dots

__all__ = ["MAX_SOURCE_BYTES", "MAX_SOURCE_CHARS", "RULES", "TOO_LARGE", "Finding", "Scan",
           "branches_on_device", "decode", "detect_language", "foreign_encoding", "scan",
           "tf32_dots", "too_large"]

RULES: dict[str, tuple[str, Rule]] = rules_of(basic, lookup, escapes, kernels)


@dataclass(frozen=True)
class Scan:
    language: str  # "triton", "cuda" or "none"
    findings: tuple[Finding, ...]
    syntax_error: str = ""

    @property
    def rejected(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == REJECT)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == WARN)


# UTF-8 spends at most 4 bytes on a character: a file of more bytes than this is too large
# before it is read whole (pipeline.verify reads no more than one byte past it)
MAX_SOURCE_BYTES = 4 * MAX_SOURCE_CHARS
TOO_LARGE = "source-too-large"


def too_large(size: str) -> str:
    return (f"{size} of source, more than the {MAX_SOURCE_CHARS} characters the scan reads: "
            "its rules run in the verifier's own process before any deadline, so their work "
            "is bounded by the size of the file")


def scan(source: str | bytes) -> Scan:
    """`source` as text, or as the file's bytes, decoded here exactly as Python's import
    decodes them (its `# coding:` cookie and BOM honoured: `decode`)."""
    try:
        source = decode(source) if isinstance(source, bytes | bytearray) else source
        if len(source) > MAX_SOURCE_CHARS:
            return Scan("none", (Finding(TOO_LARGE, REJECT,
                                         too_large(f"{len(source)} characters"), 0),))
        tree = pyparse.parse(source)
    except SyntaxError as e:
        return Scan("none", (), syntax_error=f"line {e.lineno}: {e.msg}")
    try:
        language = detect_language(tree, source)
        findings = [Finding("source-encoding", REJECT, reason, line)
                    for line, reason in foreign_encoding(source)]
        with scanning(tree):  # what the rules compute from the whole tree, once a scan
            for rule_id, (severity, fn) in RULES.items():
                findings += _run_rule(rule_id, severity, fn, tree)
    except RecursionError:  # `1 + 1 + … ` 1201 terms deep: Python imports it, the rules'
        # recursive walks cannot follow it (red-team round of 2026-12-05: no verdict at all)
        return Scan("none", (Finding("too-deep", REJECT, "an expression or statement nested "
                                     "deeper than the scan follows; no kernel needs it", 0),))
    return Scan(language, tuple(findings))


def _run_rule(rule_id: str, severity: str, fn, tree) -> list[Finding]:
    """One rule's findings. A rule that fails on a file is the scan's own bug (round 9 met
    one: a TypeError ended `verify` with a traceback): the file is refused, the reason says
    whose fault it is, and the other rules still run. RecursionError is the caller's."""
    try:
        return [Finding(rule_id, severity, reason, line) for line, reason in fn(tree)]
    except RecursionError:
        raise
    except Exception as e:
        return [Finding("scan-failed", REJECT, f"the verifier's rule {rule_id} failed on this "
                        f"file ({type(e).__name__}: {str(e)[:120]}): the verifier's fault, "
                        "but a file the scan cannot read is not run", 0)]


# Python's import honours a PEP 263 cookie on either of the first two lines; a scan that reads
# the file as UTF-8 sees another program: under `# coding: utf-7` the comment `# +AAo-import os`
# is a newline and then code, under raw_unicode_escape `# \u000a...` is (E56). Only UTF-8 is
# allowed, so the scan's text, the import's and Triton's own read of the source (inspect,
# through tokenize.open) are one program. The pattern is looser than either tokenizer's (any
# place on the line, any line break), so no cookie they honour can slip past it.
_COOKIE = re.compile(r"coding[:=][ \t\f]*([-\w.]+)")


def foreign_encoding(source: str) -> Iterator[tuple[int, str]]:
    # the tokenizer's lines, and lines split at every break str knows (\r, \f, \x1c…)
    heads = source.split("\n", 2)[:2], source.splitlines()[:2]
    found = {line: name for lines in heads for line, text in enumerate(lines, 1)
             for name in _COOKIE.findall(text) if _encoding(name) != "utf-8"}
    for line, name in sorted(found.items()):
        yield line, f"declares the source encoding {name[:40]!r}: Python would run another " \
                    "text than the one scanned (only UTF-8 is allowed)"


def _encoding(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return f"unknown {name}"


def decode(data: bytes) -> str:
    """The text Python's import runs from these bytes (tokenize.detect_encoding: the cookie,
    a UTF-8 BOM and a cookie that disagrees with it), for the scan to read the same program.
    SyntaxError where the import would raise one.

    Only UTF-8 is ever decoded. A file whose cookie names another codec is refused by the
    scan whatever its text (source-encoding: the cookie sits in the first two lines, which
    detect_encoding read as UTF-8), so its text is the UTF-8 reading, with replacement
    characters: the codec it names never runs here. It did: `# coding: punycode` raised
    UnicodeError out of verify() (not a UnicodeDecodeError, so past the handler below), and
    punycode's decoder is quadratic in a run of digits (80 000 bytes took 1.3 s, a few MB
    would hold the trusted process for hours before any deadline began: red-team round 15,
    E109); any codec Python ships, or a future one, is code the candidate picked."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        if _encoding(encoding) not in ("utf-8", "utf-8-sig"):  # utf-8-sig: a BOM
            return bytes(data).decode("utf-8", "replace")
        return bytes(data).decode(encoding)
    except (SyntaxError, LookupError, ValueError) as e:  # UnicodeError is a ValueError
        raise SyntaxError(f"the source cannot be decoded as Python would: {e}") from e


def branches_on_device(source: str) -> bool:
    """Whether the code asks where a tensor lives or which machine it is on (`x.is_cuda`,
    `x.device.type`, `torch.cuda.is_available()`, …: device.py): on the CPU interpreter only
    its CPU path runs (pipeline: needs_gpu, never passed)."""
    return queries_device(source)
