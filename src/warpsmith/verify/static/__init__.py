"""Static scan of a candidate's source (AST), before anything of it runs.

Each rule has an id, a severity and a one-line reason; a rule is a function from the parsed
module to the places it fires. docs/verifier.md lists which exploit each rule stops.
"""

from __future__ import annotations

import ast
import codecs
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

from ... import pyparse
from .base import (  # noqa: F401 (the names the scan's users read from here)
    ALLOWED_MODULES,
    FORBIDDEN_SUBMODULES,
    REJECT,
    RULES,
    WARN,
    Finding,
    Rule,
    _dotted,
    _module_allowed,
    _strip_call,
    _triton_kernels,
    all_nodes,
    detect_language,
    per_tree,
    rule,
    scanning,
)


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


FORBIDDEN_CALLS = {"exec", "eval", "compile", "__import__", "open", "globals", "vars",
                   "locals", "breakpoint", "setattr", "delattr", "getattr", "input", "help"}
FORBIDDEN_METHODS = {"use_deterministic_algorithms", "save", "load", "numpy", "tolist",
                     "from_numpy", "frombuffer", "__array__", "set_rng_state", "manual_seed",
                     "seed", "register_forward_hook", "register_forward_pre_hook",
                     "from_dlpack", "to_dlpack", "tofile", "fromfile"}
# Dunder attributes honest kernel code uses; any other is a way into the runtime.
ALLOWED_DUNDERS = {"__init__", "__name__", "__call__"}
FRAME_ATTRIBUTES = {"f_back", "f_locals", "f_globals", "f_builtins", "f_code", "gi_frame",
                    "cr_frame", "tb_frame", "tb_next", "ag_frame"}
PROTECTED_ROOTS = {"torch", "triton", "tl", "time", "builtins", "F", "nn", "math"}
REFERENCE_NAMES = {"Model", "get_inputs", "get_init_inputs"}


# The most source the scan reads. Its rules walk the tree in the trusted process before any
# deadline, at about 0.1-0.2 ms a byte for adversarial files with every rule linear (620 KB
# of tuples of names kept `warpsmith verify` busy for 7 minutes, 140 KB of a chain the
# compile-time rule followed quadratically for longer: red-team round 15, E110). KernelBench's
# largest reference is 23 KB and honest candidates are a few KB; 256 KiB is ten times that.
MAX_SOURCE_CHARS = 256 * 1024
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


@rule("no-modelnew", REJECT)
def _no_modelnew(tree):
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        yield 0, "defines no top-level class ModelNew"


@rule("modelnew-base", REJECT)
def _modelnew_base(tree):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "ModelNew":
            for base in node.bases:
                if _dotted(base) not in ("nn.Module", "torch.nn.Module", "Module"):
                    yield node.lineno, f"ModelNew subclasses {_dotted(base) or 'an expression'}" \
                        "; it must subclass nn.Module only"


@rule("no-kernel", REJECT)
def _no_kernel(tree):
    source = ast.unparse(tree)
    if detect_language(tree, source) == "none":
        yield 0, "no @triton.jit kernel and no CUDA kernel: the work must be done by a kernel"


@rule("kernel-never-launched", REJECT)
def _never_launched(tree):
    # `kernel[grid]`, `self.kernel[grid]`, `ModelNew.kernel[grid]` (a staticmethod kernel in
    # the class body: honest round 11) all launch `kernel`
    launched = {_dotted(n.value).rsplit(".", 1)[-1] for n in all_nodes(tree)
                if isinstance(n, ast.Subscript)}
    referenced = {n.id for n in all_nodes(tree) if isinstance(n, ast.Name)}
    kernels = _triton_kernels(tree)  # noqa: F811 (the module of that name is not read here)
    if kernels and not any(k.name in launched or k.name in referenced for k in kernels):
        yield kernels[0].lineno, "Triton kernels are defined but never launched"


