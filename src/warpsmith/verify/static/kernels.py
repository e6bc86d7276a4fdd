"""Host Python computing inside a Triton kernel (red-team round 3): under the CPU interpreter a
kernel's body is plain Python, so `float(str(tl.load(p)))`, `math.exp(v)` or a list's
`.append` compute on the host, exactly, where a GPU compiles nothing of the kind (Triton's
compiler runs Python functions only on compile-time values). A kernel, and every plain
function it calls, may call Triton's own functions, other kernels, the value methods of
triton.language, a few builtins the compiler knows; anything else only on compile-time values
(constants, constexpr parameters, shapes and dtypes). The scan runs them (static.RULES).
"""

from __future__ import annotations

import ast
import builtins
import collections
import functools
from collections.abc import Iterator

from . import lookup
from .base import REJECT, all_nodes, per_tree, rule, triton_kernels

# Builtins Triton's code generator maps or runs (range, min, max, print) or that act on tuples
# and tensors as the compiler does; int/float/bool only on compile-time values (below).
KERNEL_BUILTINS = {"range", "len", "min", "max", "print", "isinstance", "abs", "tuple"}
COMPILE_TIME_ONLY = {"int", "float", "bool"}
# Statements Triton's code generator has no form for: in a kernel they run only under the
# interpreter, as host Python, and bind names as strings the compile-time analysis missed
# (`match tl.load(p): case V:` rebound a module constant; `global V` in a helper kernel).
NOT_COMPILED = (ast.Match, ast.Global, ast.Nonlocal, ast.Try, ast.Import, ast.ImportFrom,
                ast.ClassDef, ast.AsyncFunctionDef, ast.Yield, ast.YieldFrom, ast.Await)
# Attributes of a kernel value that the compiler knows at compile time.
# Any other attribute (`.value`, `.scalar`) is compile-time only of a compile-time value:
# `tl.constexpr(tl.load(p)).value` is the loaded value itself (red-team round 6, A06).
STATIC_ATTRIBUTES = {"shape", "dtype", "type", "element_ty", "numel", "primitive_bitwidth",
                     "block_shape"}


@functools.lru_cache(maxsize=1)
def value_methods() -> frozenset[str]:
    """Public methods of triton.language's value classes (tensor, block pointers,
    descriptors, dtypes): what `x.to(...)`, `desc.load(...)` may name."""
    import inspect

    import triton.language as tl

    return frozenset(name for _, cls in inspect.getmembers(tl.core, inspect.isclass)
                     for name in dir(cls) if not name.startswith("_"))


@rule("host-python-in-kernel", REJECT)
def _host_python_in_kernel(tree):
    names = lookup.bindings(tree)
    _, returns = lookup.reference_bindings(tree)
    jit = {k.name for k in triton_kernels(tree)}
    yield from _host_python(tree, names, returns, jit)
    yield from _host_function_handed_in(tree, names, returns, jit)


