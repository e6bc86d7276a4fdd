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


def snapshot() -> dict[str, object]:
    return {_name(owner, attr): getattr(owner, attr, None) for owner, attr in WATCHED}


def changed(before: dict[str, object]) -> list[str]:
    now = snapshot()
    return [name for name, ref in before.items() if now.get(name) is not ref]


def _name(owner, attr: str) -> str:
    return f"{getattr(owner, '__qualname__', None) or owner.__name__}.{attr}"
