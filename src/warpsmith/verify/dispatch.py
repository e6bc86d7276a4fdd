"""Which PyTorch compute ops the candidate's forward ran itself (outside its kernels).

A torch-dispatch mode sees every ATen op; ops inside torch functions the task allows are not
counted. Allocation, views, reshapes and copies are always allowed: they move no arithmetic.
Nothing is exempt while a Triton kernel launches: user callbacks (heuristics, pre-hooks) and,
on the CPU, interpreted kernel bodies run there, and Triton's own launch path only allocates
and copies (checked for triton 3.6: do_bench and the interpreter use empty, zero_, copy_,
set_).
"""

from __future__ import annotations

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


class OpGuard:
    """Context manager recording forbidden ATen op names run during one forward call."""

    def __init__(self, allowed_torch: tuple[str, ...]):
        self.allowed_functions = set(allowed_torch)
        self.allowed_ops = {name.rsplit(".", 1)[-1] for name in allowed_torch}
        self.inside_allowed = 0
        self.forbidden: set[str] = set()
        self._modes = (_FunctionMode(self), _DispatchMode(self))

    def __enter__(self):
        for mode in self._modes:
            mode.__enter__()
        return self

    def __exit__(self, *exc):
        for mode in reversed(self._modes):
            mode.__exit__(*exc)

    def check(self, func) -> None:
        if self.inside_allowed:
            return
        name = func.overloadpacket.__name__
        base = name.rstrip("_") or name
        if base not in ALWAYS_ALLOWED and name not in ALWAYS_ALLOWED \
                and base not in self.allowed_ops:
            self.forbidden.add(f"aten.{name}")


class _FunctionMode(TorchFunctionMode):
    def __init__(self, guard: OpGuard):
        super().__init__()
        self.guard = guard

    def __torch_function__(self, func, types, args=(), kwargs=None):
        allowed = _qualified(func) in self.guard.allowed_functions
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
