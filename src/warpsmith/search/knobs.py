"""The tunable knobs of any Triton candidate, found with `ast` and rewritten in place.

A knob is an integer the candidate picks and Triton compiles in:

- a block size passed to a `tl.constexpr` parameter at a launch site
  `kernel[grid](..., BLOCK=1024)`, as a literal there, or through a local variable, a
  `self.` attribute or a module constant assigned once (`BLOCK = 1024`), or as the cap of
  `min(4096, triton.next_power_of_2(n))`;
- `num_warps` and `num_stages` at a launch site, the same ways; where absent they are added
  (Triton's defaults, 4 warps and 3 stages, apply until then). num_stages only pipelines
  loops, so a kernel without one gets no stages knob;
- a module constant that such a value is computed from (`tile(M, BLOCK_M)`), and a module
  constexpr global a kernel reads (`BLOCK: tl.constexpr = 1024`).

A literal block size that the grid (or a buffer) divides by in the same function —
`triton.cdiv(n, 256)` beside `BLOCK=256`, or `(n + 255) // 256` — is tied to it, so the grid
keeps covering the data. Knobs that share such a literal become one knob. A variant rewrites
those literals and nothing else: every other byte of the file stays as it was.

Deliberately not knobs: parameters that look like problem sizes (`HEAD_DIM=64`), flags
(`HAS_BIAS=True`), integers that are not powers of two where a power of two is needed (they
are likely semantic), values chosen by a branch (`16 if block >= 8192 else 8`) and thresholds
in comparisons. A candidate using `@triton.autotune` has none: its configs already choose
block sizes and warps at run time, and a launch-site value would conflict with them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace

# Triton's defaults when a launch names no num_warps / num_stages (CUDA backend, 3.x).
DEFAULT_WARPS, DEFAULT_STAGES = 4, 3
STEPS = 2  # a ladder reaches this many halvings and doublings (stages: ±1 per step)
BOUNDS = {"block": (16, 1 << 16), "group": (1, 64), "warps": (1, 32), "stages": (1, 6)}
# Names of constexprs that are tile sizes however they are used ...
TILE_NAME = re.compile(r"BLOCK|TILE|GROUP|CHUNK|^B[MNK]$|^BLK", re.IGNORECASE)
# ... and of those that size a problem dimension even when they bound a tl.arange.
PROBLEM_NAME = re.compile(r"DIM|HEAD|SEQ|LEN|NUM|^N$|^N_|SHAPE|STRIDE", re.IGNORECASE)


@dataclass(frozen=True)
class Edit:
    start: int  # byte offsets of an integer literal in the UTF-8 source
    end: int
    offset: int = 0  # the literal holds value + offset (the 255 of `(n + 255) // 256`)


@dataclass(frozen=True)
class Knob:
    name: str
    kind: str  # block, group, warps, stages, scale (a constant another value is computed from)
    value: int  # as written, or Triton's default where the launch names none
    edits: tuple[Edit, ...] = ()
    insert: int | None = None  # where `, num_warps=V` goes when the launch names none
    keyword: str = ""  # the keyword inserted there
    bare: bool = False  # the launch has no arguments: insert without the leading comma

    def ladder(self) -> tuple[int, ...]:
        """The values a tuner may give it, the written value included, ascending: powers of
        two apart (halvings that leave a remainder are skipped), stages one apart."""
        if self.kind == "stages":
            values = set(range(self.value - STEPS, self.value + STEPS + 1))
        else:
            values = {self.value << i for i in range(STEPS + 1)}
            values |= {self.value >> i for i in range(1, STEPS + 1)
                       if self.value % (1 << i) == 0}
        lo, hi = _bounds(self.kind, self.value)
        return tuple(sorted(v for v in values if lo <= v <= hi))


def _bounds(kind: str, value: int) -> tuple[int, int]:
    if kind == "scale":  # unknown meaning: stay within 16x of what the author chose
        return max(1, value // 16), value * 16
    lo, hi = BOUNDS[kind]
    return min(lo, value), max(hi, value)


@dataclass(frozen=True)
class Found:
    knobs: tuple[Knob, ...] = ()
    reason: str = ""  # why there are none, when there are none


def find_knobs(source: str) -> Found:
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return Found(reason=f"the candidate does not parse (line {e.lineno}: {e.msg})")
    module = _Module(source, tree)
    if module.autotuned:
        return Found(reason=f"kernel {module.autotuned} uses @triton.autotune: its configs "
                            "already choose block sizes and warps at run time")
    if not module.kernels:
        return Found(reason="the candidate defines no @triton.jit kernel")
    sites = module.launch_sites()
    if not sites:
        return Found(reason="no launch `kernel[grid](...)` of the candidate's own kernels")
    raw = [k for site in sites for k in module.site_knobs(site)] + module.global_knobs()
    knobs = _named(_merged(raw))
    if not knobs:
        return Found(reason="no integer block size, num_warps or num_stages to vary")
    return Found(tuple(knobs))


def render(source: str, knobs: tuple[Knob, ...] | list[Knob], values: dict[str, int]) -> str:
    """The source with each named knob set to its value; knobs not named keep theirs."""
    data = source.encode()
    changes: list[tuple[int, int, int, bytes]] = []  # start, end, order, text
    for knob in knobs:
        value = values.get(knob.name, knob.value)
        if value == knob.value:
            continue
        changes += [(e.start, e.end, len(changes), str(value + e.offset).encode())
                    for e in knob.edits]
        if knob.insert is not None:
            # kernel[grid](): a trailing comma lets a second keyword follow the first
            text = f"{knob.keyword}={value}, " if knob.bare else f", {knob.keyword}={value}"
            changes.append((knob.insert, knob.insert, len(changes), text.encode()))
    # Back to front, so earlier offsets hold; two insertions at one place keep knob order.
    for start, end, _, text in sorted(changes, reverse=True):
        data = data[:start] + text + data[end:]
    return data.decode()


# ---------------------------------------------------------------------------------------
# Discovery


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
class _Kernel:
    name: str
    params: tuple[str, ...]
    constexprs: frozenset[str]
    shaping: frozenset[str]  # names that bound a tl.arange or size a block (tl.zeros, ...)
    has_loop: bool


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


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _decorator_name(dec: ast.expr) -> str:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def _is_jit(node: ast.FunctionDef) -> bool:
    return any(_decorator_name(d) == "jit" for d in node.decorator_list)


def _autotuned(node: ast.FunctionDef) -> bool:
    return any(_decorator_name(d) == "autotune" for d in node.decorator_list)


def _heuristic_keys(node: ast.FunctionDef) -> set[str]:
    """Constexprs a @triton.heuristics decorator computes: not ours to set at the launch."""
    keys: set[str] = set()
    for dec in node.decorator_list:
        if _decorator_name(dec) == "heuristics" and isinstance(dec, ast.Call) and dec.args \
                and isinstance(dec.args[0], ast.Dict):
            keys |= {k.value for k in dec.args[0].keys if isinstance(k, ast.Constant)}
    return keys


def _is_constexpr(annotation: ast.expr | None) -> bool:
    return annotation is not None and (
        getattr(annotation, "attr", None) == "constexpr"
        or getattr(annotation, "id", None) == "constexpr")


def _kernel(node: ast.FunctionDef) -> _Kernel:
    params = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
    constexprs = {a.arg for a in params if _is_constexpr(a.annotation)} - _heuristic_keys(node)
    shaping: set[str] = set()
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        name = _callee(call)
        if name == "arange":
            shaping |= {n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name)}
        elif name in ("zeros", "full", "empty") and call.args:
            shaping |= {n.id for n in ast.walk(call.args[0]) if isinstance(n, ast.Name)}
    loops = any(isinstance(n, ast.For | ast.While) for n in ast.walk(node))
    return _Kernel(node.name, tuple(a.arg for a in params), frozenset(constexprs),
                   frozenset(shaping), loops)


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


# ---------------------------------------------------------------------------------------
# Merging and naming


def _valid(raw: _Raw) -> bool:
    """Block sizes, warps and derived constants must stay powers of two (tl.arange needs
    them, Triton rejects other warp counts); an odd value is likely semantic, not a knob."""
    v = raw.value
    if raw.kind == "stages":
        return 1 <= v <= 8
    pow2 = v >= 1 and v & (v - 1) == 0
    if raw.kind == "warps":
        return pow2 and v <= 32
    if raw.kind == "group":
        return v >= 2
    return pow2 and v >= 2


def _merged(raws: list[_Raw]) -> list[_Raw]:
    """Knobs sharing a literal are one knob (a constant used at two launches, BM and BN
    tied through one grid literal). The first kind seen wins, a direct kind over scale."""
    merged: list[_Raw] = []
    for raw in (r for r in raws if _valid(r)):
        overlapping = [m for m in merged if m.edits & raw.edits]
        if not overlapping:
            merged.append(replace(raw, edits=set(raw.edits)))
            continue
        head = overlapping[0]
        for other in overlapping[1:] + [raw]:
            head.edits |= other.edits
            if other is not raw:
                merged.remove(other)
            if other.label not in head.label.split("+"):
                head.label += f"+{other.label}"
            if head.kind == "scale":
                head.kind = other.kind
    return merged


def _named(raws: list[_Raw]) -> list[Knob]:
    knobs, used = [], set()
    for raw in raws:
        name, n = raw.label, 2
        while name in used:
            name, n = f"{raw.label}#{n}", n + 1
        used.add(name)
        knobs.append(Knob(name, raw.kind, raw.value, tuple(sorted(raw.edits, key=_edit_key)),
                          raw.insert, raw.keyword, raw.bare))
    return knobs


def _edit_key(edit: Edit) -> tuple[int, int]:
    return edit.start, edit.end
