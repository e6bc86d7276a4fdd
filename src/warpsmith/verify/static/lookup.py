"""Static rules that need to know what a name really is (issue 16's exploit classes).

`torch.os` is the real `os`, `T = torch.Tensor` makes `T` a protected class, and a class whose
`__iter__` runs when the worker walks the outputs computes after the dispatch guard closed.
The scan resolves each dotted path against the real allowed modules in the scanning process,
statically (`inspect.getattr_static`): nothing of the candidate is imported or run, and no
descriptor or module `__getattr__` of the library runs either. The scan runs them (static.RULES).
"""

from __future__ import annotations

import ast
import builtins
import collections
import importlib
import importlib.util
import inspect
import sys
import types
import typing
from collections.abc import Iterator
from functools import lru_cache

from .base import (
    FORBIDDEN_CALLS,
    FORBIDDEN_METHODS,
    REJECT,
    all_nodes,
    dotted_name,
    module_allowed,
    per_tree,
    rule,
)

MISSING = object()
# Paths bound to these hold a class or module the harness relies on, whatever the name.
TYPE_OF = "builtins.type()"
# Dunder methods honest kernels define; any other runs when Python, torch or the worker touches
# the object (flattening outputs, printing, hashing, comparing), outside the dispatch guard.
ALLOWED_DUNDER_DEFS = {"__init__", "__post_init__", "__call__"}
ALLOWED_DUNDER_NAMES = {"__slots__", "__all__", "__doc__", "__version__"}
DUNDER_STRINGS = {"__main__"}  # `if __name__ == "__main__":`
# Attribute access by a string decided at run time, and eval in disguise.
BY_STRING_NAMES = {"getattr", "setattr", "delattr", "vars", "globals", "locals", "eval",
                   "exec", "breakpoint", "open", "attrgetter", "methodcaller",
                   "get_type_hints", "ForwardRef", "memoryview", "bytes", "bytearray",
                   "update_wrapper", "wraps"}
# functools.update_wrapper and wraps copy attributes named by strings, and by default the
# wrapped object's whole __dict__: wraps(torch)(obj) made obj.os the real os (E55)
BY_STRING_ATTRS = {"attrgetter", "methodcaller", "get_type_hints", "ForwardRef",
                   "getattr_static", "update_wrapper", "wraps"}
# Host copies of a tensor's data, reached bound or unbound (`torch.Tensor.tolist(x)`).
HOST_ATTRS = {"tolist", "numpy", "apply_", "map_", "map2_", "untyped_storage", "storage",
              "typed_storage", "set_printoptions", "from_numpy", "frombuffer", "from_file"}
# Registering an op implementation: its body runs inside the dispatcher, where the guard's
# mode is switched off, and a custom op can be named like an allowed one.
CUSTOM_OP_PATHS = ("torch.library", "torch.ops.load_library", "torch.ops.import_module")
CUSTOM_OP_ATTRS = {"py_impl", "py_kernels", "register_fake", "register_kernel",
                   "register_autograd", "register_torch_dispatch", "register_vmap"}
CONTAINERS = (dict, list, tuple, set, frozenset, collections.deque, collections.UserDict,
              collections.UserList)


# The dotted paths one name may hold: honest code holds a handful. Past it a name holds
# OVERFLOW too (scan-limit, escapes.py): `x1 = (x0.nn, x0.cuda)`, `x2 = (x1.nn, ...)`
# doubled them a line, and 18 lines kept the trusted process scanning for 12 minutes before
# any deadline began (red-team round 13).
MAX_PATHS = 64
OVERFLOW = "<more-references-than-the-scan-follows>"


