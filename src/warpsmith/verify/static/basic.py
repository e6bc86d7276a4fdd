"""The scan's first rules: what a candidate's source must hold (a top-level ModelNew over
nn.Module, a kernel it launches) and the plain ways out it must not take (imports off the
allow-list, dynamic code, introspection, private API, monkeypatching, try/except, the
reference's names, tensor subclasses). What a name really is comes from lookup.py."""

from __future__ import annotations

import ast

from . import lookup
from .base import (
    ALLOWED_MODULES,
    FORBIDDEN_CALLS,
    FORBIDDEN_METHODS,
    REJECT,
    WARN,
    alias_targets,
    all_nodes,
    detect_language,
    dotted_name,
    module_aliases,
    module_allowed,
    rule,
    triton_kernels,
)

# Dunder attributes honest kernel code uses; any other is a way into the runtime.
ALLOWED_DUNDERS = {"__init__", "__name__", "__call__"}
FRAME_ATTRIBUTES = {"f_back", "f_locals", "f_globals", "f_builtins", "f_code", "gi_frame",
                    "cr_frame", "tb_frame", "tb_next", "ag_frame"}
PROTECTED_ROOTS = {"torch", "triton", "tl", "time", "builtins", "F", "nn", "math"}
REFERENCE_NAMES = {"Model", "get_inputs", "get_init_inputs"}


@rule("no-modelnew", REJECT)
def _no_modelnew(tree):
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        yield 0, "defines no top-level class ModelNew"


@rule("modelnew-base", REJECT)
def _modelnew_base(tree):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "ModelNew":
            for base in node.bases:
                if dotted_name(base) not in ("nn.Module", "torch.nn.Module", "Module"):
                    yield node.lineno, "ModelNew subclasses " \
                        f"{dotted_name(base) or 'an expression'}; it must subclass nn.Module only"


@rule("no-kernel", REJECT)
def _no_kernel(tree):
    source = ast.unparse(tree)
    if detect_language(tree, source) == "none":
        yield 0, "no @triton.jit kernel and no CUDA kernel: the work must be done by a kernel"


@rule("kernel-never-launched", REJECT)
def _never_launched(tree):
    # `kernel[grid]`, `self.kernel[grid]`, `ModelNew.kernel[grid]` (a staticmethod kernel in
    # the class body: honest round 11) all launch `kernel`
    launched = {dotted_name(n.value).rsplit(".", 1)[-1] for n in all_nodes(tree)
                if isinstance(n, ast.Subscript)}
    referenced = {n.id for n in all_nodes(tree) if isinstance(n, ast.Name)}
    kernels = triton_kernels(tree)
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
            if not module_allowed(name):
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
    targets = alias_targets(tree)
    for node in all_nodes(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr, root = node.func.attr, dotted_name(node.func).split(".")[0]
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
    modules, names = module_aliases(tree), lookup.bindings(tree)
    for node in all_nodes(tree):
        if isinstance(node, ast.Attribute):
            dotted = dotted_name(node)
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
    modules, reported = module_aliases(tree) | PROTECTED_ROOTS, set()
    for node in all_nodes(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            root = dotted_name(target).split(".")[0]
            if isinstance(target, ast.Attribute) and root in modules:
                reported.add(node.lineno)
                yield node.lineno, f"assigns to {dotted_name(target)}"
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
                dotted_name(b) in ("torch.Tensor", "Tensor") for b in node.bases):
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
        name = dotted_name(node) if isinstance(node, ast.Attribute) else ""
        if name.endswith(("cuda.Stream", "cuda.CUDAGraph", "cuda.graph", "cuda.stream")):
            yield node.lineno, f"uses {name}: side streams and graphs are checked more closely"
