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
import threading

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


class OpGuard:
    """Context manager recording forbidden ATen op names run during one forward call."""

    def __init__(self, allowed_torch: tuple[str, ...]):
        self.allowed_functions = set(allowed_torch)
        self.allowed_ops = {f"aten::{name.rsplit('.', 1)[-1]}" for name in allowed_torch}
        self.inside_allowed = 0
        self.forbidden: set[str] = set()
        self._modes = (_FunctionMode(self), _DispatchMode(self))

    def __enter__(self):
        self.forbidden.update(_outside_the_guard())
        for mode in self._modes:
            mode.__enter__()
        return self

    def __exit__(self, *exc):
        for mode in reversed(self._modes):
            mode.__exit__(*exc)
        self.forbidden.update(_outside_the_guard())  # a fork or a thread started in forward

    def check(self, func) -> None:
        if self.inside_allowed:
            return
        namespace, name = func.namespace, func.overloadpacket.__name__
        base = name.rstrip("_") or name
        if namespace != "aten" or base not in ALWAYS_ALLOWED and name not in ALWAYS_ALLOWED \
                and f"aten::{base}" not in self.allowed_ops:
            self.forbidden.add(f"{namespace}.{name}")

    def check_function(self, qualified: str) -> None:
        if not self.inside_allowed and qualified in HOST_ACCESS:
            self.forbidden.add(f"{qualified} (tensor data on the host)")


def _outside_the_guard() -> list[str]:
    found = [f"thread {t.name!r} (started outside forward, unguarded)"
             for t in threading.enumerate() if t.ident not in _HARNESS_THREADS
             and t is not threading.main_thread() and not _native(t)]
    return found + ["os.fork (a child process computes unguarded)"] * bool(_FORKS[0])


def _native(thread: threading.Thread) -> bool:
    """A thread torch or a driver started in C and that merely called into Python."""
    return type(thread).__name__ == "_DummyThread"


class _FunctionMode(TorchFunctionMode):
    def __init__(self, guard: OpGuard):
        super().__init__()
        self.guard = guard

    def __torch_function__(self, func, types, args=(), kwargs=None):
        qualified = _qualified(func)
        self.guard.check_function(qualified)
        allowed = qualified in self.guard.allowed_functions
        self.guard.inside_allowed += allowed
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self.guard.inside_allowed -= allowed


class _DispatchMode(TorchDispatchMode):
    def __init__(self, guard: OpGuard):
        super().__init__()
        self.guard = guard

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.guard.check(func)
        return func(*args, **(kwargs or {}))


def _qualified(func) -> str:
    try:
        return resolve_name(func) or ""
    except Exception:  # some callables have no resolvable name
        return ""
