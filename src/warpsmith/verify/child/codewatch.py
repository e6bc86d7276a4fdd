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

A generator is safe only while what it pastes is an identifier, and it checks that with the
name's own methods: a `str` subclass whose `isidentifier` says True (make_dataclass's only
check of a field name) or whose `__str__` returns one (namedtuple's), or a class body that
wrote a non-identifier key into `__annotations__`, put any Python into the source dataclasses
execs (E52: `(self.box,<any expression>,)` in a generated `__eq__`). So a generator's compile
is allowed only when every name on its frames is a plain `str` and, for a dataclass field or a
signature's parameter, a real identifier (checked with `str`'s own methods).
"""

from __future__ import annotations

import enum
import importlib.util
import inspect
import keyword
import os
import sys
import types
from dataclasses import Field

from . import dispatch

# Where the Python code that calls compile/exec/eval lives, for the callers allowed.
CALLERS = ("<frozen importlib._bootstrap_external>", "<frozen importlib._bootstrap>",
           "/collections/__init__.py", "/dataclasses.py", "/ast.py",
           "/triton/runtime/jit.py", "/triton/runtime/interpreter.py", "/mpmath/",
           "/torch/_library/",
           # the interpreter's rewrite of a kernel (the AST of its own def), moved there to
           # close the interpreter's doors (lang/triton_compat.harden_interpreter_rewriter)
           "/warpsmith/lang/triton_compat.py")
# The callers above that write source from names (the rest compile files or make an AST).
GENERATORS = ("/collections/__init__.py", "/dataclasses.py", "/triton/runtime/jit.py")
# Code objects and functions made from them at run time: `code.replace(co_names=...)` called
# through `type(fn)(code, {})` ran an import with no import statement and no compile (E58).
# torch and Triton make a few themselves (flex attention's restored function, torch's
# traceback renaming); anyone else is refused before it happens. (Python 3.11 has no audit
# event for a thread's start: raw threads are the guard's, dispatch.py.)
MADE_AT_RUN_TIME = {"code.__new__": ("torch", "triton"), "function.__new__": ("torch", "triton")}
_STATE: dict = {"found": None}
_frame = sys._getframe
_is_identifier, _is_keyword = str.isidentifier, keyword.iskeyword


class DynamicCode(RuntimeError):
    """Code compiled from a string the candidate may control: refused."""


def install() -> list[str]:
    """Start watching; returns the list the refused sources go to (their caller and start).
    The working folder leaves the import path first: `python -m` put it there, and it is the
    candidate's to write, so a module written into it under an allowed name that is not
    installed (`cupy.py`, through Triton's cache manager) was imported and ran unscanned
    (E53); the import system's compile is allowed, and a .pyc is not even compiled."""
    here = os.path.realpath(os.getcwd())
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and os.path.realpath(p) != here]
    _STATE["found"] = found = []
    _STATE["makers"] = {event: _library_dirs(names) for event, names in MADE_AT_RUN_TIME.items()}
    dispatch.watch_switches()  # the guard's off switches: uses recorded from now on (E57)
    _refuse_pointer_casts()
    sys.addaudithook(_hook)
    return found


def _refuse_pointer_casts() -> None:
    """Under the interpreter a Triton pointer is a host address: an integer cast to one (E60:
    `n.to(tl.pointer_type(...))`, however the type was reached) read and wrote any memory of
    this process. The interpreter's builder refuses the cast (a GPU compiles it: the scan's
    pointer-cast rule is the only layer there)."""
    try:
        from triton.runtime.interpreter import InterpreterBuilder
    except ImportError:
        return

    def int_to_ptr(self, src, dst_type):
        _STATE["found"].append("triton: an integer cast to a pointer (int_to_ptr)")
        raise DynamicCode("an integer cast to a pointer in a Triton kernel is not allowed")

    InterpreterBuilder.create_int_to_ptr = int_to_ptr


def _library_dirs(names: tuple[str, ...]) -> tuple[str, ...]:
    dirs = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs += [os.path.join(d, "") for d in spec.submodule_search_locations]
        elif spec is not None and spec.origin:
            dirs.append(spec.origin)
    return tuple(dirs)


