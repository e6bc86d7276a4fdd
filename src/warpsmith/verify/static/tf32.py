"""The strict-fp32 scan: a `tl.dot` (or `@` in a kernel) that a GPU would run in TF32. Only
for tasks that are strict fp32; the pipeline adds its findings to the scan's."""

from __future__ import annotations

import ast

from ... import pyparse
from .base import MAX_SOURCE_CHARS, REJECT, Finding, triton_kernels
from .lookup import bindings, paths_of


def tf32_dots(source: str) -> list[Finding]:
    """For a strict-fp32 task: each `tl.dot` (or `@` in a kernel) that a GPU runs in TF32.
    The CPU interpreter multiplies exactly, so only this scan sees it there."""
    if len(source) > MAX_SOURCE_CHARS:  # refused by the scan (source-too-large), unread
        return []
    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return []
    names = bindings(tree)
    launched = _launch_literals(tree)
    found = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Call) and _is_tl_dot(node.func, names)
             and not _ieee(node, _fixed_by_launches(tree, node, launched))
             or isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult)
             and _inside_kernel(tree, node)]
    found += _dot_as_value(tree, names)
    return [Finding("tf32-dot", REJECT, "tl.dot without input_precision=\"ieee\" (or "
                    "\"tf32x3\") multiplies fp32 operands in TF32 on a GPU, and operands cast "
                    "to fp16/bf16 at that precision; this task is strict fp32 (the CPU "
                    "interpreter multiplies exactly, so it would pass here and fail there)",
                    line) for line in found]


def _dot_as_value(tree: ast.Module, names) -> list[int]:
    """Lines where tl.dot is named but not called: passed to a helper (`apply(tl.dot, a, b)`,
    red-team round of 2026-12-05) or bound to another name, its precision is whatever the
    eventual call leaves, which the scan cannot read."""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute | ast.Name) and id(node) not in called
            and isinstance(node.ctx, ast.Load) and _is_tl_dot(node, names)]


def _is_tl_dot(func: ast.AST, names) -> bool:
    return any(p == "triton.language.dot" or p.endswith("triton.language.core.dot")
               for p in paths_of(func, names))


def _launch_literals(tree: ast.Module) -> dict[str, list[dict]]:
    """Per kernel name, the keywords of each launch (`k[grid](..., ALLOW_TF32=False)`)."""
    out: dict[str, list[dict]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) and \
                isinstance(node.func.value, ast.Name):
            out.setdefault(node.func.value.id, []).append(
                {k.arg: k.value for k in node.keywords if k.arg})
    return out


def _fixed_by_launches(tree: ast.Module, dot: ast.Call, launched: dict) -> dict:
    """A dot's precision given as a constexpr parameter (`allow_tf32=ALLOW_TF32`, as
    triton.ops.matmul wrote it) is the literal every launch of its kernel passes by keyword;
    a kernel launched nowhere in the file, autotuned, or launched once without that
    keyword, fixes nothing (an honest file an outside helper wrote was refused before)."""
    kernel = next((k for k in triton_kernels(tree) if any(n is dot for n in ast.walk(k))),
                  None)
    if kernel is None or kernel.decorator_list and len(kernel.decorator_list) > 1:
        return {}
    launching = {id(n.func.value) for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Subscript) and isinstance(n.func.value, ast.Name)}
    if any(isinstance(n, ast.Name) and n.id == kernel.name and id(n) not in launching
           for n in ast.walk(tree)):  # aliased, handed on, called from a kernel (round 9)
        return {}
    rebound = {n.id for n in ast.walk(kernel) if isinstance(n, ast.Name)
               and isinstance(n.ctx, ast.Store)}
    params = {a.arg for a in kernel.args.args + kernel.args.kwonlyargs
              if a.annotation is not None and "constexpr" in ast.unparse(a.annotation)} - rebound
    launches = launched.get(kernel.name, [])
    fixed = {}
    for name in params:
        values = [call.get(name) for call in launches]
        if values and all(isinstance(v, ast.Constant) for v in values) and \
                len({repr(v.value) for v in values}) == 1:
            fixed[name] = values[0]
    return fixed


def _ieee(call: ast.Call, fixed: dict | None = None) -> bool:
    given = {k.arg: k.value for k in call.keywords}
    if len(call.args) >= 4:
        given.setdefault("input_precision", call.args[3])
    if len(call.args) >= 5:
        given.setdefault("allow_tf32", call.args[4])
    precision, tf32 = given.get("input_precision"), given.get("allow_tf32")
    fixed = fixed or {}
    precision, tf32 = (fixed.get(v.id, v) if isinstance(v, ast.Name) else v
                       for v in (precision, tf32))
    if precision is not None:
        # tf32x3 splits each operand in three TF32 parts: about fp32's accuracy, which the
        # GPU's comparison then judges like any other kernel's
        return isinstance(precision, ast.Constant) and precision.value in ("ieee", "tf32x3")
    return isinstance(tf32, ast.Constant) and tf32.value is False


def _inside_kernel(tree: ast.Module, target: ast.AST) -> bool:
    return any(target is n for k in triton_kernels(tree) for n in ast.walk(k))
