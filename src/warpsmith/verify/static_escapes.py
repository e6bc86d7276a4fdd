"""Static rules for ways out of the scan found by reading it as an outsider (issue 16's second
round): syntax that reads attributes by name without an attribute node, library functions that
evaluate strings or build and load native code, and setters of process-wide torch state that
the baselines timed beside the candidate share. Objects are matched by identity or by the
module that defines them, whatever path or alias reached them. Registered into static.RULES.
"""

from __future__ import annotations

import ast
import functools
import types
from collections.abc import Iterator

from . import static_rules
from .static import REJECT, detect_language, rule

# Native code in the candidate's process defeats every in-process guard, and a child process
# computes where no guard looks (it can read and write the worker's memory through
# /proc/<pid>/mem: same uid). Objects defined in these modules build or load native code or
# start processes: C++ through torch's extension builder (allowed only for CUDA C++
# candidates, which run on a GPU only), C through Triton's module builder, shell commands.
NATIVE_MODULES = ("torch.utils.cpp_extension", "torch.utils.collect_env", "torch.backends.xeon",
                  "torch._classes", "triton.runtime.build", "triton.tools", "triton.backends")
NATIVE_OBJECTS = {"torch.cuda.CUDAPluggableAllocator",  # each loads a shared library
                  "torch.cuda.change_current_allocator", "torch.xpu.XPUPluggableAllocator"}
CUDA_BUILDER = "torch.utils.cpp_extension"
# Code generators that paste strings a candidate controls into Python source they exec: fx
# writes a call_method target or a submodule's name (add_module accepts quotes and brackets)
# that is not an identifier verbatim into `getattr(x, "...")` of the forward it compiles, so
# `'contiguous"), exec(bytes([...])), getattr(a, "contiguous'` runs any code, built at run time
# where no rule sees it (E29: it switched the dispatch guard off and passed torch.relu).
# torch.ao's quantization traces the candidate's modules with fx.
CODEGEN_MODULES = ("torch.fx", "torch.ao")
# singledispatch's register() evaluates a function's annotations with typing.get_type_hints:
# a string annotation is eval() in disguise. torch.save/torch.load under any name write and
# read files (the forbidden-call rule sees them only as `torch.save(...)`).
# triton.language.str_to_ty evals the layout of a "tensordesc<...>" type string (E29).
STRING_EVAL = {"functools.singledispatch", "functools.singledispatchmethod",
               "triton.language.str_to_ty"}
FILE_IO = {"torch.serialization.save", "torch.serialization.load"}
# Process-wide state that eager PyTorch and torch.compile read when they are timed beside the
# candidate: a candidate that turns off flash attention, cuDNN or TF32, turns the NaN fill
# back on or grad mode on for them, slows the baselines and inflates its own speedup.
STATE_SETTERS = {
    "torch.set_deterministic_debug_mode", "torch.set_float32_matmul_precision",
    "torch.set_default_dtype", "torch.set_default_device", "torch.set_default_tensor_type",
    "torch.set_num_threads", "torch.set_num_interop_threads", "torch.set_flush_denormal",
    "torch.set_warn_always", "torch.autograd.grad_mode.set_grad_enabled",
    "torch.autograd.anomaly_mode.set_detect_anomaly", "torch.set_anomaly_enabled",
    "torch.cuda.set_sync_debug_mode", "torch.cuda.set_per_process_memory_fraction"}
BACKEND_SETTERS = ("set_", "enable_", "disable_", "preferred_", "flags", "sdp_kernel")


@functools.lru_cache(maxsize=8)
def _objects(paths: frozenset[str]) -> tuple[object, ...]:
    return tuple(obj for p in paths for obj in [_resolve(p)] if obj is not None)


def _resolve(path: str):
    steps = static_rules.walk(path)
    return steps[-1][1] if steps and steps[-1][0] == path else None


def _defined_in(obj) -> str:
    """The module that defines an object (a bound method's function's), or a module's name."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    return getattr(getattr(obj, "__func__", obj), "__module__", None) or ""


def _under(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _resolved(tree: ast.Module) -> Iterator[tuple[int, str, object]]:
    """(line, path, object) for every step of every dotted reference that resolves."""
    seen = set()
    for line, path in _paths(tree):
        for prefix, obj in static_rules.walk(path):
            if (line, prefix) not in seen:
                seen.add((line, prefix))
                yield line, prefix, obj


def _paths(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Dotted references and `from m import name` (static_rules), and `import m.sub as x`,
    which names a module even if x is never used."""
    yield from static_rules._references(tree, static_rules.bindings(tree))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names)