def _hook(event: str, args) -> None:
    if _STATE["found"] is None:
        return
    if event in MADE_AT_RUN_TIME:
        _made_at_run_time(event)
    if event != "compile":
        return
    frame = _frame(1)
    caller = frame.f_code.co_filename
    lie = _lying_name(frame) if any(g in caller for g in GENERATORS) else None
    if lie is None and any(caller.endswith(c) or c in caller for c in CALLERS):
        return
    source = args[0]
    text = bytes(source[:160]).decode(errors="replace") if isinstance(
        source, bytes | bytearray) else str(source)[:160]
    why = f" (a name it pastes is not a plain identifier: {lie})" if lie else ""
    _STATE["found"].append(f"{caller}{why}: {text}")
    raise DynamicCode(f"code compiled from a string by {caller} is not allowed{why}")


def _made_at_run_time(event: str) -> None:
    caller = _frame(2).f_code.co_filename  # the Python code that made it (a C caller has none)
    if not caller.startswith(_STATE["makers"][event]):
        _STATE["found"].append(f"{caller}: {event} (made at run time)")
        raise DynamicCode(f"{event} by {caller} is not allowed: code objects and functions "
                          "made from them are not a candidate's business")


def _lying_name(frame, depth: int = 24) -> str | None:
    """The first name on the generator's frames (the caller and the generator frames above
    it) that is not a plain identifier: a str subclass anywhere in a list, tuple, set or
    among a dict's keys, or a dataclass field's or a signature's parameter's name that
    `str.isidentifier` refuses. Only exact types are opened (dataclasses.Field,
    inspect.Signature, list, tuple, set, dict, a module's namespace left shut), and a name is
    judged with str's own methods and named by its type, so no method of the candidate's
    runs here."""
    spaces = _namespaces()
    while frame is not None and depth > 0 and \
            any(g in frame.f_code.co_filename for g in GENERATORS):
        for value in frame.f_locals.values():
            for name in _names_in(value, spaces):
                if not _plain(name):  # said without running any method of the name's
                    return repr(str.__str__(name))[:80] if isinstance(name, str) \
                        else f"a {type(name).__name__}"
        frame, depth = frame.f_back, depth - 1
    return None


def _namespaces() -> set[int]:
    """The ids of the modules' namespaces, found by identity (a key's `__eq__` never runs)."""
    namespace = types.ModuleType.__dict__["__dict__"].__get__
    return {id(namespace(m)) for m in list(sys.modules.values()) if type(m) is types.ModuleType}


def _plain(name) -> bool:
    """An exact str that is an identifier, or a str enum member whose value is one and whose
    class keeps the str and Enum methods a generator calls on a name (an honest
    `class Act(str, Enum)` as a NamedTuple default sat on namedtuple's frames)."""
    if type(name) is str:
        return _is_identifier(name) and not _is_keyword(name)
    kind = type(name)
    return isinstance(name, str) and isinstance(name, enum.Enum) and \
        kind.isidentifier is str.isidentifier and \
        kind.__str__ in (str.__str__, enum.Enum.__str__) and \
        kind.__format__ in (str.__format__, enum.Enum.__format__) and \
        _is_identifier(name) and not _is_keyword(name)


def _names_in(value, spaces: set[int]) -> list:
    if type(value) is Field:
        return [value.name]
    if type(value) is inspect.Signature:
        return list(value.parameters)
    kind = type(value)
    if kind is dict and id(value) in spaces:
        return []  # a module's namespace (the generator's `globals`): nothing it pastes
    if kind is dict:
        items = [*dict.keys(value), *(v for v in dict.values(value) if type(v) is Field)]
    elif kind in (list, tuple, set, frozenset):
        items = list(value)
    else:
        return []
    # plain strings in a container are the generator's own text (args, body lines): only a
    # str subclass among them is a lie; a field inside one is checked like any field
    return [n for i in items for n in (
        [i.name] if type(i) is Field else [i] if isinstance(i, str) and type(i) is not str
        else [])]
