"""Which PyTorch compute ops the candidate's forward ran itself (outside its kernels).

A torch-dispatch mode sees every ATen op; ops inside torch functions the task allows are not
counted. Allocation, views, reshapes and copies are always allowed: they move no arithmetic.
Nothing is exempt while a Triton kernel launches: user callbacks (heuristics, pre-hooks) and,
on the CPU, interpreted kernel bodies run there, and Triton's own launch path only allocates
and copies (checked for triton 3.6: do_bench and the interpreter use empty, zero_, copy_,
set_).

Ops are compared with their namespace (`aten::add`, never `mylib::add`): a custom op named
like an allowed one is still a custom op. Host access to tensor data (`tolist`, `numpy`,
`apply_`, printing: str/repr/format of a tensor run with modes off) is seen here however it
was reached, bound or unbound, since each passes through the torch-function mode first.
"""

from __future__ import annotations

import os
import sys
import threading

import torch
from torch.overrides import TorchFunctionMode, resolve_name
from torch.utils._python_dispatch import TorchDispatchMode

ALWAYS_ALLOWED = {
    # allocation
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros",
    "zeros_like", "ones", "ones_like", "full", "full_like", "new_zeros", "new_ones",
    "new_full", "fill", "zero", "scalar_tensor", "lift_fresh", "lift_fresh_copy", "arange",
    "resize",
    # views and reshapes
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "permute", "transpose",
    "t", "expand", "squeeze", "unsqueeze", "slice", "select", "alias", "detach", "split",
    "split_with_sizes", "chunk", "unbind", "narrow", "movedim", "flatten", "unflatten",
    "view_as_real", "view_as_complex", "unfold", "diagonal",
    # copies: contiguous(), .to(), assembling outputs
    "clone", "copy", "_to_copy", "contiguous", "set", "cat", "stack",
    # dtype arithmetic, no tensor data read: an output's dtype picked (round 10, c16)
    "promote_types", "result_type", "can_cast",
}  # not _local_scalar_dense: .item() on data in forward is computing on the host
# Tensor methods that hand the data to host Python: the compute that follows is invisible.
HOST_ACCESS = {f"torch.Tensor.{name}" for name in (
    "tolist", "numpy", "apply_", "map_", "map2_", "__repr__", "__format__", "__array__",
    "__array_wrap__", "__dlpack__", "__reduce_ex__", "__getstate__")}

# Threads alive when the harness loaded (before any candidate), and forks since: a thread the
# candidate started at import or in __init__ runs outside the thread-local guard, and a forked
# child outside the process the guard watches.
_HARNESS_THREADS = {t.ident for t in threading.enumerate()}
_FORKS = [0]
os.register_at_fork(after_in_parent=lambda: _FORKS.__setitem__(0, _FORKS[0] + 1))


# torch's switches that turn the guard's modes or the Python dispatch key off for what runs
# inside them (E57). The static scan refuses them by identity (static/escapes.py, mode-switch);
# here, where the scan cannot see (an object reached at run time), each is replaced in torch's
# namespaces by a wrapper that records a use from outside torch before the candidate's import
# (watch_switches), and the guard checks the switched-off state itself on every op it sees.
SWITCHES = ("ExcludeDispatchKeyGuard", "_ExcludeDispatchKeyGuard", "DisableTorchFunction",
            "_DisableTorchDispatch", "_EnablePythonDispatcher", "_DisablePythonDispatcher",
            "_ForceDispatchKeyGuard", "_IncludeDispatchKeyGuard", "_SetExcludeDispatchKeyGuard",
            "_dispatch_tls_set_dispatch_key_excluded", "_set_torch_function_state",
            "_pop_torch_function_stack", "_pop_torch_dispatch_stack", "_unset_dispatch_mode",
            "_RestorePythonTLSSnapshot", "_EnableTorchFunction")
_SWITCHED: list[str] = []  # uses seen, in any call or at import: each guard reports them
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_PYTHON_KEY = torch._C.DispatchKey.Python
_key_excluded = torch._C._dispatch_tls_is_dispatch_key_excluded
_function_all_off = torch._C._is_torch_function_all_disabled