def _host_python(tree, names, returns, jit: set[str]):
    plain = {n.name: n for n in all_nodes(tree)
             if isinstance(n, ast.FunctionDef) and n.name not in jit}
    seen, todo = set(), list(triton_kernels(tree))
    plain_names = set(plain)
    hosts = set(plain) | {n.name for n in all_nodes(tree) if isinstance(n, ast.ClassDef)}
    objects = _host_objects(tree, hosts, names) - jit
    strings = {t.id for n in all_nodes(tree) if isinstance(n, ast.Assign | ast.AnnAssign)
               and n.value is not None and _stringy(n.value)
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
               for t in ast.walk(t) if isinstance(t, ast.Name)}
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        static = _compile_time_names(fn, tree)
        unrolled = static | _static_range_names(fn, names)
        known = jit | set(_params(fn))  # once a function, not once a call (quadratic)
        for node in _body_nodes(fn):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute) and _value_names(node.func.value) & objects:
                    yield node.lineno, f"calls {ast.unparse(node.func)[:40]}, a method of " \
                        "a module-level object: host Python, whatever it is named (A02, C02)"
                    continue
                callee = _callee(node, names, returns, known, plain_names)
                if callee == "plain":
                    todo.append(plain[node.func.id])
                elif callee is None and not _all_static(node, static):
                    yield node.lineno, f"calls {ast.unparse(node.func)[:40]} on a value the " \
                        "kernel computes: host Python, which a GPU cannot compile, computing " \
                        "on the CPU (use triton.language, or compile-time values only)"
                for arg in [*node.args, *(k.value for k in node.keywords)]:
                    if _host_function(arg, names, returns, hosts):
                        yield node.lineno, f"hands {ast.unparse(arg)[:40]} to " \
                            f"{ast.unparse(node.func)[:40]}: inside a kernel only " \
                            "@triton.jit functions are passed on (A03: tl.reduce's combine)"
            elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(
                    node.ctx, ast.Store) and _value_names(node.value) & objects:
                yield node.lineno, f"writes {ast.unparse(node)[:40]}: kernel values kept on " \
                    "a module-level object, for host Python to read (C02)"
            elif isinstance(node, ast.Lambda):
                yield node.lineno, "a lambda in a kernel: Triton compiles none, and under " \
                    "the interpreter it runs as host Python"
            elif isinstance(node, NOT_COMPILED):
                yield node.lineno, f"a {type(node).__name__.lower()} statement in a kernel: " \
                    "Triton compiles none, and under the interpreter it binds names the " \
                    "kernel rules cannot follow (round 9: a match capture, a global)"
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and \
                    not _all_static(node.slice, unrolled):
                yield node.lineno, f"indexes {ast.unparse(node)[:40]} by a value known only " \
                    "at run time: Triton compiles no such index (a tuple's or a block's), " \
                    "and under the interpreter host Python picks the element (round 11)"
            elif _formats(node, strings) and not _all_static(node, static):
                yield node.lineno, "formats a kernel value into a string: its data on the host"


def _host_function_handed_in(tree, names, returns, jit: set[str]):
    """A kernel calls what a launch hands it: a lambda, a plain function of the file, a builtin
    or a function of a host module handed to a kernel runs as host Python under the
    interpreter (the rule above checks a plain function a kernel calls by name, not one
    passed in). The worker refuses such a launch at run time as well (lang/triton_compat)."""
    plain = {n.name for n in all_nodes(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)
             and n.name not in jit}
    for kernel in triton_kernels(tree):  # a parameter's default is handed in at every launch
        for default in [*kernel.args.defaults, *filter(None, kernel.args.kw_defaults)]:
            if _host_function(default, names, returns, plain) or isinstance(default, ast.Call) \
                    and isinstance(default.func, ast.Name) and default.func.id in plain:
                yield default.lineno, f"kernel {kernel.name} defaults a parameter to " \
                    f"{ast.unparse(default)[:40]}: a kernel may call only @triton.jit functions"
    classes = {n.name for n in all_nodes(tree) if isinstance(n, ast.ClassDef)}

    def made(value: ast.AST) -> bool:  # an object of the file's class
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            value.func.id in classes

    objects = {t.id for n in all_nodes(tree) if isinstance(n, ast.Assign) and made(n.value)
               for t in n.targets if isinstance(t, ast.Name)}
    for node in all_nodes(tree):
        if isinstance(node, ast.Call) and _launched(node.func) in jit:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if made(arg) or isinstance(arg, ast.Name) and arg.id in objects:
                    yield node.lineno, f"hands {ast.unparse(arg)[:40]}, an object of the " \
                        f"file's class, to kernel {_launched(node.func)}: its methods run as " \
                        "host Python (round 8: a tl.dtype subclass)"
                elif _host_function(arg, names, returns, plain):
                    yield node.lineno, f"hands {ast.unparse(arg)[:40]} to kernel " \
                        f"{_launched(node.func)}: a kernel may be handed only @triton.jit " \
                        "functions (anything else runs as host Python on the CPU)"


def _launched(func: ast.AST) -> str | None:
    """The kernel a call launches: `k[grid](...)`, `k.run(...)`, or `k(...)` inside a kernel."""
    if isinstance(func, ast.Subscript) or \
            isinstance(func, ast.Attribute) and func.attr in ("run", "warmup"):
        func = func.value
    return func.id if isinstance(func, ast.Name) else None