@rule("class-pattern", REJECT)
def _class_pattern(tree):
    """`match torch: case object(sys=s)` binds s = torch.sys: a class pattern reads attributes
    by name with no attribute node for the other rules to see."""
    for node in ast.walk(tree):
        if isinstance(node, ast.MatchClass):
            yield node.lineno, "a class pattern in match/case reads attributes by name " \
                               "(getattr in disguise)"


@rule("native-code", REJECT)
def _native_code(tree):
    modules = NATIVE_MODULES
    if detect_language(tree, ast.unparse(tree)) == "cuda":  # load_inline is its build path
        modules = tuple(m for m in NATIVE_MODULES if m != CUDA_BUILDER)
    banned = _objects(frozenset(NATIVE_OBJECTS))
    for line, path, obj in _resolved(tree):
        if _under(_defined_in(obj), modules) or any(obj is b for b in banned):
            yield line, f"uses {path} ({_defined_in(obj)}): native code and child processes " \
                        "run where no guard looks"


@rule("string-eval", REJECT)
def _string_eval(tree):
    banned = _objects(frozenset(STRING_EVAL))
    for line, path, obj in _resolved(tree):
        if any(obj is b for b in banned):
            yield line, f"uses {path}, which evaluates strings (annotations, types) as code"


@rule("code-generation", REJECT)
def _code_generation(tree):
    for line, path, obj in _resolved(tree):
        if _under(_defined_in(obj), CODEGEN_MODULES):
            yield line, f"uses {path} ({_defined_in(obj)}), which compiles source built from " \
                        "strings (names, targets) into code: exec in disguise"


# True inside a torch-function mode: the dispatch guard of every checked call and of each
# timed block's watched call, so a kernel honest only where it is true is watched nowhere it
# cheats (E20: torch.relu in the other timed calls passed). torch.nn.functional and
# torch.functional re-export them under public names.
GUARD_PROBES = ("_has_torch_function", "_has_torch_function_unary",
                "_has_torch_function_variadic", "_is_torch_function_enabled",
                "_is_torch_function_mode_enabled")


@functools.lru_cache(maxsize=1)
def _guard_probes() -> tuple[object, ...]:
    import torch  # the torch._C functions themselves: the walk stops at private modules

    return tuple(getattr(torch._C, name) for name in GUARD_PROBES if hasattr(torch._C, name))


@rule("guard-probe", REJECT)
def _guard_probe(tree):
    banned = _guard_probes()
    for line, path, obj in _resolved(tree):
        if any(obj is b for b in banned):
            yield line, f"uses {path}, which tells a watched call from the others"


@rule("file-io", REJECT)
def _file_io(tree):
    banned = _objects(frozenset(FILE_IO))
    for line, path, obj in _resolved(tree):
        if any(obj is b for b in banned):
            yield line, f"uses {path}: files are not a candidate's business"


@rule("global-state", REJECT)
def _global_state(tree):
    banned = _objects(frozenset(STATE_SETTERS))
    for line, path in dict.fromkeys(_paths(tree)):
        # by name under torch.backends: cudnn's module is a proxy the static walk cannot see
        # into, so `torch.backends.cudnn.set_flags` never resolves to an object
        head, _, last = path.rpartition(".")
        obj = _resolve(path)
        if obj is not None and any(obj is b for b in banned) or \
                _under(head, ("torch.backends",)) and last.startswith(BACKEND_SETTERS):
            yield line, f"uses {path}: process-wide torch state is shared with the baselines"


@rule("interpreter-internals", REJECT)
def _interpreter_internals(tree):
    """Under TRITON_INTERPRET a kernel's values are NumPy arrays behind `.handle`: NumPy
    computing there passes on the CPU and is no kernel on a GPU."""
    if detect_language(tree, "") != "triton":
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "handle":
            yield node.lineno, "reaches .handle, the Triton interpreter's NumPy backing store"
