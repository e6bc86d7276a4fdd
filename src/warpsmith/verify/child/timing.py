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

from ...types import Shape
from .. import cudadriver
from ..inputs import case_inputs
from ..protocol import END, GO, TIMING
from ..stopwatch import Slots, flush_buffer, timed_call, warm_up
from . import integrity
from .dispatch import OpGuard

_dumps, _equal = json.dumps, torch.equal  # bound before the candidate is imported


def time_candidate(job: dict, models: dict, data: dict, module_task: str, channel,
                   guards) -> dict:
    """`channel`: (send(header, payload), read_line()) to the trusted side; `guards`: the
    worker's (LaunchLog, _ThreadWatch). Returns what the report keeps: whether the
    persisting-L2 limit was raised, and torch state changed."""
    from ...config import profile
    from ...tasks.loader import load_task, tf32_policy

    send, read_line = channel
    prof, task = profile(job["profile"]), load_task(module_task)
    # The warm-up sees only inputs the candidate was never checked on (made by the worker
    # from their seeds just now), and every timed call fresh ones again, from the seeds its
    # block's go brings: no call's inputs were seen before it (a replay, E18).
    pool = [(k, c.pop("inputs")) for k, c in enumerate(
        c for c in data["cases"] if c["variant"] == "timing")]
    model, by_case = models[job["timed_shape"]], {int(k): v for k, v in job["probes"].items()}
    probes = dict(enumerate(by_case[i] for i in sorted(by_case)))  # per set of a block
    shape = Shape(job["timed_shape"], data["shapes"][job["timed_shape"]]["values"])
    gpu = job["device"] == "cuda"  # on the CPU (tests of the protocol): no L2 to guard
    timer = _Block(model, Slots(pool), flush_buffer(job["device"]), probes, gpu)
    timer.guards = (*guards, tuple(task.allowed_torch))
    timer.make = lambda seed: case_inputs(task, shape, job["device"], seed, "timing")
    with torch.no_grad(), tf32_policy(task):
        warm_up(model, pool, prof.warmup_s)
        del pool
        guards[0].take()  # the warm-up's launches are no timed call's
        send({"frame": TIMING, "kind": "ready"}, b"")
        while (order := parse_go(line := read_line() or "")) is not None:
            send({"frame": TIMING, "kind": "block"}, _dumps(timer.run(*order)).encode())
    if line != END.decode().strip():
        raise RuntimeError("the trusted side ended the timing without its end line")
    return {"persisting_l2_raised": timer.raised, "tampered": sorted(timer.tampered)}


class _Block:
    """One block of timed calls, one of them (at the position the trusted side drew)
    watched like a checked call: the op guard, the thread watch. Its time is not kept: the
    guard's overhead is not the candidate's. Every call's own Triton launches are counted."""

    def __init__(self, model, slots: Slots, flush, probes: dict, gpu: bool):
        self.model, self.slots, self.flush, self.probes, self.gpu = model, slots, flush, \
            probes, gpu
        self.raised, self.tampered = 0, set()

    def run(self, calls: int, guarded: int, seeds: list[int]) -> dict:
        if self.gpu:
            cudadriver.reset_persisting_l2()
        block = {"times_us": [], "probes": [], "own_launches": [], "guarded": {},
                 "aliased": 0}
        for call in range(calls + 1):
            case, inputs = self._fresh(call, seeds[call % len(seeds)])
            self.raised += self.gpu and _guard_persisting_l2()
            state = integrity.knobs()
            if call == guarded:
                us, out = self._watched(inputs, block["guarded"])
            else:
                us, out = timed_call(self.flat, inputs, self.flush)
                block["times_us"].append(us)
            # outside the window: an output in an input's memory (the input overwritten and
            # handed back: no allocation, while timed only, E20 with E16)
            block["aliased"] += _aliases(out, inputs)
            block["own_launches"].append(sum(own for _, own in self.guards[0].take()))
            block["probes"].append(_probe(out, case, self.probes))
            self.tampered.update(integrity.knobs_changed(state))
            del out
        self.raised += self.gpu and _guard_persisting_l2()
        return block

    def flat(self, *inputs) -> list:
        """The call and the flattening of what it returned, both timed: a returned object
        whose own methods compute (a namespace-built namedtuple's __iter__, E41) does its
        work inside the timed window, not in the probe after it."""
        return tree_leaves(self.model(*inputs))

    def _fresh(self, call: int, seed: int):
        """This call's inputs, made from its own seed (the last call's let go first), in the
        next rotating buffer; probed at the positions of timing case `call % sets`."""
        self.slots.refill([])
        self.slots.refill([(call % len(self.probes), self.make(seed))])
        if self.gpu:
            torch.cuda.synchronize()  # made before the call's flush and events
        return self.slots.next("candidate")

    def _watched(self, inputs, record: dict):
        """The watched call, also checked for writes into its inputs (a copy of them made
        before it: once per block, where its time is not kept anyway)."""
        before = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        us, out = self._guarded(inputs, record)
        record["inputs_modified"] = any(isinstance(a, torch.Tensor) and not _equal(a, b)
                                        for a, b in zip(inputs, before, strict=True))
        return us, out

    def _guarded(self, inputs, record: dict):
        _, threads, allowed = self.guards
        with OpGuard(allowed) as ops, threads:
            # flattened in the call, under the guard: a container's own methods run there
            us, out = timed_call(self.flat, inputs, self.flush)
        record |= {"forbidden_ops": sorted(ops.forbidden), "threads_started": threads.started}
        return us, out


def parse_go(line: str) -> tuple[int, int, list[int]] | None:
    """`go CALLS GUARDED SEED…` (protocol.go_line): how many timed calls this block makes,
    the position of the extra watched one, a seed for each of its calls; None for anything
    else (`end`)."""
    parts = line.split()
    if len(parts) < 4 or parts[0] != GO.decode().strip() or \
            not all(p.isdigit() for p in parts[1:]):
        return None
    calls, guarded, *seeds = map(int, parts[1:])
    return (calls, guarded, seeds) if guarded <= calls else None


def _aliases(outs: list, inputs) -> int:
    ptrs = {x.untyped_storage().data_ptr() for x in inputs if isinstance(x, torch.Tensor)}
    return int(any(isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() in ptrs
                   for t in outs))


def _guard_persisting_l2() -> int:
    """1 when the persisting-L2 limit is no longer 0 (someone raised it since the block's
    reset: only the candidate's code runs in between), after putting it back to 0 (E31)."""
    if cudadriver.persisting_l2_limit() == 0:
        return 0
    cudadriver.reset_persisting_l2()
    return 1


def _probe(out, case: int, probes: dict) -> dict:
    """Every output's shape and its values at the case's secret positions (one list of
    positions per output the reference has; an output the candidate did not return is
    missing here and fails on the trusted side)."""
    # exactly torch.Tensor, as a checked call's outputs (worker._run_case): a subclass could
    # run code when read; one is an output missing here, which fails on the trusted side
    leaves = [t for t in out if type(t) is torch.Tensor]
    values = []
    for t, positions in zip(leaves, probes[case], strict=False):
        idx = torch.tensor(positions, device=t.device, dtype=torch.long) % max(1, t.numel())
        values.append(t.reshape(-1)[idx].double().cpu().tolist())
    return {"case": case, "values": values, "shapes": [list(t.shape) for t in leaves]}