def _host_function(arg: ast.AST, names, returns, plain: set[str]) -> bool:
    """A lambda, a plain function or class of the file, a builtin, or any path that resolves to
    a callable outside triton (math.exp, an alias of it), inside tuples and lists too."""
    if isinstance(arg, ast.Lambda):
        return True
    if isinstance(arg, ast.Tuple | ast.List):
        return any(_host_function(e, names, returns, plain) for e in arg.elts)
    if isinstance(arg, ast.Name) and (arg.id in plain or arg.id not in names and callable(
            getattr(builtins, arg.id, None))):
        return True
    if not isinstance(arg, ast.Name | ast.Call) and _value_names(arg) & plain:
        return True  # `(Combine,)[0]`, `Combine.fn`: reached through an expression (round 8)
    return any(not (p == "triton" or p.startswith("triton.")) and _callable(p)
               for p in lookup.paths_of(arg, names, returns))


def _callable(path: str) -> bool:
    """Whether a dotted path names a function or class (torch.float32 names data); one the
    scan cannot resolve is left to the worker's check at launch."""
    obj = lookup.resolve(path)
    return obj is not lookup.MISSING and callable(obj)


def _body_nodes(fn: ast.FunctionDef) -> Iterator[ast.AST]:
    """Every node of a function's body: its decorators (`@triton.heuristics({...: lambda
    args: ...})`, autotune's configs from a helper that appends to a list) are host code run
    at the launch, not kernel code, and its defaults are checked as what a launch hands in."""
    for stmt in fn.body:
        yield from ast.walk(stmt)


def _value_names(expr: ast.AST) -> set[str]:
    """Every name an expression reads as a value (`H` of `(H,)[0].store`, of `H.store`, of
    `get(H)`): a method call's receiver or a store's target built from a host object through
    a tuple, a subscript or a call was missed when only the chain's root was read (round 8).
    A called name's result is not the name itself: `helper(n)` reads n, not helper."""
    if isinstance(expr, ast.Call):
        parts = [*expr.args, *(k.value for k in expr.keywords)]
        if not isinstance(expr.func, ast.Name):
            parts.append(expr.func)
        return set().union(*map(_value_names, parts)) if parts else set()
    if isinstance(expr, ast.Name):
        return {expr.id}
    return set().union(set(), *map(_value_names, ast.iter_child_nodes(expr)))


def _host_objects(tree: ast.Module, hosts: set[str], names) -> set[str]:
    """The file's classes and functions, and every name its module-level code binds to
    anything but a compile-time constant (`H = Host()`, `H, = (Host(),)`: C05): a method
    read off one, or a value stored onto one, is the candidate's Python."""
    bound = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Import
                      | ast.ImportFrom):
            continue
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None and \
                _module_constant(stmt.value, names):
            continue  # BLOCK = 1024, LOG2E = tl.constexpr(1.44), tlmath = tl.math
        bound |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
    # `global H; H = Host()` in a method binds a module-level object the module's own
    # statements never show (round 8: `H = 0` there, a host object after __init__)
    bound |= {name for n in all_nodes(tree) if isinstance(n, ast.Global) for name in n.names}
    return hosts | bound


def _static_range_names(fn: ast.FunctionDef, names) -> set[str]:
    """The targets of `for i in tl.static_range(...)`: unrolled, each i is a compile-time
    number (a tuple indexed by it is Triton's own idiom)."""
    return {t.id for node in _body_nodes(fn) if isinstance(node, ast.For)
            and isinstance(node.iter, ast.Call) and any(
                p.endswith("static_range") for p in lookup.paths_of(node.iter.func, names))
            for t in ast.walk(node.target) if isinstance(t, ast.Name)}


