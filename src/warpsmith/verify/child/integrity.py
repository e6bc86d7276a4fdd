"""Identity checks on the functions the worker's copies and timing rely on (E26).

References are taken before the candidate is imported and compared after its calls: a
candidate that swaps `torch.cuda.Event.elapsed_time`, `torch.cuda.synchronize` or
`Tensor.clone` for its own is rejected. The static scan forbids the usual means; this catches
the unusual ones. (Native-level tampering, E27, is out of its reach: docs/verifier.md.)
"""

from __future__ import annotations

import time

import torch

from .. import cudadriver

WATCHED = (
    (torch, "equal"), (torch, "empty_like"), (torch.Tensor, "clone"), (torch.Tensor, "copy_"),
    (torch.Tensor, "fill_"), (torch.Tensor, "zero_"), (torch.Tensor, "to"),
    (torch.Tensor, "contiguous"), (torch.cuda, "synchronize"), (torch.cuda, "Event"),
    (torch.cuda.Event, "record"), (torch.cuda.Event, "elapsed_time"),
    (torch.cuda.Event, "synchronize"), (time, "perf_counter"),
    (cudadriver, "persisting_l2_limit"), (cudadriver, "reset_persisting_l2"),
)


# Process-wide torch state that eager PyTorch and torch.compile read when they are timed in
# this process: a candidate that turns flash attention, cuDNN or TF32 off, or the NaN fill or
# grad mode on, slows the baselines and inflates its own speedup. Read, never set, here.
KNOBS = {
    "default_dtype": lambda: torch.get_default_dtype(),
    "float32_matmul_precision": lambda: torch.get_float32_matmul_precision(),
    "grad_enabled": lambda: torch.is_grad_enabled(),
    "deterministic": lambda: (torch.are_deterministic_algorithms_enabled(),
                              torch.is_deterministic_algorithms_warn_only_enabled(),
                              torch.utils.deterministic.fill_uninitialized_memory),
    "anomaly": lambda: torch.is_anomaly_enabled(),
    "threads": lambda: (torch.get_num_threads(), torch.get_num_interop_threads()),
    "cudnn": lambda: (torch.backends.cudnn.enabled, torch.backends.cudnn.benchmark,
                      torch.backends.cudnn.deterministic, torch.backends.cudnn.allow_tf32),
    "cuda_matmul": lambda: (torch.backends.cuda.matmul.allow_tf32,
                            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
                            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction),
    "sdp": lambda: (torch.backends.cuda.flash_sdp_enabled(),
                    torch.backends.cuda.mem_efficient_sdp_enabled(),
                    torch.backends.cuda.math_sdp_enabled(),
                    torch.backends.cuda.cudnn_sdp_enabled()),
    "blas": lambda: str(torch.backends.cuda.preferred_blas_library()),
}


def snapshot() -> dict[str, object]:
    return {_name(owner, attr): getattr(owner, attr, None) for owner, attr in WATCHED}


def changed(before: dict[str, object]) -> list[str]:
    now = snapshot()
    return [name for name, ref in before.items() if now.get(name) is not ref]


def knobs() -> dict[str, object]:
    return {name: _read(read) for name, read in KNOBS.items()}


def knobs_changed(before: dict[str, object], skip: tuple[str, ...] = ()) -> list[str]:
    """`skip`: knobs the worker itself sets in between (the NaN fill's deterministic mode)."""
    now = knobs()
    return [f"torch state {name}" for name, value in before.items()
            if name not in skip and now.get(name) != value]


def _read(read):
    try:
        return read()
    except Exception as e:  # a knob this build of torch lacks reads as its error, steadily
        return f"unreadable: {type(e).__name__}"


def _name(owner, attr: str) -> str:
    return f"{getattr(owner, '__qualname__', None) or owner.__name__}.{attr}"


class OomWatch:
    """The requests that torch's CUDA allocator itself failed (its out-of-memory observer,
    attached before the candidate is imported). An OutOfMemoryError the candidate raised, or a
    class of its own by that name, leaves no request here, so the trusted side can tell the
    machine's out-of-memory (too_large, nobody's fault) from a faked one (E48); and the failed
    request's size counts against the candidate's share: one petabyte request is its own."""

    def __init__(self):
        self.requests: list[int] = []

    def install(self, device: torch.device) -> None:
        attach = getattr(torch._C, "_cuda_attach_out_of_memory_observer", None)
        if device.type == "cuda" and attach is not None:  # absent: no OOM is the machine's
            attach(self._seen)

    def _seen(self, device, alloc, *_):
        self.requests.append(int(alloc))

    def evidence(self, error: BaseException) -> int | None:
        """The failed request's bytes when `error` is torch's own out-of-memory error and the
        allocator saw it fail; None otherwise. Also None once CuPy is loaded: its pool
        allocates beside torch's, uncounted, so an OOM after it is not the plan's shortfall."""
        import sys

        if type(error) is not torch.OutOfMemoryError or not self.requests or \
                "cupy" in sys.modules:
            return None
        return self.requests[-1]
