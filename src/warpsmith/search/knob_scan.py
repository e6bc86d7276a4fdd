"""How knobs.py finds a Triton candidate's knobs: its kernels, their launch sites and the
integer values that reach a launch (literals, locals, `self.` attributes, module constants,
constexpr globals), read with `ast`; each becomes a raw knob with the byte offsets of its
literals, merged and named in knobs.py."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

from .knob_kernels import _autotuned, _callee, _is_constexpr, _is_jit, _Kernel, _kernel

# Triton's defaults when a launch names no num_warps / num_stages (CUDA backend, 3.x).
DEFAULT_WARPS, DEFAULT_STAGES = 4, 3
# Names of constexprs that are tile sizes however they are used ...
TILE_NAME = re.compile(r"BLOCK|TILE|GROUP|CHUNK|^B[MNK]$|^BLK", re.IGNORECASE)
# ... and of those that size a problem dimension even when they bound a tl.arange.
PROBLEM_NAME = re.compile(r"DIM|HEAD|SEQ|LEN|NUM|^N$|^N_|SHAPE|STRIDE", re.IGNORECASE)


@dataclass(frozen=True)
class Edit:
    start: int  # byte offsets of an integer literal in the UTF-8 source
    end: int
    offset: int = 0  # the literal holds value + offset (the 255 of `(n + 255) // 256`)



@dataclass
class _Raw:
    """A knob before knobs sharing a literal are merged."""

    label: str
    kind: str
    value: int
    edits: set[Edit] = field(default_factory=set)
    insert: int | None = None
    keyword: str = ""
    bare: bool = False


@dataclass(frozen=True)
class _Site:
    call: ast.Call
    kernel: _Kernel
    scope: _Scope


class _Scope:
    """Where a launch site's names resolve: its function's locals (a name assigned once, by a
    plain assignment), the `self.` attributes of its class assigned once, else the module."""

    def __init__(self, func: ast.FunctionDef | None, cls: ast.ClassDef | None):
        self.func, self.locals, self.attrs = func, {}, {}
        if func is not None:
            args = func.args
            for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg,
                                                                        args.kwarg]:
                if a is not None:
                    self.locals[a.arg] = [None]  # a parameter: its value is not in the file
            for node in ast.walk(func):
                for name, value in _assigned(node):
                    self.locals.setdefault(name, []).append(value)
        for node in ast.walk(cls) if cls is not None else ():
            for name, value in _assigned(node, attrs=True):
                self.attrs.setdefault(name, []).append(value)

    def local(self, name: str) -> tuple[bool, ast.expr | None]:
        """(is a local, its single value or None when it has several or an unknown one)."""
        if name not in self.locals:
            return False, None
        values = self.locals[name]
        return True, values[0] if len(values) == 1 else None

    def attr(self, name: str) -> ast.expr | None:
        values = self.attrs.get(name, [])
        return values[0] if len(values) == 1 else None


def _assigned(node: ast.AST, attrs: bool = False):
    """(name, value) for every binding in node; value None where it cannot be read off."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _bind(target, node.value, attrs)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        value = node.value if isinstance(node, ast.AnnAssign) else None
        yield from _bind(node.target, value, attrs, plain=isinstance(node, ast.AnnAssign))
    elif not attrs and isinstance(node, ast.For | ast.comprehension):
        yield from _bind(node.target, None, attrs)
    elif not attrs and isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from _bind(node.optional_vars, None, attrs)
    elif not attrs and isinstance(node, ast.NamedExpr):
        yield node.target.id, node.value
    elif not attrs and isinstance(node, ast.Global | ast.Nonlocal):
        for name in node.names:
            yield name, None


def _bind(target, value, attrs: bool, plain: bool = True):
    if attrs:
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == "self":
            yield target.attr, value if plain else None
        elif isinstance(target, ast.Tuple | ast.List):
            values = value.elts if isinstance(value, ast.Tuple | ast.List) and \
                len(value.elts) == len(target.elts) else [None] * len(target.elts)
            for t, v in zip(target.elts, values, strict=True):
                yield from _bind(t, v, attrs, plain)
        return
    if isinstance(target, ast.Name):
        yield target.id, value if plain else None
    elif isinstance(target, ast.Tuple | ast.List):
        values = value.elts if isinstance(value, ast.Tuple | ast.List) and \
            len(value.elts) == len(target.elts) else [None] * len(target.elts)
        for t, v in zip(target.elts, values, strict=True):
            yield from _bind(t, v, attrs, plain)
    elif isinstance(target, ast.Starred):
        yield from _bind(target.value, None, attrs)