def _module_constant(value: ast.AST, names) -> bool:
    """A module-level value a kernel may read: a compile-time constant, one wrapped in
    tl.constexpr (the form Triton asks globals to take), or a triton.language module or
    function under another name. Honest kernels wrote all three (round 10, c03, c05)."""
    if not any(isinstance(n, ast.Call) for n in ast.walk(value)) and _all_static(value, set()):
        return True
    if isinstance(value, ast.Call) and not value.keywords and len(value.args) == 1 and \
            lookup.paths_of(value.func, names) & CONSTEXPR:
        return _module_constant(value.args[0], names) and \
            not isinstance(value.args[0], ast.Name | ast.Attribute)
    return _triton_language_alias(value, names)


def _triton_language_alias(value: ast.AST, names) -> bool:
    """A name or attribute that can only be triton.language or one of its objects."""
    if not isinstance(value, ast.Name | ast.Attribute):
        return False
    paths = lookup.paths_of(value, names)
    return bool(paths) and all(p.startswith("triton.language") for p in paths)


CONSTEXPR = {"triton.language.constexpr", "triton.language.core.constexpr"}


def _formats(node: ast.AST, strings: set[str]) -> bool:
    """An f-string, or `"..." % value` with the string written in place or bound to a name
    anywhere in the file (round 10: `F = "%s"` at module level, `F % block` in the kernel)."""
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.BinOp) and isinstance(
        node.op, ast.Mod) and (_stringy(node.left) or isinstance(node.left, ast.Name)
                               and node.left.id in strings)


def _stringy(node: ast.AST) -> bool:
    """An expression with a string or bytes written in it."""
    return any(isinstance(n, ast.JoinedStr) or isinstance(n, ast.Constant)
               and isinstance(n.value, str | bytes) for n in ast.walk(node))


def _callee(call: ast.Call, names, returns, jit: set[str], plain: set[str]) -> str | None:
    """What kind of function a kernel calls: "triton", "jit", "builtin", "method", "plain" (a
    function of the file, checked as kernel code) or None (host Python)."""
    func = call.func
    if any(p == "triton" or p.startswith("triton.")
           for p in lookup.paths_of(func, names, returns)):
        return "triton"
    if isinstance(func, ast.Name):
        if func.id in jit:  # a kernel, or one passed in as a constexpr parameter
            return "jit"
        if func.id in plain:
            return "plain"
        if func.id in KERNEL_BUILTINS and func.id not in names and not call.keywords:
            return "builtin"  # max(..., key=...) compares on the host (A07)
        return None
    if isinstance(func, ast.Attribute) and func.attr in value_methods() and \
            not lookup.paths_of(func.value, names, returns):
        return "method"
    return None


def _params(fn: ast.FunctionDef) -> Iterator[str]:
    args = fn.args
    yield from (a.arg for a in args.posonlyargs + args.args + args.kwonlyargs)


def _compile_time_names(fn: ast.FunctionDef, tree: ast.Module) -> set[str]:
    """Names a kernel knows at compile time: constexpr parameters, module constants, and
    names assigned only from those. A name the body binds any other way (a loop, a
    comprehension, `+=`, unpacking, `:=`) or assigns from a kernel value is not, whatever
    the module binds it to (round 8: `V = 0.0` at module level, `V = tl.load(p)` in the
    kernel, then `str(V)` passed as compile-time), nor is a parameter that is not constexpr."""
    params = {a.arg: a for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    static = {name for name, a in params.items()
              if a.annotation is not None and "constexpr" in ast.unparse(a.annotation)}
    nodes = list(_body_nodes(fn))
    # the module's constants this body names (only they can matter to a question about it):
    # all of them, for each of many kernels, was quadratic (red-team round 15)
    module = _module_static_names(tree)
    static |= {n.id for n in nodes if isinstance(n, ast.Name) and n.id in module
               and n.id not in params}
    assigned = [(t, node.value) for node in nodes if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)]
    plain = {id(t) for t, _ in assigned}
    otherwise = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                 and id(n) not in plain}  # bound by a loop, a comprehension, `+=`, ...
    static -= otherwise
    candidates = static | {t.id for t, _ in assigned}
    # the largest set that holds (values from constants), by a worklist over what each value
    # reads: a name leaves once any value assigned to it reads one that left. Round by round
    # (one pass over every assignment a round) a chain `p1 = p0 + 1`, `p2 = p1 + 1`, ...
    # lost one name a round: quadratic, and 2000 such lines held the trusted process for
    # minutes before any deadline (red-team round 15, E110)
    readers: dict[str, list[str]] = collections.defaultdict(list)
    gone = []
    for t, value in assigned:
        ok, reads = _static_reads(value)
        if not ok or not reads <= candidates:
            gone.append(t.id)
        for name in reads:
            readers[name].append(t.id)
    while gone:
        name = gone.pop()
        if name in candidates:
            candidates.discard(name)
            gone += readers.pop(name, ())
    return candidates - (set(params) - static) - otherwise


