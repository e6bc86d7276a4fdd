"""Static rules for ways out of the scan found by reading it as an outsider (issue 16's second
round): syntax that reads attributes by name without an attribute node, library functions that
evaluate strings or build and load native code, and setters of process-wide torch state that
the baselines timed beside the candidate share. Objects are matched by identity or by the
module that defines them, whatever path or alias reached them. The scan runs them (static.RULES).
"""

from __future__ import annotations

import ast
import builtins
import functools
import sys
import types
from collections.abc import Iterator

from . import lookup
from .base import (
    REJECT,
    WARN,
    all_nodes,
    detect_language,
    dotted_name,
    module_aliases,
    per_tree,
    rule,
    triton_kernels,
)

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
# Modules whose helpers hand back the guard's own objects or the real getattr/setattr under
# names no other rule knows (torch.distributed._local_tensor re-exports the dispatch mode
# stack: the guard's mode, and its record of forbidden ops, cleared at the end of forward;
# torch._dynamo's GetAttrBuiltinVariable._fn is builtins.getattr). No kernel needs them.
UNGUARDED_MODULES = ("torch.distributed", "torch._dynamo")
# singledispatch's register() evaluates a function's annotations with typing.get_type_hints:
# a string annotation is eval() in disguise. torch.save/torch.load under any name write and
# read files (the forbidden-call rule sees them only as `torch.save(...)`).
# triton.language.str_to_ty evals the layout of a "tensordesc<...>" type string (E29).
STRING_EVAL = {"functools.singledispatch", "functools.singledispatchmethod",
               "triton.language.str_to_ty"}
FILE_IO = {"torch.serialization.save", "torch.serialization.load"}
# Modules whose objects write files where the candidate says: Triton's cache manager joins an
# absolute key onto its folder (FileCacheManager("/proc/self/cwd").put(src, "cupy.py") wrote
# a module into the working folder, and `import cupy` ran it unscanned, E53); the others
# create or rewrite files by path.
FILE_IO_MODULES = ("triton.runtime.cache", "torch.utils.file_baton", "torch.utils.hipify",
                   "torch.onnx", "torch.utils.tensorboard")
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
    steps = lookup.walk(path)
    return steps[-1][1] if steps and steps[-1][0] == path else None