class _Module:
    def __init__(self, source: str, tree: ast.Module):
        self.tree, self.data = tree, source.encode()
        self.line_starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.parents = {child: node for node in ast.walk(tree)
                        for child in ast.iter_child_nodes(node)}
        self.kernels: dict[str, _Kernel] = {}
        self.kernel_defs: dict[str, ast.FunctionDef] = {}
        self.autotuned = ""
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and _is_jit(node):
                self.autotuned = self.autotuned or (node.name if _autotuned(node) else "")
                self.kernels[node.name] = _kernel(node)
                self.kernel_defs[node.name] = node
        self.constants = _module_constants(tree)

    # -- where things are

    def offset(self, lineno: int, col: int) -> int:
        return self.line_starts[lineno - 1] + col

    def edit(self, node: ast.Constant, offset: int = 0) -> Edit:
        return Edit(self.offset(node.lineno, node.col_offset),
                    self.offset(node.end_lineno, node.end_col_offset), offset)

    def enclosing(self, node: ast.AST, kind) -> ast.AST | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, kind):
                return node
        return None

    # -- launch sites

    def launch_sites(self) -> list[_Site]:
        sites = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id in self.kernels:
                func = self.enclosing(node, ast.FunctionDef)
                if func is not None and func.name in self.kernels:
                    continue  # not a host-side launch
                cls = self.enclosing(node, ast.ClassDef)
                sites.append(_Site(node, self.kernels[node.func.value.id], _Scope(func, cls)))
        return sites

    def site_knobs(self, site: _Site) -> list[_Raw]:
        call, kernel = site.call, site.kernel
        named = {k.arg: k.value for k in call.keywords if k.arg is not None}
        positional = {}
        for param, arg in zip(kernel.params, call.args, strict=False):
            if isinstance(arg, ast.Starred):  # later positions are unknown
                break
            positional[param] = arg
        out: list[_Raw] = []
        for name, value in (positional | named).items():
            kind = _kind(name, kernel)
            if kind is not None:
                out += self.trace(value, site.scope, kind, f"{kernel.name}.{name}")
        if any(k.arg is None for k in call.keywords):  # **kwargs: what it holds is unknown
            return out
        wanted = [("num_warps", DEFAULT_WARPS)] + ([("num_stages", DEFAULT_STAGES)]
                                                   if kernel.has_loop else [])
        for keyword, default in wanted:
            if keyword not in named:
                out.append(self.absent(call, kernel, keyword, default))
        return [self.tied(k, site.scope.func) for k in out]

    def absent(self, call: ast.Call, kernel: _Kernel, keyword: str, default: int) -> _Raw:
        kind = "warps" if keyword == "num_warps" else "stages"
        label = f"{kernel.name}.{keyword}@{call.lineno}"
        last = max(call.args + call.keywords, key=lambda n: (n.end_lineno, n.end_col_offset),
                   default=None)
        if last is None:  # kernel[grid](): the keyword goes just before the ")"
            at = self.offset(call.end_lineno, call.end_col_offset) - 1
            return _Raw(label, kind, default, insert=at, keyword=keyword, bare=True)
        at = self.offset(last.end_lineno, last.end_col_offset)
        return _Raw(label, kind, default, insert=at, keyword=keyword)

    def trace(self, node: ast.expr | None, scope: _Scope, kind: str, label: str,
              direct: bool = True, depth: int = 0) -> list[_Raw]:
        """The knobs a launch value comes from. `direct`: the value is the literal itself
        (through names only); otherwise only constants and min() caps inside it count."""
        if node is None or depth > 8:
            return []
        if _int(node) is not None:
            return [self.literal(node, kind, label)] if direct else []
        if isinstance(node, ast.Name):
            return self.trace_name(node.id, scope, kind, label, direct, depth)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id == "self":
            value = scope.attr(node.attr)  # only a literal: other names are another method's
            value = value if _int(value) is not None else None
            return self.trace(value, scope, kind, f"self.{node.attr}", direct, depth + 1)
        if isinstance(node, ast.Call) and _callee(node) == "min":
            # min() returns one of its arguments, so a cap keeps the kind: the 4096 of
            # min(4096, next_power_of_2(n)) is a block size. (max()'s literal is a floor,
            # such as tl.dot's 16: not a knob.)
            return [k for arg in node.args
                    for k in self.trace(arg, scope, kind, f"{label}.cap", True, depth + 1)]
        children = _value_children(node)
        return [k for child in children
                for k in self.trace(child, scope, "scale", label, False, depth + 1)]

    def trace_name(self, name: str, scope: _Scope, kind: str, label: str, direct: bool,
                   depth: int) -> list[_Raw]:
        is_local, value = scope.local(name)
        if is_local:
            where = scope.func.name if scope.func is not None else "module"
            return self.trace(value, scope, kind, f"{where}.{name}", direct, depth + 1)
        const = self.constants.get(name)
        if const is None:
            return []
        if not direct:  # a constant a value is computed from: its name may still say tile
            kind = _named_kind(name) if TILE_NAME.search(name) else "scale"
        return [self.literal(const, kind, name)]

    def literal(self, node: ast.Constant, kind: str, label: str) -> _Raw:
        return _Raw(label, kind, _int(node), {self.edit(node)})

    def tied(self, raw: _Raw, func: ast.FunctionDef | None) -> _Raw:
        """A block literal the same function divides by is the grid's (or a buffer's) size:
        it changes with the block, or the grid would stop covering the data."""
        if raw.kind != "block" or raw.insert is not None or func is None:
            return raw
        edits = set(raw.edits)
        for node in ast.walk(func):
            edits |= self.divisors(node, raw.value)
        return replace(raw, edits=edits)

    def divisors(self, node: ast.AST, value: int) -> set[Edit]:
        found = set()
        if isinstance(node, ast.Call) and _callee(node) == "cdiv" and len(node.args) == 2 \
                and _int(node.args[1]) == value:
            found.add(self.edit(node.args[1]))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv) and \
                _int(node.right) == value:
            found.add(self.edit(node.right))
            left = node.left
            if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add) and \
                    _int(left.right) == value - 1:  # (n + 255) // 256
                found.add(self.edit(left.right, offset=-1))
        return found

    def global_knobs(self) -> list[_Raw]:
        """Module constexpr globals a kernel reads directly (`BLOCK: tl.constexpr = 1024`)."""
        out = []
        for kernel_name, node in self.kernel_defs.items():
            kernel = self.kernels[kernel_name]
            for name in {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}:
                const = self.constants.get(name)
                if const is not None and name in _constexpr_globals(self.tree) and \
                        _tunable(name, kernel.shaping):
                    out.append(self.literal(const, _named_kind(name), name))
        return out


