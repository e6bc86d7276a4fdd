"""GPU timing, the candidate's side: its own calls only, a block at a time when asked.

After the checked calls the worker warms the candidate up on the timing sets (fresh sets no
checked call used), sends a timing frame `ready` and waits. Each `go` on its stdin is one
block of timed calls, answered by a timing frame with their times and the probe values;
`end` closes. Between its blocks the trusted process times eager and torch.compile itself,
with this process stopped (verify/baselines.py), in an order it draws: nothing here can
slow a baseline down or tell when one runs. Outputs of timed calls are probed at secret
positions so a kernel that changes behaviour once it is timed is caught. Its numbers are
measurements, not verdicts: the trusted side checks them (outcome.timing_problem).
"""

from __future__ import annotations

import json

import torch
from torch.utils._pytree import tree_leaves

from .. import cudadriver
from ..protocol import END, GO, TIMING
from ..stopwatch import Slots, flush_buffer, timed_call, warm_up
from . import integrity

_dumps = json.dumps  # bound before the candidate is imported


def time_candidate(job: dict, models: dict, data: dict, module_task: str, channel) -> dict:
    """`channel`: (send(header, payload), read_line()) to the trusted side. Returns what the
    report keeps: whether the persisting-L2 limit was raised, and torch state changed."""
    from ...config import profile
    from ...tasks.loader import load_task, tf32_policy

    send, read_line = channel
    prof, task = profile(job["profile"]), load_task(module_task)
    # Timed calls see only inputs the candidate was never checked on (made by the worker
    # from their seeds just now; the checked calls' inputs were freed after each call).
    pool = [(i, c["inputs"]) for i, c in enumerate(data["cases"]) if c["variant"] == "timing"]
    model, probes = models[job["timed_shape"]], {int(k): v for k, v in job["probes"].items()}
    slots, flush = Slots(pool), flush_buffer("cuda")
    raised, tampered = 0, set()
    with torch.no_grad(), tf32_policy(task):
        warm_up(model, pool, prof.warmup_s)
        send({"frame": TIMING, "kind": "ready"}, b"")
        while (line := read_line()) == GO.decode().strip():
            cudadriver.reset_persisting_l2()
            times, probe_log = [], []
            for _ in range(prof.calls_per_block):
                case, inputs = slots.next("candidate")
                raised += _guard_persisting_l2()
                state = integrity.knobs()
                us, out = timed_call(model, inputs, flush)
                times.append(us)
                probe_log.append(_probe(out, case, probes))
                tampered.update(integrity.knobs_changed(state))
                del out
            raised += _guard_persisting_l2()
            send({"frame": TIMING, "kind": "block"},
                 _dumps({"times_us": times, "probes": probe_log}).encode())
    if line != END.decode().strip():
        raise RuntimeError("the trusted side ended the timing without its end line")
    return {"persisting_l2_raised": raised, "tampered": sorted(tampered)}


def _guard_persisting_l2() -> int:
    """1 when the persisting-L2 limit is no longer 0 (someone raised it since the block's
    reset: only the candidate's code runs in between), after putting it back to 0 (E31)."""
    if cudadriver.persisting_l2_limit() == 0:
        return 0
    cudadriver.reset_persisting_l2()
    return 1


def _probe(out, case: int, probes: dict) -> dict:
    first = next(t for t in tree_leaves(out) if isinstance(t, torch.Tensor))
    idx = torch.tensor(probes[case], device=first.device) % max(1, first.numel())
    return {"case": case, "values": first.reshape(-1)[idx].double().cpu().tolist()}