def watch_switches() -> None:
    """Before the candidate's import: a use of a switch by code outside torch (torch's own
    custom-op and subclass paths use some) is recorded, whatever name reached it."""
    for name in SWITCHES:
        original = getattr(torch._C, name, None)
        if original is None or getattr(original, "_warpsmith_watched", False):
            continue
        watched = _watched(name, original)
        for owner in (torch._C, torch):
            if getattr(owner, name, None) is original:
                setattr(owner, name, watched)


def _watched(name: str, original):
    frame = sys._getframe

    def switch(*args, **kwargs):
        caller = frame(1).f_code.co_filename
        if not caller.startswith(_TORCH_DIR):
            _SWITCHED.append(f"torch._C.{name} (switches the op guard off), from {caller}")
        return original(*args, **kwargs)

    switch._warpsmith_watched = True
    return switch


def _switched_off() -> list[str]:
    """The guard's state switched off where this code runs: the Python dispatch key excluded
    (the dispatch mode sees no ATen op) or every torch function off (no host read is seen)."""
    found = ["Python dispatch key excluded (the dispatch guard is blind)"] * \
        bool(_key_excluded(_PYTHON_KEY))
    return found + ["torch functions switched off (DisableTorchFunction)"] * \
        bool(_function_all_off())


class OpGuard:
    """Context manager recording forbidden ATen op names run during one forward call.

    The modes on torch's stack (which torch helpers hand to anyone who asks: E69) hold only
    closures over the record, never the guard or the record itself; reaching those takes
    a closure's cell, a dunder the scan refuses. The guard's own code and its modes' are
    compared at exit with what was loaded, so a patch made during the call is recorded."""

    def __init__(self, allowed_torch: tuple[str, ...]):
        self.forbidden: set[str] = set()
        self._modes = _modes(allowed_torch, self.forbidden)
        self._made = [dict(object.__getattribute__(m, "__dict__")) for m in self._modes]

    def __enter__(self):
        self.forbidden.update(_outside_the_guard() + _SWITCHED + _switched_off())
        for mode in self._modes:
            mode.__enter__()
        return self

    def __exit__(self, *exc):
        for mode in reversed(self._modes):
            mode.__exit__(*exc)
        # a fork or a thread started in forward, a switch used or left on, the guard patched
        self.forbidden.update(_outside_the_guard() + _SWITCHED + _switched_off()
                              + _patched(self._modes, self._made))


def _modes(allowed_torch: tuple[str, ...], forbidden: set[str],
           always: frozenset = frozenset(ALWAYS_ALLOWED),
           host_access: frozenset = frozenset(HOST_ACCESS)):
    """The two modes, sharing a record and an allowed-function depth only through closures.
    The allow-lists are frozen when this module loads, before any candidate: a module
    global read at each op was replaced with a string by enum.global_enum (E81), which made
    the membership test a substring test."""
    allowed_functions = frozenset(allowed_torch)
    allowed_ops = frozenset(f"aten::{name.rsplit('.', 1)[-1]}" for name in allowed_torch)
    inside_allowed = [0]

    def check(func) -> None:
        if inside_allowed[0]:
            return
        if _function_all_off():  # ops under DisableTorchFunction: host reads unseen there
            forbidden.add("torch functions switched off (DisableTorchFunction)")
        namespace, name = func.namespace, func.overloadpacket.__name__
        base = name.rstrip("_") or name
        if namespace != "aten" or base not in always and name not in always \
                and f"aten::{base}" not in allowed_ops:
            forbidden.add(f"{namespace}.{name}")

    def check_function(qualified: str) -> int:
        """Records host access; the depth change an allowed function makes (1 or 0)."""
        if not inside_allowed[0]:
            if qualified in host_access:
                forbidden.add(f"{qualified} (tensor data on the host)")
            if _key_excluded(_PYTHON_KEY):  # the dispatch mode cannot see what this one runs
                forbidden.add(f"{qualified} with the Python dispatch key excluded")
        allowed = qualified in allowed_functions
        inside_allowed[0] += allowed
        return allowed

    def leave(allowed: int) -> None:
        inside_allowed[0] -= allowed

    return _FunctionMode(check_function, leave), _DispatchMode(check)


