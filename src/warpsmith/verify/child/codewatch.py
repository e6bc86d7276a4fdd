"""Python compiled from strings while the candidate runs (E29: exec in disguise).

A library that pastes a string into source it compiles runs whatever the string says: torch.fx
wrote a call_method target verbatim into the forward it execs, and triton.language.str_to_ty
evals the layout of a "tensordesc<...>" type; a candidate that builds the string at run time
shows the static scan nothing, and the code it smuggles can switch the guards off. A
`compile` audit hook (which no code in the process can remove) sees every compilation of
source before it runs, with the Python function that asked for it. Allowed: the import
system, `ast.parse` (an AST is no code), and the generators that write their source from
identifiers only: namedtuple, dataclasses, Triton's argument binder and interpreter, mpmath's
arithmetic, torch's custom-op schema inference. Anything else is refused before it runs (the
compile raises) and recorded: the verdict is `rejected` (rule dynamic-code).
"""

from __future__ import annotations

import sys

# Where the Python code that calls compile/exec/eval lives, for the callers allowed.
CALLERS = ("<frozen importlib._bootstrap_external>", "<frozen importlib._bootstrap>",
           "/collections/__init__.py", "/dataclasses.py", "/ast.py",
           "/triton/runtime/jit.py", "/triton/runtime/interpreter.py", "/mpmath/",
           "/torch/_library/")
_STATE: dict = {"found": None}
_frame = sys._getframe


class DynamicCode(RuntimeError):
    """Code compiled from a string the candidate may control: refused."""


def install() -> list[str]:
    """Start watching; returns the list the refused sources go to (their caller and start)."""
    _STATE["found"] = found = []
    sys.addaudithook(_hook)
    return found


def _hook(event: str, args) -> None:
    if event != "compile" or _STATE["found"] is None:
        return
    caller = _frame(1).f_code.co_filename
    if any(caller.endswith(c) or c in caller for c in CALLERS):
        return
    source = args[0]
    text = bytes(source[:160]).decode(errors="replace") if isinstance(
        source, bytes | bytearray) else str(source)[:160]
    _STATE["found"].append(f"{caller}: {text}")
    raise DynamicCode(f"code compiled from a string by {caller} is not allowed")
