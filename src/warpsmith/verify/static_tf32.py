"""The strict-fp32 scan: a `tl.dot` (or `@` in a kernel) that a GPU would run in TF32. Only
for tasks that are strict fp32; the pipeline adds its findings to the scan's."""

from __future__ import annotations

import ast

from .static_base import REJECT, Finding
from .static_rules import bindings, paths_of


def tf32_dots(source: str) -> list[Finding]:
    """For a strict-fp32 task: each `tl.dot` (or `@` in a kernel) that a GPU runs in TF32.
    The CPU interpreter multiplies exactly, so only this scan sees it there."""
    from .. import pyparse

    try:
        tree = pyparse.parse(source)
    except SyntaxError:
        return []
    names = bindings(tree)
    found = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Call) and _is_tl_dot(node.func, names) and not _ieee(node)
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


def _ieee(call: ast.Call) -> bool:
    given = {k.arg: k.value for k in call.keywords}
    if len(call.args) >= 4:
        given.setdefault("input_precision", call.args[3])
    if len(call.args) >= 5:
        given.setdefault("allow_tf32", call.args[4])
    precision, tf32 = given.get("input_precision"), given.get("allow_tf32")
    if precision is not None:
        # tf32x3 splits each operand in three TF32 parts: about fp32's accuracy, which the
        # GPU's comparison then judges like any other kernel's
        return isinstance(precision, ast.Constant) and precision.value in ("ieee", "tf32x3")
    return isinstance(tf32, ast.Constant) and tf32.value is False


def _inside_kernel(tree: ast.Module, target: ast.AST) -> bool:
    from .static import _triton_kernels

    return any(target is n for k in _triton_kernels(tree) for n in ast.walk(k))
