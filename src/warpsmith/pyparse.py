"""`ast.parse` behind one lock. CPython 3.11's AST constructor keeps its recursion depth in
module-wide state, so two threads parsing at once can fail with "SystemError: AST constructor
recursion depth mismatch" (python/cpython#106905). Searches parse candidates on several
threads (parallel chains, evolve's islands, the reward service's dispatchers)."""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    with _LOCK:
        return ast.parse(source, filename=filename)
