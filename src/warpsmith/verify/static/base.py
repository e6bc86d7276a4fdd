"""What the static scan's modules share: the finding record, the rule marker, the lists and
the size limit more than one module reads, and the helpers every rule reads. Every module of
the scan imports this; this imports none of them."""

from __future__ import annotations

import ast
import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

REJECT, WARN = "reject", "warn"


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    reason: str
    line: int = 0

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"[{self.rule}] {self.reason}{where}"


Rule = Callable[[ast.Module], Iterator[tuple[int, str]]]

# An allow-list: a kernel needs torch (allocation, views), triton, and a little arithmetic.
# Everything else (os, sys, pathlib, numpy, threading, ctypes, importlib, json, …) can reach
# the verifier's machinery, files or the host's compute, so it is refused by default.
ALLOWED_MODULES = {"torch", "triton", "math", "typing", "functools", "itertools", "operator",
                   "dataclasses", "enum", "__future__", "cupy", "collections"}
FORBIDDEN_SUBMODULES = {"multiprocessing", "distributed", "jit", "utils.deterministic",
                        "utils._python_dispatch", "overrides", "cuda.memory", "_C",
                        # custom ops, worker processes and threads, code run from strings,
                        # pytree nodes the worker flattens, the profiler that proves kernels ran
                        "library", "utils.data", "utils.benchmark", "utils.pytree", "hub",
                        "package", "export", "profiler", "autograd.profiler"}
FORBIDDEN_CALLS = {"exec", "eval", "compile", "__import__", "open", "globals", "vars",
                   "locals", "breakpoint", "setattr", "delattr", "getattr", "input", "help"}
FORBIDDEN_METHODS = {"use_deterministic_algorithms", "save", "load", "numpy", "tolist",
                     "from_numpy", "frombuffer", "__array__", "set_rng_state", "manual_seed",
                     "seed", "register_forward_hook", "register_forward_pre_hook",
                     "from_dlpack", "to_dlpack", "tofile", "fromfile"}

# The most source the scan reads. Its rules walk the tree in the trusted process before any
# deadline, at about 0.1-0.2 ms a byte for adversarial files with every rule linear (620 KB
# of tuples of names kept `warpsmith verify` busy for 7 minutes, 140 KB of a chain the
# compile-time rule followed quadratically for longer: red-team round 15, E110). KernelBench's
# largest reference is 23 KB and honest candidates are a few KB; 256 KiB is ten times that.
MAX_SOURCE_CHARS = 256 * 1024


# What the rules compute from the whole tree (bindings, the kernels, the aliases), kept for the
# length of one scan: about twenty rules read bindings() alone, and each recomputed it over
# the whole file (red-team round 15, E110). Only inside `scanning(tree)` and only for that
# tree object; callers must not mutate what a memoized function returns.
_scope = threading.local()


@contextlib.contextmanager
def scanning(tree: ast.Module):
    previous = getattr(_scope, "memo", None)
    _scope.memo = (tree, {})
    try:
        yield
    finally:
        _scope.memo = previous


def per_tree(fn):
    """Memoize fn(tree) for the scan of `tree` in progress (the scan's own thread only)."""
    @functools.wraps(fn)
    def cached(tree):
        memo = getattr(_scope, "memo", None)
        if memo is None or memo[0] is not tree:
            return fn(tree)
        if fn not in memo[1]:
            memo[1][fn] = fn(tree)
        return memo[1][fn]
    return cached


@per_tree
def all_nodes(tree: ast.Module) -> list[ast.AST]:
    """ast.walk(tree) as a list, in its order: walked once a scan, not once a rule."""
    return list(ast.walk(tree))


# Each rule module's rules, in the order they are defined; the scan runs the modules' in the
# order static/__init__.py lists them (rules_of), whatever order they were imported in.
_MARKED: dict[str, dict[str, tuple[str, Rule]]] = {}


def rule(rule_id: str, severity: str):
    def register(fn: Rule) -> Rule:
        _MARKED.setdefault(fn.__module__, {})[rule_id] = (severity, fn)
        return fn
    return register


def rules_of(*modules) -> dict[str, tuple[str, Rule]]:
    return {rule_id: marked for module in modules
            for rule_id, marked in _MARKED.get(module.__name__, {}).items()}