@per_tree
def _module_static_names(tree: ast.Module) -> set[str]:
    """Module-level names assigned a compile-time value, none declared `global` anywhere."""
    rebound = {name for n in all_nodes(tree) if isinstance(n, ast.Global) for name in n.names}
    return {t.id for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)
            and _all_static(node.value, set()) and t.id not in rebound}


def _static_reads(node: ast.AST) -> tuple[bool, set[str]]:
    """(ok, names) with `_all_static(node, S) == (ok and names <= S)` for every S: the
    names whose being compile-time the answer depends on, found in one walk."""
    if isinstance(node, ast.Constant):
        return True, set()
    if isinstance(node, ast.Name):
        return True, {node.id}
    if isinstance(node, ast.Attribute):
        if node.attr in STATIC_ATTRIBUTES and not isinstance(node.value, ast.Call):
            return True, set()
        return _static_reads(node.value)
    if isinstance(node, ast.Call):
        own = {n.id for n in ast.walk(node.func) if isinstance(n, ast.Name)}
        ok, reads = _static_reads(node.func)
        parts = [(ok, reads - own)] + [_static_reads(a) for a in
                                       [*node.args, *(k.value for k in node.keywords)]]
    else:
        parts = [_static_reads(c) for c in ast.iter_child_nodes(node)
                 if not isinstance(c, ast.expr_context | ast.operator | ast.cmpop
                                   | ast.unaryop | ast.boolop)]
    return all(ok for ok, _ in parts), set().union(*(r for _, r in parts))


class _AnyName(frozenset):
    """Every name: inside a call's callee, any name counts as static. Once the set of the
    callee's names, walked again under every call of a chain `f()()()…`: quadratic, 73 s
    of one scan (red-team round of 2026-12-08)."""

    def __contains__(self, item) -> bool:
        return True

    def __or__(self, other):
        return self


ANY_NAME = _AnyName()


