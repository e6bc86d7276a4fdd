"""What a Triton kernel declares, read from its `def` with `ast`: its parameters, which are
constexprs (less those a @triton.heuristics decorator computes), which names shape a block,
whether it loops; and how its decorators read (jit, autotune)."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class _Kernel:
    name: str
    params: tuple[str, ...]
    constexprs: frozenset[str]
    shaping: frozenset[str]  # names that bound a tl.arange or size a block (tl.zeros, ...)
    has_loop: bool


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