def _patched(modes, made: list[dict]) -> list[str]:
    """The guard's code as loaded: its classes' attributes, and its modes' own as made (the
    names and values; torch's base class keeps its flags there too, compared by name)."""
    changed = [cls.__qualname__ for cls, attrs in _LOADED.items()
               if dict(type.__getattribute__(cls, "__dict__")) != attrs]
    for mode, attrs in zip(modes, made, strict=True):
        now = object.__getattribute__(mode, "__dict__")
        if type(mode) not in _LOADED or set(now) != set(attrs) or any(
                now[k] is not v for k, v in attrs.items() if k in _MODE_ATTRS):
            changed.append(type(mode).__qualname__)
    return [f"the op guard changed during the call ({', '.join(changed)})"] * bool(changed)


def _outside_the_guard() -> list[str]:
    found = [f"thread {t.name!r} (started outside forward, unguarded)"
             for t in threading.enumerate() if t.ident not in _HARNESS_THREADS
             and t is not threading.main_thread() and not _native(t)]
    found += [f"raw thread {ident} (started with _thread: threading does not list it)"
              for ident in _raw_threads()]
    found += [f"torch.Tensor subclass {name} made at run time (its handlers run inside "
              "allowed ops)" for name in _new_tensor_subclasses()]
    return found + ["os.fork (a child process computes unguarded)"] * bool(_FORKS[0])


def _raw_threads() -> list[int]:
    """Threads running Python that threading does not know: `_thread.start_new_thread` (E58)
    made one at import that computed every forward's answer with torch, unguarded (the modes
    are thread-local). Native threads appear only while they run Python, as a _DummyThread."""
    known = {t.ident for t in threading.enumerate()} | _HARNESS_THREADS
    return sorted(i for i in sys._current_frames() if i not in known)


def _tensor_subclasses() -> set[type]:
    found, todo = set(), [torch.Tensor]
    while todo:  # type's own method: a metaclass of the candidate's cannot answer for it
        for sub in type.__subclasses__(todo.pop()):
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


# Subclasses of torch.Tensor that existed when the harness loaded. One made later by the
# candidate (`type(type)("T", (torch.Tensor,), ns)`, make_dataclass(bases=...), E58) runs its
# __torch_function__/__torch_dispatch__ inside ops the guard allows (copy_, clone); the static
# scan refuses the class statement and the three-argument type(), this sees the class however
# it was made. torch's own, imported lazily, are found by identity in their module.
_HARNESS_SUBCLASSES = _tensor_subclasses()


def _new_tensor_subclasses() -> list[str]:
    return sorted(type.__getattribute__(c, "__qualname__") for c in _tensor_subclasses()
                  if c not in _HARNESS_SUBCLASSES and not _torch_own(c))


def _torch_own(cls: type) -> bool:
    module = sys.modules.get(type.__getattribute__(cls, "__module__"))
    path = getattr(module, "__file__", None) or ""
    namespace = vars(module) if isinstance(module, type(sys)) else {}
    return path.startswith(_TORCH_DIR) and any(v is cls for v in dict.values(namespace))


def _native(thread: threading.Thread) -> bool:
    """A thread torch or a driver started in C and that merely called into Python."""
    return type(thread).__name__ == "_DummyThread"


class _FunctionMode(TorchFunctionMode):
    def __init__(self, check_function, leave):
        super().__init__()
        self.check_function, self.leave = check_function, leave

    def __torch_function__(self, func, types, args=(), kwargs=None):
        allowed = self.check_function(_qualified(func))
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self.leave(allowed)


class _DispatchMode(TorchDispatchMode):
    def __init__(self, check):
        super().__init__()
        self.check = check

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.check(func)
        return func(*args, **(kwargs or {}))


# What the guard's classes held when the harness loaded, and the attributes its modes set
# themselves (compared by value; torch's base class adds its own, compared by name).
_LOADED = {cls: dict(vars(cls)) for cls in (OpGuard, _FunctionMode, _DispatchMode)}
_MODE_ATTRS = {"check_function", "leave", "check"}


def _qualified(func) -> str:
    try:
        return resolve_name(func) or ""
    except Exception:  # some callables have no resolvable name
        return ""