def _kind(keyword: str, kernel: _Kernel) -> str | None:
    if keyword == "num_warps":
        return "warps"
    if keyword == "num_stages":
        return "stages"
    if keyword in kernel.constexprs and _tunable(keyword, kernel.shaping):
        return _named_kind(keyword)
    return None


def _named_kind(name: str) -> str:
    return "group" if "GROUP" in name.upper() else "block"


def _tunable(name: str, tiles: frozenset[str] | set[str]) -> bool:
    return bool(TILE_NAME.search(name)) or (name in tiles and not PROBLEM_NAME.search(name))


def _value_children(node: ast.AST) -> list[ast.expr]:
    """Where a value flows from: operands and call arguments, never a condition, an index
    or the function called (a threshold is not a knob)."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Call):
        return list(node.args) + [k.value for k in node.keywords]
    if isinstance(node, ast.Tuple | ast.List):
        return list(node.elts)
    return []


def _int(node) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _module_constants(tree: ast.Module) -> dict[str, ast.Constant]:
    """Module-level names bound exactly once, to an integer literal (or tl.constexpr(int)),
    and never declared global inside a function (which could rebind them)."""
    seen: dict[str, list] = {}
    for node in _module_level(tree.body):
        for name, value in _assigned(node):
            if isinstance(value, ast.Call) and _callee(value) == "constexpr" and value.args:
                value = value.args[0]
            seen.setdefault(name, []).append(value)
    rebound = {name for node in ast.walk(tree) if isinstance(node, ast.Global)
               for name in node.names}
    return {name: values[0] for name, values in seen.items()
            if len(values) == 1 and _int(values[0]) is not None and name not in rebound}


def _module_level(body: list[ast.stmt]):
    """Statements at module level, inside if/for/with/try too, not in functions or classes."""
    for node in body:
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for name in ("body", "orelse", "finalbody"):
                yield from _module_level(getattr(node, name, []))
            for handler in getattr(node, "handlers", []):
                yield from _module_level(handler.body)


def _constexpr_globals(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
                _is_constexpr(node.annotation):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                _callee(node.value) == "constexpr":
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names