@rule("try-except", REJECT)
def _try(tree):
    for node in all_nodes(tree):
        if isinstance(node, ast.Try | getattr(ast, "TryStar", ast.Try)) and \
                not (node in tree.body and _import_fallback(node)):
            yield node.lineno, "try/except is not allowed: a fallback would hide a failing kernel"


def _import_fallback(node: ast.Try) -> bool:
    """`try: from triton.language.extra.cuda import libdevice` / `except ImportError: from
    triton.language.extra import libdevice` at module level: the shim honest kernels carry
    for names that moved between Triton releases (round 10, c04). Imports only, caught as
    ImportError only: it can hide no kernel, and the imports are checked like any other."""
    def imports(body) -> bool:
        return all(isinstance(s, ast.Import | ast.ImportFrom | ast.Pass) for s in body)

    caught = [h.type for h in node.handlers]
    return imports(node.body) and not node.orelse and not node.finalbody and all(
        isinstance(t, ast.Name) and t.id in ("ImportError", "ModuleNotFoundError")
        for t in caught) and all(imports(h.body) and h.name is None for h in node.handlers)


@rule("import-not-allowed", REJECT)
def _imports(tree):
    for node in all_nodes(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else ["(relative import)"]
        else:
            continue
        for name in names:
            if not _module_allowed(name):
                yield node.lineno, f"imports {name} (allowed: {', '.join(sorted(ALLOWED_MODULES))})"


@rule("dynamic-code", REJECT)
def _dynamic(tree):
    for node in all_nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in FORBIDDEN_CALLS:
                yield node.lineno, f"calls {node.func.id}()"
            elif node.func.id == "type" and len(node.args) == 3:
                yield node.lineno, "creates a class with type(name, bases, namespace)"
        if isinstance(node, ast.Name) and node.id in ("__builtins__", "__import__", "__loader__",
                                                       "__spec__"):
            yield node.lineno, f"uses {node.id}"


@rule("forbidden-call", REJECT)
def _forbidden_calls(tree):
    targets = _alias_targets(tree)
    for node in all_nodes(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr, root = node.func.attr, _dotted(node.func).split(".")[0]
        if attr in ("save", "load") and targets.get(root, "") != "torch":
            continue  # tl.load is Triton's memory load; torch.save/torch.load are files
        if attr in FORBIDDEN_METHODS:
            yield node.lineno, f"calls .{attr}(): file, RNG, host-side or hook " \
                               "access is not allowed in a candidate"


@rule("introspection", REJECT)
def _introspection(tree):
    for node in all_nodes(tree):
        if not isinstance(node, ast.Attribute):
            continue
        attr = node.attr
        if attr.startswith("__") and attr.endswith("__") and attr not in ALLOWED_DUNDERS:
            yield node.lineno, f"reaches into {attr}"
        elif attr in FRAME_ATTRIBUTES:
            yield node.lineno, f"walks frames through {attr}"


# torch's NVRTC wrapper, the fast CUDA C++ path (private in torch 2.8-2.13, but the documented
# way to launch a raw CUDA kernel on torch tensors without a C++ build).
NVRTC_ENTRY = "cuda._compile_kernel"
# Private helpers that honest initialisation code calls (issue 17: nn.Linear's own init uses
# the first), matched by their full path whatever the alias; they reach nothing of the harness.
PRIVATE_IDIOMS = {"torch.nn.init._calculate_fan_in_and_fan_out",
                  "torch.nn.init._calculate_correct_fan", "torch.nn.init._no_grad_uniform_",
                  "torch.nn.init._no_grad_normal_", "torch.nn.modules.utils._single",
                  "torch.nn.modules.utils._pair", "torch.nn.modules.utils._triple",
                  "torch.nn.modules.utils._quadruple", "torch.nn.modules.utils._ntuple",
                  "torch.nn.modules.utils._reverse_repeat_tuple"}


@rule("private-api", REJECT)
def _private(tree):
    modules, names = _module_aliases(tree), lookup.bindings(tree)
    for node in all_nodes(tree):
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            parts = dotted.split(".")
            if parts[0] in modules and any(p.startswith("_") for p in parts[1:]) \
                    and not dotted.endswith(NVRTC_ENTRY) and not _idiom(node, names):
                yield node.lineno, f"uses private API {dotted}"
        elif isinstance(node, ast.ImportFrom) and node.level == 0:  # from torch import _C
            for a in node.names:
                path = f"{node.module}.{a.name}"
                if a.name.startswith("_") and a.name != "__future__" \
                        and path not in PRIVATE_IDIOMS:
                    yield node.lineno, f"imports private API {path}"


def _idiom(node: ast.Attribute, names: dict[str, set[str]]) -> bool:
    """The whole private part of the path is one allowed idiom (not an attribute of it)."""
    paths = lookup.paths_of(node, names)
    while isinstance(node.value, ast.Attribute) and not node.attr.startswith("_"):
        node = node.value
        paths = lookup.paths_of(node, names)
    return bool(paths) and paths <= PRIVATE_IDIOMS


@rule("monkeypatch", REJECT)
def _monkeypatch(tree):
    modules, reported = _module_aliases(tree) | PROTECTED_ROOTS, set()
    for node in all_nodes(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            root = _dotted(target).split(".")[0]
            if isinstance(target, ast.Attribute) and root in modules:
                reported.add(node.lineno)
                yield node.lineno, f"assigns to {_dotted(target)}"
    for line, reason in lookup.patched_objects(tree):  # aliases, type(x), del
        if line not in reported:
            yield line, reason


@rule("reference-lookup", REJECT)
def _reference(tree):
    for node in all_nodes(tree):
        if isinstance(node, ast.Name) and node.id in REFERENCE_NAMES:
            yield node.lineno, f"refers to the reference's {node.id}"


@rule("tensor-subclass", REJECT)
def _tensor_subclass(tree):
    aliased = {line for line, _ in lookup.tensor_subclass_bases(tree)}
    for node in all_nodes(tree):
        if isinstance(node, ast.ClassDef) and any(
                _dotted(b) in ("torch.Tensor", "Tensor") for b in node.bases):
            yield node.lineno, f"{node.name} subclasses torch.Tensor"
        elif isinstance(node, ast.ClassDef) and node.lineno in aliased:
            yield node.lineno, f"{node.name} subclasses torch.Tensor through an alias"


@rule("module-cache", WARN)
def _module_cache(tree):
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict | ast.List | ast.Set):
            yield node.lineno, "module-level mutable container: results must not be cached"


@rule("streams-graphs", WARN)
def _streams(tree):
    for node in all_nodes(tree):
        name = _dotted(node) if isinstance(node, ast.Attribute) else ""
        if name.endswith(("cuda.Stream", "cuda.CUDAGraph", "cuda.graph", "cuda.stream")):
            yield node.lineno, f"uses {name}: side streams and graphs are checked more closely"


def _module_aliases(tree: ast.Module) -> set[str]:
    """Every local name bound by an import: `import torch as t` makes `t` a module."""
    return set(_alias_targets(tree))


@per_tree
def _alias_targets(tree: ast.Module) -> dict[str, str]:
    """Local name -> the top-level module it was imported from."""
    names = {}
    for node in all_nodes(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[(a.asname or a.name).split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                names[a.asname or a.name] = (node.module or "").split(".")[0]
    return names


from . import escapes, kernels, lookup  # noqa: E402,F401  (they register their rules)
from .tf32 import tf32_dots  # noqa: E402,F401  (the pipeline calls it for strict fp32)


def branches_on_device(source: str) -> bool:
    """Whether the code asks where a tensor lives or which machine it is on (`x.is_cuda`,
    `x.device.type`, `torch.cuda.is_available()`, …: static_device.py): on the CPU
    interpreter only its CPU path runs (pipeline: needs_gpu, never passed)."""
    from .device import queries_device

    return queries_device(source)