# What builds CUDA C++ at run time: torch's extension builder and NVRTC wrapper, CuPy's raw
# kernels, cuda-python's nvrtc* functions.
CUDA_BUILDERS = ("load_inline", "RawKernel", "RawModule", "_compile_kernel", "compile_kernel")


def detect_language(tree: ast.Module, source: str) -> str:
    """"cuda" only where the file calls a CUDA builder: a CUDA candidate is never run on the
    CPU (needs_gpu), and the words in a string (`__global__`, `load_inline`) made a plain
    PyTorch model that returned zeros needs_gpu, no penalty (red-team round 13, A05)."""
    if triton_kernels(tree):
        return "triton"
    if "__global__" in source and any(
            isinstance(n, ast.Call) and _builds_cuda(n.func) for n in all_nodes(tree)):
        return "cuda"
    return "none"


def _builds_cuda(func: ast.AST) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in CUDA_BUILDERS or name.lower().startswith("nvrtc")


@per_tree
def triton_kernels(tree: ast.Module) -> list[ast.FunctionDef]:
    """The functions Triton compiles: decorated by a name for triton.jit under any alias
    (`from triton import jit as compile_kernel`), or handed to it as a call
    (`k = triton.jit(fn)`): the kernel rules read every one of them (red-team round 6, A04
    and A05: a kernel made either way was read by none)."""
    naming = _naming_jit(tree)
    handed = {a.id for node in all_nodes(tree) if isinstance(node, ast.Call)
              and id(node.func) in naming
              for a in [*node.args, *(k.value for k in node.keywords)]
              if isinstance(a, ast.Name)}  # triton.jit(fn=f), partial(triton.jit)(f) (C01)
    return [node for node in all_nodes(tree) if isinstance(node, ast.FunctionDef) and (
        node.name in handed or any(id(d) in naming for d in node.decorator_list))]


@per_tree
def _naming_jit(tree: ast.Module) -> set[int]:
    """The ids of the nodes whose expression names triton.jit anywhere in it
    (`@functools.partial(triton.jit)` decorates with it too: red-team round 7, C04), found
    once a tree, children before parents: walked again under every call of a chain
    `f()()()…` 300 deep, one scan took 73 s (red-team round of 2026-12-08)."""
    aliases, naming = _jit_aliases(tree), set()
    for node in reversed(list(all_nodes(tree))):  # breadth first: children come later
        if isinstance(node, ast.Name | ast.Attribute) and _is_jit(node, aliases) or any(
                id(child) in naming for child in ast.iter_child_nodes(node)):
            naming.add(id(node))
    return naming


def _is_jit(node: ast.AST, aliases: dict[str, str]) -> bool:
    dotted = dotted_name(node)
    head, _, rest = dotted.partition(".")
    path = f"{aliases.get(head, head)}.{rest}" if rest else aliases.get(head, head)
    return dotted.endswith("jit") or path.endswith(".jit")


@per_tree
def _jit_aliases(tree: ast.Module) -> dict[str, str]:
    """Names bound to triton's modules or functions by imports and plain assignments."""
    found: dict[str, str] = {}
    for node in all_nodes(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname: a.name for a in node.names if a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names}
    for node in all_nodes(tree):
        if isinstance(node, ast.Assign) and dotted_name(node.value):
            head, _, rest = dotted_name(node.value).partition(".")
            path = found.get(head, head) + (f".{rest}" if rest else "")
            found |= {t.id: path for t in node.targets if isinstance(t, ast.Name)}
    return found


def module_allowed(name: str) -> bool:
    root, _, rest = name.partition(".")
    if root not in ALLOWED_MODULES:
        return False
    return not any(rest == sub or rest.startswith(sub + ".") for sub in FORBIDDEN_SUBMODULES) \
        and not any(part.startswith("_") for part in rest.split(".") if part)


# Each node's once: the rules ask it of every Attribute, and each of a chain `a.b.c…` 320
# deep recomputed the chain below it (22-53 s of one scan: red-team round of 2026-12-08).
# The cache holds the nodes it answered for, so an id is never another node's meanwhile.
@functools.lru_cache(maxsize=1 << 16)
def dotted_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def module_aliases(tree: ast.Module) -> set[str]:
    """Every local name bound by an import: `import torch as t` makes `t` a module."""
    return set(alias_targets(tree))


@per_tree
def alias_targets(tree: ast.Module) -> dict[str, str]:
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