def _defined_in(obj) -> str:
    """The module that defines an object (a bound method's function's), or a module's name."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    return getattr(getattr(obj, "__func__", obj), "__module__", None) or ""


def _under(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@per_tree
def _resolved(tree: ast.Module) -> list[tuple[int, str, object]]:
    """(line, path, object) for every step of every dotted reference that resolves (once a
    scan: seven rules read it, and lookup.walk's cache holds fewer paths than a large
    file makes)."""
    return list(_resolved_steps(tree))


def _resolved_steps(tree: ast.Module) -> Iterator[tuple[int, str, object]]:
    seen = set()
    for line, path in _paths(tree):
        for prefix, obj in lookup.walk(path):
            if (line, prefix) not in seen:
                seen.add((line, prefix))
                yield line, prefix, obj


@per_tree
def _paths(tree: ast.Module) -> list[tuple[int, str]]:
    """Dotted references and `from m import name` (lookup.py), and `import m.sub as x`,
    which names a module even if x is never used."""
    return lookup.references(tree) + [(node.lineno, a.name) for node in all_nodes(tree)
                                            if isinstance(node, ast.Import) for a in node.names]


@rule("scan-limit", REJECT)
def _scan_limit(tree):
    """A name that may hold more references than the scan follows (lookup.MAX_PATHS):
    what it holds past them is unread, so the file is refused rather than read in part."""
    for name, paths in sorted(lookup.bindings(tree).items()):
        if any(p.startswith(lookup.OVERFLOW) for p in paths):
            yield 1, (f"{name} may hold more than {lookup.MAX_PATHS} references (module "
                      "attributes, aliases): more than the scan follows")
            return


@rule("class-pattern", REJECT)
def _class_pattern(tree):
    """`match torch: case object(sys=s)` binds s = torch.sys: a class pattern reads attributes
    by name with no attribute node for the other rules to see."""
    for node in all_nodes(tree):
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
        elif _under(_defined_in(obj), UNGUARDED_MODULES):
            yield line, f"uses {path} ({_defined_in(obj)}): its helpers reach the guard's " \
                        "own objects and the runtime"


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
        if any(obj is b for b in banned) or _under(_defined_in(obj), FILE_IO_MODULES):
            yield line, f"uses {path}: files are not a candidate's business"


# A str (or bytes) subclass can lie to the library code that checks a name before pasting it
# into source: make_dataclass asks the field name's own isidentifier(), so an override that
# says True put any Python into the source dataclasses execs (E52). A subclass with nothing
# but constants (an enum's members) cannot lie: only one with methods or computed values is
# refused.
STRING_TYPES = (str, bytes, bytearray)


@rule("str-subclass", REJECT)
def _str_subclass(tree):
    classes, local = lookup.local_subclasses(tree, _is_string_type)
    for node in classes:
        if node.name in local and not _constants_only(node):
            yield node.lineno, f"{node.name} subclasses str or bytes and defines methods, " \
                               "which library code that checks names (isidentifier) calls"


def _is_string_type(base: ast.AST, names, local: set[str]) -> bool:
    if isinstance(base, ast.Name) and (base.id in local or base.id not in names and isinstance(
            getattr(builtins, base.id, None), type) and issubclass(getattr(builtins, base.id),
                                                                   STRING_TYPES)):
        return True
    paths = lookup.paths_of(base, names)
    if lookup.TYPE_OF in paths:  # type("") is str
        return True
    return any(isinstance(o, type) and issubclass(o, STRING_TYPES)
               for o in map(_resolve, paths))


def _constants_only(node: ast.ClassDef) -> bool:
    """A docstring, `pass` and names bound to constants, and nothing else, at any depth."""
    for stmt in node.body:
        if isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and \
                isinstance(stmt.value, ast.Constant):
            continue
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        if not (isinstance(value, ast.Constant) and all(isinstance(t, ast.Name)
                                                         for t in targets)):
            return False
    return True


# Dunder names bound or read outside the places the dunder-method rule looks (a statement
# directly in a class body or the module): `if True: __str__ = f` in a class body defines the
# method all the same, and a class body's `__annotations__["x,<code>"] = int` hands dataclasses
# a field name that is no identifier (E52). Honest kernels use `__name__` and the names the
# dunder-method rule allows.
READABLE_DUNDERS = lookup.ALLOWED_DUNDER_NAMES | {"__name__"}


@rule("dunder-name", REJECT)
def _dunder_name(tree):
    for node in all_nodes(tree):
        for name, stored in _bound_or_read(node):
            allowed = lookup.ALLOWED_DUNDER_NAMES if stored else READABLE_DUNDERS
            if lookup.is_dunder(name) and name not in allowed:
                yield getattr(node, "lineno", 0), f"{'binds' if stored else 'reads'} {name}"\
                    ", a name the runtime gives meaning to (a method, a class's annotations)"


def _bound_or_read(node: ast.AST) -> list[tuple[str, bool]]:
    """(name, bound?) for each plain name the node binds or reads."""
    if isinstance(node, ast.Name):
        return [(node.id, not isinstance(node.ctx, ast.Load))]
    if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        return [(node.name, True)]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [(node.rest, True)]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [(node.name, True)]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name.split(".")[0], True)]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return [(n, True) for n in node.names]
    if isinstance(node, ast.ClassDef):
        return [(node.name, True)]
    if isinstance(node, ast.arg):
        return [(node.arg, True)]
    return []


# Names Python gives a module without a binding in its source.
MODULE_NAMES = {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__",
                "__builtins__", "__annotations__"}


@rule("undefined-name", REJECT)
def _undefined_name(tree):
    """A name read that the file never binds and Python does not provide. An honest file
    stops there with a NameError; one that runs past it found the name written into its
    module at run time: Triton 3.6's interpreter copied its own globals (`inspect`, `np`)
    into a kernel's module at the first launch, and `inspect` reached `sys` (red-team round
    of 2026-12-05, E66). `global x` binds nothing; a star import binds what the module
    exports, and one of a module not loaded here leaves the rule silent."""
    bound = set(dir(builtins)) | MODULE_NAMES
    for node in all_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            bound.add(node.name)
        elif isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            module = sys.modules.get(node.module or "")
            if module is None:
                return
            bound.update(getattr(module, "__all__", None) or dir(module))
        elif not isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(name for name, stored in _bound_or_read(node) if stored)
    seen = set()
    for node in all_nodes(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                node.id not in bound and node.id not in seen:
            seen.add(node.id)
            yield node.lineno, (f"reads {node.id}, a name this file never defines (only "
                                "something that writes into the module at run time makes it)")


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
    for node in all_nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr == "handle":
            yield node.lineno, "reaches .handle, the Triton interpreter's NumPy backing store"


# torch objects that switch torch-function or torch-dispatch modes off, or exclude a dispatch
# key, for what runs inside them: `with torch.ExcludeDispatchKeyGuard(DispatchKeySet(Python))`
# hides every ATen op from the dispatch guard, `with torch.DisableTorchFunction()` the host
# reads of tensor data (E57). torch re-exports some under public names; matched by identity,
# whatever the path. DispatchKey and DispatchKeySet only name keys to switch off.
MODE_SWITCHES = (
    "DisableTorchFunction", "DisableTorchFunctionSubclass", "ExcludeDispatchKeyGuard",
    "_ExcludeDispatchKeyGuard", "_IncludeDispatchKeyGuard", "_ForceDispatchKeyGuard",
    "_PreserveDispatchKeyGuard", "_SetExcludeDispatchKeyGuard", "_AutoDispatchBelowAutograd",
    "_AutoDispatchBelowADInplaceOrView", "_DisableTorchDispatch", "_DisablePythonDispatcher",
    "_EnablePythonDispatcher", "_EnablePreDispatch", "_EnableTorchFunction", "_DisableFuncTorch",
    "_RestorePythonTLSSnapshot", "_dispatch_tls_set_dispatch_key_excluded",
    "_dispatch_tls_set_dispatch_key_included", "_set_torch_function_state",
    "_pop_torch_function_stack", "_push_on_torch_function_stack", "_pop_torch_dispatch_stack",
    "_push_on_torch_dispatch_stack", "_set_dispatch_mode", "_unset_dispatch_mode",
    "_set_skip_next_torch_function", "_skip_one_hop_torch_function",
    "_disabled_torch_function_impl", "_disabled_torch_dispatch_impl", "DispatchKey",
    "DispatchKeySet")
MODE_SWITCH_HELPERS = ("torch.utils._python_dispatch._disable_current_modes",
                       "torch.utils._python_dispatch._pop_mode_temporarily",
                       "torch.overrides._pop_mode_temporarily")


@functools.lru_cache(maxsize=1)
def mode_switches() -> tuple[object, ...]:
    """The switches themselves (torch._C's objects, torch's Python helpers): the static walk
    stops at private modules, so they are taken from torch here, never from the candidate."""
    import importlib

    import torch

    found = [getattr(torch._C, name) for name in MODE_SWITCHES if hasattr(torch._C, name)]
    for path in MODE_SWITCH_HELPERS:
        module, _, name = path.rpartition(".")
        try:
            owner = importlib.import_module(module)
        except ImportError:
            continue
        found += [getattr(owner, name)] if hasattr(owner, name) else []
    return tuple(found)


@rule("mode-switch", REJECT)
def _mode_switch(tree):
    banned = mode_switches()
    for line, path, obj in _resolved(tree):
        if any(obj is b for b in banned):
            yield line, f"uses {path}, which switches the torch-function or dispatch modes " \
                        "(the op guard) or a dispatch key off"


# A code object rebuilt (`code.replace(co_names=...)`) and called as a function (`type(fn)(code,
# {})`) ran an import with no import statement, no compile and no attribute node the other
# rules know (E58). Code objects are reached through these attributes, made by replace().
CODE_ATTRIBUTES = {"gi_code", "cr_code", "ag_code", "f_code", "co_code", "co_names",
                   "co_consts", "co_varnames", "co_filename", "co_name", "co_qualname",
                   "co_lines", "co_positions", "co_exceptiontable", "co_linetable"}


@rule("code-object", REJECT)
def _code_object(tree):
    for node in all_nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr in CODE_ATTRIBUTES:
            yield node.lineno, f"reaches .{node.attr}: code objects are not a candidate's business"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "replace" and any(
                    k.arg is None or k.arg.startswith("co_") for k in node.keywords):
            yield node.lineno, "rebuilds a code object with replace(co_...)"


# Classes and functions made by calling a type found at run time: `type(fn)(code, globals)` is
# FunctionType, `type(type)("T", (torch.Tensor,), ns)` a class no class statement shows (a
# Tensor subclass whose handlers run inside allowed ops), make_dataclass(bases=...) and the
# functional Enum API's type= the same with a library's help (E58).
CLASS_FACTORIES = {"dataclasses.make_dataclass": ("bases", "namespace"),
                   "enum.Enum": ("type",), "enum.IntEnum": ("type",), "enum.Flag": ("type",),
                   "enum.IntFlag": ("type",), "enum.StrEnum": ("type",)}


@rule("run-time-type", REJECT)
def _run_time_type(tree):
    names = lookup.bindings(tree)
    _, returns = lookup.reference_bindings(tree)
    factories = {id(_resolve(p)): kw for p, kw in CLASS_FACTORIES.items()
                 if _resolve(p) is not None}
    for node in (n for n in all_nodes(tree) if isinstance(n, ast.Call)):
        paths = lookup.paths_of(node.func, names, returns)
        if lookup.TYPE_OF in paths or _is_type_call(node.func):
            yield node.lineno, "calls a type found at run time (type(x)(...)): functions and " \
                               "classes made that way are code no rule has read"
        for kw in {k for p in paths for k in factories.get(id(_resolve(p)), ())}:
            if any(k.arg in (kw, None) for k in node.keywords):
                yield node.lineno, f"passes {kw}= to {sorted(paths)[0]}: a class built at " \
                                   "run time"


# Library functions that write a class's members into the globals of the module its
# `__module__` names, and the functional Enum API takes that name as a plain string:
# `enum.global_enum(enum.StrEnum("A", [("ALWAYS_ALLOWED", "mm ...")], module="warpsmith.
# verify.child.dispatch"))` replaced the op guard's allow-list with a string, so its
# membership test became a substring test (red-team round 8, E81). Refused by name wherever
# the name appears (an attribute, a name, an import), and `module=` on the class factories
# with it: a class placed in another module is no candidate's business.
MODULE_WRITERS = {"global_enum", "global_enum_repr", "global_flag_repr", "global_str",
                  "_convert_", "_old_convert_"}


@rule("module-write", REJECT)
def _module_write(tree):
    names = lookup.bindings(tree)
    _, returns = lookup.reference_bindings(tree)
    factories = {id(obj) for p in (*CLASS_FACTORIES, "collections.namedtuple",
                                   "typing.NamedTuple", "typing.TypedDict")
                 if (obj := _resolve(p)) is not None}
    for node in all_nodes(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(
            node, ast.Name) else node.name if isinstance(node, ast.alias) else None
        if name in MODULE_WRITERS:
            yield getattr(node, "lineno", 0), f"uses {name}: it writes into the globals of " \
                                              "a module named by a string"
        if isinstance(node, ast.Call) and any(k.arg in ("module", None) for k in node.keywords) \
                and any(id(_resolve(p)) in factories for p in
                        lookup.paths_of(node.func, names, returns)):
            yield node.lineno, "passes module= to a class factory: a class placed in " \
                               "another module"


def _is_type_call(func: ast.AST) -> bool:
    return isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and \
        func.func.id == "type"


# Attribute names under which an allowed module holds a module off the allow-list that reaches
# the OS or the runtime (torch.sys, torch.os, torch._C, F.np, …), or a mode switch. Through a
# plain path the module-reach and mode-switch rules see them; through an expression the scan
# cannot resolve (`(lambda m: m)(torch).sys`, `[torch][0].os`, a parameter `m.os`), the name
# is all there is to judge by (E59). Honest kernels read none of these off anything.
REACH_NAMES = {
    "sys", "_sys", "os", "_osp", "builtins", "bltns", "subprocess", "ctypes", "importlib",
    "gc", "inspect", "types", "_thread", "threading", "multiprocessing", "mp", "signal",
    "shutil", "pathlib", "tempfile", "io", "pickle", "copyreg", "linecache", "dis", "ast",
    "traceback", "platform", "sysconfig", "pkgutil", "np", "numpy", "weakref", "contextvars",
    "concurrent", "glob", "tarfile", "marshal", "runpy", "socket", "posix", "_C", "_VF",
    "_ops", "_python_dispatch", "_mode_utils", "_library", "_custom_ops", "_custom_op",
    "_dispatch", "_subclasses", "_utils_internal", "_import_utils", "_weights_only_unpickler",
    "library", "overrides", "modules", "environ", "ExcludeDispatchKeyGuard",
    "DisableTorchFunction", "DisableTorchFunctionSubclass", "DispatchKeySet", "DispatchKey",
    "fx", "ao", "distributed", "experimental", "proxy_tensor"}


# Any module of the standard library may be held by an allowed module under its own name
# (`typing.contextlib`: its suppress() swallowed the interpreter's refusal of an out-of-bounds
# store, red-team round 13, A10); a deny-list of the dangerous ones is never complete. Read
# off an expression the scan cannot resolve and not called (a method of that name is:
# `x.select(0, 1)`, `d.copy()`), such a name is judged as REACH_NAMES are.
STDLIB_MODULES = frozenset(sys.stdlib_module_names) - {"math", "this", "__future__"}


@rule("expression-reach", REJECT)
def _expression_reach(tree):
    names = lookup.bindings(tree)
    _, returns = lookup.reference_bindings(tree)
    called = {id(n.func) for n in all_nodes(tree) if isinstance(n, ast.Call)}
    for node in all_nodes(tree):
        if not isinstance(node, ast.Attribute) or not (
                node.attr in REACH_NAMES or node.attr in STDLIB_MODULES and id(node) not in called):
            continue
        # a plain dotted path (`torch.sys`, `m.os` of an imported m) is the other rules'
        if not dotted_name(node.value) or not lookup.paths_of(node.value, names, returns):
            yield node.lineno, f"reads .{node.attr} off {ast.unparse(node.value)[:60]}, which " \
                               "the scan cannot resolve: modules off the allow-list are " \
                               "reached that way"


# A private name read or written off an expression the scan cannot resolve: a function that
# returns its argument (`same(torch)._dynamo.variables.GetAttrBuiltinVariable._fn` is the real
# getattr), a list, a parameter. Behind private names torch keeps the runtime, the mode stack
# (`.distributed._local_tensor._get_current_dispatch_mode_stack()` handed back the guard's own
# mode, E69) and the real builtins; a deny-list of them is never complete. A candidate's own
# private attributes stay its own: `self._x` inside a method of a class of the file, where the
# file writes `self._x` and never rebinds `self`.
@rule("private-reach", REJECT)
def _private_reach(tree):
    modules = module_aliases(tree)
    own = _own_private_attributes(tree)
    methods_self, methods = _method_self_names(tree)
    for node in all_nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr in methods and \
                id(node.value) not in methods_self and not _is_super(node.value):
            yield node.lineno, f"reads the method .{node.attr} off " \
                               f"{ast.unparse(node.value)[:60]}: called that way its self " \
                               "is whatever the caller passes, and it reads private names"
        if isinstance(node, ast.Name) and node.id in methods and \
                isinstance(node.ctx, ast.Load):  # `grab = reach` in the class body (round 6)
            yield node.lineno, f"names the method {node.id} as a value: its self would be " \
                               "whatever the caller passes, and it reads private names"
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        if dotted_name(node).split(".")[0] in modules:
            continue  # a dotted path off an imported module: the private-api rule's
        if id(node.value) in methods_self and node.attr in own:
            continue
        yield node.lineno, f"reaches .{node.attr} off {ast.unparse(node.value)[:60]}, which " \
                           "the scan cannot resolve: private names are the runtime's, not a " \
                           "candidate's (name your own attributes self.{name} in a method)"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_private_attributes(tree) -> set[str]:
    """Private attribute names the file writes on `self`, and the private methods its classes
    define (`def _normalize(self, x)` called as `self._normalize(x)`: the commonest shape of
    LLM-written code, refused before: honest round 11), unless nn.Module has one of that
    name (an override of torch's own machinery is no name of the candidate's)."""
    written = {t.attr for node in all_nodes(tree) if isinstance(node, ast.Assign | ast.AugAssign
                                                               | ast.AnnAssign)
               for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
               if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
               and t.value.id == "self" and _private(t.attr)}
    defined = {fn.name for cls in all_nodes(tree) if isinstance(cls, ast.ClassDef)
               for fn in cls.body if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
               and _private(fn.name)}
    if not defined:
        return written
    import torch  # here, not at import: the scan's module loads without torch

    return written | {name for name in defined if not hasattr(torch.nn.Module, name)}


def _method_self_names(tree) -> tuple[set[int], set[str]]:
    """ids of the `self` Name nodes inside methods defined in a class body whose first
    parameter is `self` and which never rebind it (a nested function's `self` is its own), and
    the names of those methods that read a private name off it (read off anything but `self`
    or super(), such a method runs with a self the caller chose: `A.go(torch)`)."""
    found, methods = set(), set()
    for cls in (n for n in all_nodes(tree) if isinstance(n, ast.ClassDef)):
        for fn in cls.body:
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or not fn.args.args \
                    or fn.args.args[0].arg != "self" or fn.decorator_list:
                continue
            uses = [n for n in _own_scope(fn) if isinstance(n, ast.Name) and n.id == "self"]
            if all(isinstance(n.ctx, ast.Load) for n in uses) and not _rebinds_self(fn):
                found |= {id(n) for n in uses}
                methods |= {fn.name} if any(
                    isinstance(n, ast.Attribute) and _private(n.attr) and isinstance(
                        n.value, ast.Name) and n.value.id == "self"
                    for n in _own_scope(fn)) else set()
    return found, methods


def _rebinds_self(fn) -> bool:
    """Whether the method binds `self` by a form that is no Name store: a match pattern's
    capture (`case self:` made self any object: red-team round 6, B01), an import's alias,
    an except clause's name, a global or nonlocal declaration."""
    for node in _own_scope(fn):
        names = []
        if isinstance(node, ast.MatchAs | ast.MatchStar):
            names = [node.name]
        elif isinstance(node, ast.MatchMapping):
            names = [node.rest]
        elif isinstance(node, ast.alias):
            names = [node.asname or node.name]
        elif isinstance(node, ast.ExceptHandler):
            names = [node.name]
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names = node.names
        if "self" in names:
            return True
    return False


def _is_super(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
        expr.func.id == "super" and not expr.args


def _own_scope(fn) -> Iterator[ast.AST]:
    """The nodes of a function's body, not those of functions, lambdas or classes inside it."""
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        yield node
        todo += [c for c in ast.iter_child_nodes(node) if not isinstance(
            c, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef)]


# An integer made a pointer inside a kernel: under the interpreter a pointer is a host address,
# so the kernel reads and writes any memory of the worker's (the guard's state, the report);
# on a GPU, any device address. Inline assembly is native code the interpreter cannot run
# (E60). A cast to a pointer argument's own `.dtype` is the same cast without the name.
POINTER_MAKERS = {"pointer_type", "int_to_ptr", "create_int_to_ptr", "inline_asm_elementwise",
                  "inline_asm", "ptr_type"}
CASTS = {"to", "cast", "bitcast"}


@rule("pointer-cast", REJECT)
def _pointer_cast(tree):
    if detect_language(tree, "") != "triton":
        return
    for node in all_nodes(tree):
        name = node.attr if isinstance(node, ast.Attribute) else \
            node.id if isinstance(node, ast.Name) else None
        if name in POINTER_MAKERS:
            yield node.lineno, f"uses {name}: an integer made a pointer (or native assembly) " \
                               "reads and writes any address"
        elif isinstance(node, ast.Call) and _cast_to_pointer_dtype(node):
            yield node.lineno, "casts to a pointer argument's dtype: an integer made a pointer"


def _cast_to_pointer_dtype(call: ast.Call) -> bool:
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in CASTS):
        return False
    targets = [*call.args, *(k.value for k in call.keywords if k.arg in ("dtype", "dst_ty"))]
    return any(isinstance(t, ast.Attribute) and t.attr in ("dtype", "type") and
               "ptr" in ast.unparse(t.value).lower() for t in targets)


# str.format resolves `{0.attr}` and `{0[key]}` fields by name at run time: getattr in a
# string, no attribute node for any rule (`"{0.handle.data}".format(block)` reached the
# interpreter's NumPy arrays, E60). A format string that is not a literal may hold such a
# field; in a Triton candidate that is refused too (a CUDA candidate's source template is a
# literal or an f-string, whose expressions the scan reads).
@rule("format-field", REJECT)
def _format_field(tree):
    import string

    triton = detect_language(tree, "") == "triton"
    for node in all_nodes(tree):
        if not (isinstance(node, ast.Attribute) and node.attr in ("format", "format_map")):
            continue
        literal = node.value.value if isinstance(node.value, ast.Constant) and \
            isinstance(node.value.value, str) else None
        if literal is None and triton:
            yield node.lineno, f"calls .{node.attr} on a string built at run time: its " \
                               "fields may read attributes by name"
        elif literal is not None and _field_access(literal, string.Formatter()):
            yield node.lineno, "a format field reads an attribute or an item by name " \
                               "({0.x}, {0[k]}): getattr in a string"


def _field_access(text: str, formatter) -> bool:
    try:
        fields = [(f or "") + (s or "") for _, f, s, _ in formatter.parse(text)]
    except ValueError:
        return True  # a string str.format itself refuses to read is no honest template
    return any("." in f or "[" in f or "{" in f for f in fields)


# Split-row partial sums added into one address with a plain load and store are exact when the
# interpreter runs programs one after another, and lose updates when a GPU runs them at once
# (E60). Whether programs share the address is a question of values, not of the text: a
# load and a store of one scalar address (no tl.arange in it) in one kernel is flagged for a
# GPU to judge. Atomics (tl.atomic_add) are the race-free way and are not flagged. Addresses
# compare by the names they are made of, aliases followed: `out_ptr + row` and `row + out_ptr`
# were two texts and no warning (red-team round of 2026-12-05).
@rule("cross-program-rmw", WARN)
def _cross_program_rmw(tree):
    for kernel in triton_kernels(tree):
        vectors = _names_with_arange(kernel)
        made_of = _sources(kernel, vectors)
        loads = {made_of(_pointer(c))[0] for c in _calls_to(kernel, "load")}
        for call in _calls_to(kernel, "store"):
            pointer = _pointer(call)
            text = ast.unparse(pointer)
            roots, through_vector = made_of(pointer)
            if roots in loads and "arange" not in text and not through_vector:
                yield call.lineno, f"loads and stores {text} in {kernel.name}: a " \
                                   "read-modify-write of one address that several programs " \
                                   "may share races on a GPU (the CPU interpreter runs " \
                                   "programs one at a time): only a GPU can judge it"


def _calls_to(kernel: ast.FunctionDef, name: str) -> list[ast.Call]:
    return [n for n in ast.walk(kernel) if isinstance(n, ast.Call) and n.args and
            isinstance(n.func, ast.Attribute) and n.func.attr == name]


def _pointer(call: ast.Call) -> ast.AST:
    return call.args[0]


def _sources(kernel: ast.FunctionDef, vectors: set[str] = frozenset()):
    """A function of an expression: (the kernel's arguments and other unassigned names it is
    made of, through the kernel's assignments (`p = out_ptr + row`: p is out_ptr and row);
    whether any name met on the way is one of `vectors`).

    Each name's answer is computed once, over the graph of what each name is assigned from
    (its strongly connected components, in one iterative pass), roots as a bitset: following
    the assignments afresh for every load and store was quadratic in a long kernel (a chain
    `p1 = p0 + 1`, `p2 = p1 + 1`, ... with a load and a store on every line: 17 s of this rule
    at the scan's size bound, red-team round 15, E110)."""
    assigned: dict[str, set[str]] = {}
    for n in ast.walk(kernel):
        if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign) and n.value is not None:
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                if isinstance(t, ast.Name):
                    assigned.setdefault(t.id, set()).update(
                        x.id for x in ast.walk(n.value) if isinstance(x, ast.Name))
    bit: dict[str, int] = {}  # an unassigned name's bit
    answer: dict[str, tuple[int, bool]] = {}  # name -> (roots as bits, a vector met)

    def solve(start: str) -> tuple[int, bool]:
        # Tarjan's strongly connected components, iteratively (a chain is deeper than the
        # interpreter's stack): every name of a component reaches what the others reach
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        work = [(start, iter(sorted(assigned.get(start, ()))))]
        index[start] = low[start] = 0
        stack.append(start)
        on_stack.add(start)
        while work:
            name, successors = work[-1]
            for nxt in successors:
                if nxt in answer:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(assigned.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[name] = min(low[name], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[name])
                if low[name] == index[name]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == name:
                            break
                    roots, vector = 0, False
                    for member in members:
                        vector = vector or member in vectors
                        if member not in assigned:
                            roots |= bit.setdefault(member, 1 << len(bit))
                            continue
                        for nxt in assigned[member]:
                            if nxt in answer:
                                roots |= answer[nxt][0]
                                vector = vector or answer[nxt][1]
                    for member in members:
                        answer[member] = (roots, vector)
        return answer[start]

    def made_of(expr: ast.AST) -> tuple[int, bool]:
        roots, vector = 0, False
        for x in ast.walk(expr):
            if isinstance(x, ast.Name):
                found = answer.get(x.id) or solve(x.id)
                roots |= found[0]
                vector = vector or found[1]
        return roots, vector
    return made_of


def _names_with_arange(kernel: ast.FunctionDef) -> set[str]:
    """Names assigned (to a fixpoint) from an expression holding tl.arange or such a name."""
    found: set[str] = set()
    assigns = [(t.id, n.value) for n in ast.walk(kernel) if isinstance(n, ast.Assign)
               for t in n.targets if isinstance(t, ast.Name)]
    for _ in range(4):
        for name, value in assigns:
            text = ast.unparse(value)
            used = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
            if "arange" in text or used & found:
                found.add(name)
    return found