def _all_static(node: ast.AST, static: set[str]) -> bool:
    """Every value the expression reads is known at compile time."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in static
    if isinstance(node, ast.Attribute):
        return node.attr in STATIC_ATTRIBUTES and not isinstance(node.value, ast.Call) or \
            _all_static(node.value, static)
    if isinstance(node, ast.Call):  # the callee's names are its own (a function, a method)
        return _all_static(node.func, ANY_NAME) and \
            all(_all_static(a, static) for a in [*node.args, *(k.value for k in node.keywords)])
    children = list(ast.iter_child_nodes(node))
    return all(_all_static(c, static) for c in children
               if not isinstance(c, ast.expr_context | ast.operator | ast.cmpop
                                 | ast.unaryop | ast.boolop))


# The globals Triton's compiler lets a kernel read (code_generator's global_lookup, 3.6 to
# 3.9): modules, @triton.jit functions, triton.language's objects and dtypes, values made
# with tl.constexpr(...), and these builtins. Any other global is a NameError on a GPU ("Cannot
# access global variable ... from within @jit'ed function"), while the CPU's interpreter runs
# it as Python: a plain helper a kernel calls computed softmax with math.exp and int() of
# loaded values there (red-team round 11), and `BLOCK = 1024` read in a kernel passed here and
# failed to compile on the GPU.
TRITON_BUILTINS = frozenset({"len", "list", "range", "float", "int", "isinstance", "getattr",
                             "hasattr", "print", "min", "max"})


@rule("global-in-kernel", REJECT)
def _global_in_kernel(tree):
    names = lookup.bindings(tree)
    jit = {k.name for k in triton_kernels(tree)}
    allowed = _kernel_readable_globals(tree, names, jit)
    enclosed = _enclosed_names(tree)
    for fn in triton_kernels(tree):
        local = set(_params(fn)) | {n.id for n in _body_nodes(fn) if isinstance(n, ast.Name)
                                    and not isinstance(n.ctx, ast.Load)}
        local |= {n.arg for n in _body_nodes(fn) if isinstance(n, ast.arg)}
        # once a kernel, not once a name read (the union is as large as the kernel: a
        # quadratic scan of a long kernel, red-team round 15, E110)
        known = local | TRITON_BUILTINS | enclosed.get(id(fn), set())
        for node in _body_nodes(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                    node.id not in known and not allowed.get(node.id, False):
                yield node.lineno, (
                    f"kernel {fn.name} reads the global {node.id}, which Triton's compiler "
                    "refuses in a kernel (a NameError on a GPU: only modules, @triton.jit "
                    "functions, triton.language objects and tl.constexpr(...) values; a plain "
                    "function or a number bound at module level is neither: bind a constant "
                    "as NAME = tl.constexpr(value)), while the CPU's interpreter runs it as "
                    "Python")


def _kernel_readable_globals(tree: ast.Module, names, jit: set[str]) -> dict[str, bool]:
    """Module-level name -> whether a kernel may read it (every binding of it must be one)."""
    readable: dict[str, bool] = {}

    def bind(name: str, ok: bool) -> None:
        readable[name] = readable.get(name, True) and ok

    for stmt in _module_statements(tree.body):
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                bind(a.asname or a.name.split(".")[0], True)  # a module
        elif isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                bind(a.asname or a.name, _readable_import(stmt.module or "", a.name))
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bind(stmt.name, stmt.name in jit)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            ok = _readable_value(stmt.value, names, jit)  # the value counts, not a hint
            for t in getattr(stmt, "targets", None) or [stmt.target]:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        bind(n.id, ok and isinstance(t, ast.Name))
        else:  # annotated, augmented, loops, with: Triton takes no such global
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                    bind(n.id, False)
    return readable


def _module_statements(body: list) -> Iterator[ast.stmt]:
    """Module-level statements, those inside a module-level if/try included."""
    for stmt in body:
        if isinstance(stmt, ast.If | ast.Try):
            yield from _module_statements(stmt.body + stmt.orelse + [
                s for h in getattr(stmt, "handlers", ()) for s in h.body]
                + getattr(stmt, "finalbody", []))
        else:
            yield stmt


def _readable_import(module: str, name: str) -> bool:
    """`from M import X`: X a module, or an object of triton.language."""
    path = f"{module}.{name}"
    if module == "triton.language" or module.startswith("triton.language."):
        return True
    try:
        import importlib.util

        if importlib.util.find_spec(path) is not None:
            return True
    except (ImportError, ValueError, AttributeError):
        pass
    obj = lookup.resolve(path)
    return obj is not lookup.MISSING and (
        getattr(obj, "__module__", "") or "").startswith("triton.language")


def _readable_value(value: ast.AST, names, jit: set[str]) -> bool:
    """`X = tl.constexpr(...)`, `X = tl.float32`, `X = tl.math`, `X = some_kernel`."""
    if isinstance(value, ast.Call):
        return bool(lookup.paths_of(value.func, names) & CONSTEXPR)
    return isinstance(value, ast.Name) and value.id in jit or \
        _triton_language_alias(value, names)


def _enclosed_names(tree: ast.Module) -> dict[int, set[str]]:
    """For a kernel defined inside a function: the names that function binds (a closure,
    which this rule leaves alone)."""
    enclosed: dict[int, set[str]] = {}
    for outer in all_nodes(tree):
        if isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            bound = {n.id for n in ast.walk(outer) if isinstance(n, ast.Name)
                     and not isinstance(n.ctx, ast.Load)}
            bound |= {a.arg for a in ast.walk(outer.args) if isinstance(a, ast.arg)}
            for inner in ast.walk(outer):
                if inner is not outer and isinstance(inner, ast.FunctionDef):
                    enclosed.setdefault(id(inner), set()).update(bound)
    return enclosed