@per_tree
def bindings(tree: ast.Module) -> dict[str, set[str]]:
    """Local name -> the dotted paths it may hold: from imports, then from names bound to a
    plain reference (`T = torch.Tensor`, `for m in (torch.os,)`, `def f(E=torch.os.environ)`,
    `x := ...`, a function returning one), to a fixpoint; at most MAX_PATHS a name."""
    names: dict[str, set[str]] = collections.defaultdict(set)
    for node in all_nodes(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                local = a.asname or a.name.split(".")[0]
                names[local].add(a.name if a.asname else local)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                names[a.asname or a.name].add(f"{node.module}.{a.name}")
    pairs, returns = reference_bindings(tree)
    for _ in range(6):  # paths grow by one attribute a round at most; six is plenty
        returns.memo.clear()  # a round reads what the last one bound
        before = sum(map(len, names.values()))
        for target, value in pairs:
            names[target] |= paths_of(value, names, returns)
            if len(names[target]) > MAX_PATHS:
                names[target] = set(sorted(names[target])[:MAX_PATHS]) | {OVERFLOW}
        if sum(map(len, names.values())) == before:
            break
    returns.memo.clear()
    return names


class Returns(collections.defaultdict):
    """A function's name -> the expressions it returns, and their paths (`paths`) remembered
    for one `names`: a function of 6000 returns called on 3000 lines was read again at every
    call, 18 million steps of one scan (red-team round of 2026-12-08)."""

    def __init__(self):
        super().__init__(list)
        self.memo: dict[tuple[str, int], set[str]] = {}

    def paths(self, name: str, names: dict[str, set[str]]) -> set[str]:
        key = (name, id(names))
        if key not in self.memo:
            self.memo[key] = set().union(*(paths_of(r, names) for r in self.get(name, ())))
        return set(self.memo[key])


@per_tree
def reference_bindings(tree: ast.Module):
    pairs, returns = [], Returns()
    for node in all_nodes(tree):
        if isinstance(node, ast.Assign):
            pairs += [(n, node.value) for t in node.targets for n in _target_names(t)]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
            pairs += [(n, node.value) for n in _target_names(node.target)]
        elif isinstance(node, ast.For | ast.comprehension):
            pairs += [(n, node.iter) for n in _target_names(node.target)]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            pairs += [(n, node.context_expr) for n in _target_names(node.optional_vars)]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            pairs += _default_bindings(node.args)
            if isinstance(node, ast.Lambda):
                continue
            returns[node.name] += [n.value for n in ast.walk(node)
                                   if isinstance(n, ast.Return) and n.value is not None]
    for node in all_nodes(tree):  # `get = lambda: torch.Tensor` returns a reference too
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for t in node.targets:
                for n in _target_names(t):
                    returns[n].append(node.value.body)
    return pairs, returns


def _default_bindings(args: ast.arguments) -> list[tuple[str, ast.AST]]:
    positional = args.posonlyargs + args.args
    pairs = list(zip([a.arg for a in positional[len(positional) - len(args.defaults):]],
                     args.defaults, strict=True))
    return pairs + [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                    if d]


def _target_names(target: ast.AST) -> list[str]:
    """Names a target binds: `a`, `a, *b`; not `self` in `self.x = …`, which binds no name."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for t in target.elts for n in _target_names(t)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def paths_of(expr: ast.AST, names: dict[str, set[str]], returns=None) -> set[str]:
    """The dotted paths an expression may evaluate to (empty where it computes a new value)."""
    if isinstance(expr, ast.Name):
        return set(names.get(expr.id, ()))
    if isinstance(expr, ast.Attribute):
        return {f"{p}.{expr.attr}" for p in paths_of(expr.value, names, returns)}
    if isinstance(expr, ast.Tuple | ast.List | ast.Set | ast.Starred | ast.Subscript
                  | ast.IfExp | ast.BoolOp | ast.NamedExpr):
        parts = [getattr(expr, "value", None), getattr(expr, "body", None),
                 getattr(expr, "orelse", None), *getattr(expr, "elts", ()),
                 *getattr(expr, "values", ())]
        return set().union(*(paths_of(p, names, returns) for p in parts if p is not None))
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        if expr.func.id == "type" and len(expr.args) == 1:
            return {TYPE_OF}
        if isinstance(returns, Returns):
            return returns.paths(expr.func.id, names)
        return set().union(*(paths_of(r, names) for r in (returns or {}).get(expr.func.id, ())))
    return set()


def resolve(path: str):
    """The object a dotted path names, or MISSING where it cannot be known statically."""
    steps = walk(path)
    return steps[-1][1] if steps and steps[-1][0] == path else MISSING


@lru_cache(maxsize=4096)
def walk(path: str) -> tuple[tuple[str, object], ...]:
    """(prefix, object) for each step of a path rooted at an allowed module, as far as it can
    be known without running anything but the import of allowed modules."""
    # part by part, as far as it resolves: splitting the whole path first cost its length
    # for every path, and a chain of aliases `a1 = a0.nn`, `a2 = a1.nn`, ... makes paths as
    # long as the file (quadratic: red-team round 15)
    end = path.find(".")
    root = path if end < 0 else path[:end]
    if not module_allowed(root) or importlib.util.find_spec(root) is None:
        return ()
    obj = importlib.import_module(root)
    steps = [(root, obj)]
    while end >= 0:
        start, end = end + 1, path.find(".", end + 1)
        obj = _static_attr(obj, path[start:] if end < 0 else path[start:end])
        if obj is MISSING:
            break
        steps.append((path if end < 0 else path[:end], obj))
        if isinstance(obj, types.ModuleType) and not module_allowed(obj.__name__):
            break
    return tuple(steps)


def _static_attr(obj, name: str):
    found = inspect.getattr_static(obj, name, MISSING)
    if found is MISSING and isinstance(obj, types.ModuleType):
        for inner in _wrapped(obj):
            found = inspect.getattr_static(inner, name, MISSING)
            if found is not MISSING:
                return found
        full = f"{obj.__name__}.{name}"  # a submodule torch loads lazily on first access
        if full in sys.modules:
            return sys.modules[full]
        if module_allowed(full) and _has_spec(full):
            return importlib.import_module(full)
    return found


def _wrapped(module: types.ModuleType) -> list[types.ModuleType]:
    """The module a module proxy forwards to: torch.backends.cudnn is a PropModule whose
    __getattr__ reads the real module it holds, so `torch.backends.cudnn.sys` resolved to
    nothing statically and reached `sys` past every rule (red-team round 13, A08)."""
    if type(module) is types.ModuleType:
        return []
    return [v for v in vars(module).values() if isinstance(v, types.ModuleType)
            and v is not module and getattr(v, "__name__", None) == module.__name__]


def _has_spec(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):
        return False


@per_tree
def references(tree: ast.Module) -> list[tuple[int, str]]:
    """_references against the file's own bindings, once a scan."""
    return list(_references(tree, bindings(tree)))


def _references(tree: ast.Module, names: dict[str, set[str]]) -> Iterator[tuple[int, str]]:
    """(line, resolved path) for every dotted reference and every `from m import name`."""
    for node in all_nodes(tree):
        if isinstance(node, ast.Attribute) and dotted_name(node):
            head, _, tail = dotted_name(node).partition(".")
            for base in names.get(head, ()):
                yield node.lineno, f"{base}.{tail}"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                yield node.lineno, f"{node.module}.{a.name}"


@rule("module-reach", REJECT)
def _module_reach(tree):
    """`torch.os`, `typing.sys`, `F.np`, `torch.nn.modules.module.sys`: an allowed module's
    attribute that is itself a module off the allow-list reaches the OS all the same."""
    seen = set()
    for line, path in references(tree):
        if path.startswith(CUSTOM_OP_PATHS):
            continue  # custom-op says why
        for prefix, obj in walk(path):
            if isinstance(obj, types.ModuleType) and not module_allowed(obj.__name__) \
                    and (line, prefix) not in seen:
                seen.add((line, prefix))
                yield line, f"{prefix} is the module {obj.__name__}, which a candidate " \
                            "may not use"


@rule("attribute-by-string", REJECT)
def _by_string(tree):
    """getattr and friends passed around as values, operator.attrgetter / methodcaller, and
    annotations evaluated by typing: each reaches any attribute by a string built at run time."""
    reported = _reported_calls(tree)  # dynamic-code already names these calls
    for node in all_nodes(tree):
        if isinstance(node, ast.Name) and node.id in BY_STRING_NAMES and id(node) not in reported:
            yield node.lineno, f"uses {node.id}: attributes and bytes reached by strings or " \
                               "buffers are not allowed"
        elif isinstance(node, ast.Attribute) and node.attr in BY_STRING_ATTRS:
            yield node.lineno, f"uses {node.attr}: attribute access by a run-time string"
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name in BY_STRING_NAMES | BY_STRING_ATTRS:
                    yield node.lineno, f"imports {a.name}: attribute access by a string"


@per_tree
def _reported_calls(tree: ast.Module) -> set[int]:
    """ids of call targets an older rule reports already (dynamic-code, forbidden-call)."""
    return {id(n.func) for n in all_nodes(tree) if isinstance(n, ast.Call) and (
        isinstance(n.func, ast.Name) and n.func.id in FORBIDDEN_CALLS
        or isinstance(n.func, ast.Attribute) and n.func.attr in FORBIDDEN_METHODS)}


@rule("host-data", REJECT)
def _host_data(tree):
    """A tensor's data on the host (bound or unbound `tolist`, `numpy`, `apply_`, storage
    bytes) is computing the dispatch guard cannot see."""
    reported = _reported_calls(tree)
    for node in all_nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr in HOST_ATTRS and id(node) not in reported:
            yield node.lineno, f"uses .{node.attr}: host-side access to tensor data is not " \
                               "allowed in a candidate"


@rule("custom-op", REJECT)
def _custom_op(tree):
    for line, path in references(tree):
        if path.startswith(CUSTOM_OP_PATHS):
            yield line, f"uses {path}: custom ops run outside the dispatch guard"
    for node in all_nodes(tree):
        if isinstance(node, ast.Attribute) and node.attr in CUSTOM_OP_ATTRS:
            yield node.lineno, f"registers an op implementation through .{node.attr}"


@rule("dunder-method", REJECT)
def _dunder_method(tree):
    """`__iter__` on a returned namedtuple, `__repr__`, `__eq__`, `__torch_function__` …: run
    when the worker, torch or Python touches the object, outside forward and its guard."""
    for node in all_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and is_dunder(node.name) \
                and node.name not in ALLOWED_DUNDER_DEFS:
            yield node.lineno, f"defines {node.name}, which runs outside forward's guard"
    for scope in [tree, *(n for n in all_nodes(tree) if isinstance(n, ast.ClassDef))]:
        for stmt in scope.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                [stmt.target] if isinstance(stmt, ast.AnnAssign | ast.AugAssign) else []
            for name in (n for t in targets for n in _target_names(t)):
                if is_dunder(name) and name not in ALLOWED_DUNDER_NAMES:
                    yield stmt.lineno, f"binds {name}, which runs outside forward's guard"
    for node in all_nodes(tree):  # a class built from a namespace: make_dataclass(namespace=
        # {"__iter__": f}) defines the method no def or class body shows (E41)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                is_dunder(node.value) and node.value not in DUNDER_STRINGS:
            yield node.lineno, f"names {node.value} in a string: a method bound by name " \
                               "runs outside forward's guard"


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


@rule("container-subclass", REJECT)
def _container_subclass(tree):
    """pytree flattens a returned dict, list, tuple or namedtuple by calling its methods
    (`values`, `keys`, iteration) after forward returned: overriding any is computing late."""
    classes, containers = local_subclasses(tree, _is_container)
    for node in classes:
        methods = [s for s in node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
                   or isinstance(s, ast.Assign) and isinstance(s.value, ast.Lambda)]
        if node.name in containers and methods:
            yield node.lineno, f"{node.name} subclasses a container and defines methods, " \
                               "which run when the worker reads the output"


def local_subclasses(tree: ast.Module, is_base) -> tuple[list[ast.ClassDef], set[str]]:
    """The file's classes, and the names of those with a base `is_base(base, names, found)`
    accepts: a subclass of such a local class is one too (three levels deep)."""
    names, found = bindings(tree), set()
    classes = [n for n in all_nodes(tree) if isinstance(n, ast.ClassDef)]
    for _ in range(3):
        for node in classes:
            if any(is_base(b, names, found) for b in node.bases):
                found.add(node.name)
    return classes, found


def _is_container(base: ast.AST, names, local: set[str]) -> bool:
    if isinstance(base, ast.Call):  # namedtuple(...), type(x), a factory: never plain
        return True
    if isinstance(base, ast.Name) and (base.id in local or base.id not in names
                                       and isinstance(getattr(builtins, base.id, None), type)
                                       and issubclass(getattr(builtins, base.id), CONTAINERS)):
        return True
    for path in paths_of(base, names):
        obj = resolve(path)
        if obj in (typing.NamedTuple, typing.TypedDict) or \
                isinstance(obj, type) and issubclass(obj, CONTAINERS):
            return True
    return False


def tensor_subclass_bases(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Classes whose base is torch.Tensor or a subclass (Parameter, Buffer), under any alias,
    or a base computed by `type(x)`."""
    names = bindings(tree)
    import torch

    for node in (n for n in all_nodes(tree) if isinstance(n, ast.ClassDef)):
        for base in node.bases:
            paths = paths_of(base, names) | ({dotted_name(base)} if dotted_name(base) else set())
            objs = [resolve(p) for p in paths if p != TYPE_OF]
            if TYPE_OF in paths or any(isinstance(o, type) and issubclass(o, torch.Tensor)
                                       for o in objs):
                yield node.lineno, f"{node.name} subclasses torch.Tensor"


def patched_objects(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Writes and deletions through a name or call that holds a module, class or function of
    an allowed module: `T = torch.Tensor; T.clone = f`, `type(x).clone = f`, `del E[k]`."""
    names = bindings(tree)
    _, returns = reference_bindings(tree)
    for node in all_nodes(tree):
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else \
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Attribute | ast.Subscript):
                base = _base(target)
                if paths_of(base, names, returns):
                    yield node.lineno, f"writes through {ast.unparse(base)}, which holds " \
                                       f"{sorted(paths_of(base, names, returns))[0]}"


def _base(target: ast.AST) -> ast.AST:
    while isinstance(target, ast.Attribute | ast.Subscript):
        target = target.value
    return target
