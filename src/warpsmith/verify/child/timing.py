"""Timing, the candidate's side: it runs blocks of calls when asked; the clock is not here.

After the checked calls the worker sends a timing frame `ready`. The trusted side answers
with the shape of one input set and how many sets a block uses (`sets`); the worker makes
that many buffers (on a GPU it hands their IPC handles over in a `slots` frame, and the
trusted side writes every block's fresh inputs into them; on the CPU the bytes follow each
GO). Each GO is one block: every set once, in the order given, one call (at a position the
trusted side drew) watched like a checked call; then a device-wide synchronize and a `block`
frame that carries the block's outputs (IPC handles, or raw bytes on the CPU) and this side's
diagnostics. The trusted side's clock runs from its GO to the end of that frame, and it reads
the values it checks from those outputs with this process stopped (a worker that says "done"
first and works after gains nothing: what it hands over at the clock's stop is judged).
Between blocks it times eager and torch.compile with this process stopped
(verify/timing/baselines.py). What this side reports (its
own CUDA-event time of the block, launches, the watched call's record) is a diagnostic,
checked there.
"""

from __future__ import annotations

import json
import time

import torch
from torch.utils._pytree import tree_leaves

from .. import cudadriver, wire
from ..protocol import END, TIMING
from . import integrity
from .dispatch import OpGuard
from .ipc import export as _export

_dumps = json.dumps  # bound before the candidate is imported


def time_candidate(job: dict, models: dict, task, channel, guards) -> dict:
    """`channel`: (send(header, payload), read_line(), read_bytes(n)) to the trusted side;
    `guards`: the worker's (LaunchLog, _ThreadWatch). Returns what the report keeps: whether
    the persisting-L2 limit was raised, and torch state changed."""
    return serve({CANDIDATE: models[job["timed_shape"]]}, task, channel, guards,
                 job["device"])


CANDIDATE = "candidate"  # the one implementation of a candidate's worker


def serve(impls: dict, task, channel, guards, device: str, ready: dict | None = None,
          may_end_first: bool = False) -> dict:
    """The timing protocol, for the candidate's worker and the baselines' process alike
    (child/reference_worker.py): `impls` by name, a GO naming one (`impl`; the first when it
    names none). `ready`: what the first frame carries besides its kind. `may_end_first`:
    END in place of the sets is a timing not done (a kept baselines' process, whose
    candidate was found wrong first), not an error."""
    from ...tasks.loader import tf32_policy

    send, read_line, read_bytes = channel
    gpu = device == "cuda"
    send({"frame": TIMING, "kind": "ready", **(ready or {})})
    line = read_line() or ""
    if may_end_first and line == END.decode().strip():
        return {"persisting_l2_raised": 0, "tampered": []}
    record = parse_go(line)
    if record is None or record.get("kind") != "sets":
        raise RuntimeError("the trusted side sent no timing sets")
    timer = _Block(impls, _make_sets(record, device), gpu)
    timer.guards = (*guards, tuple(task.allowed_torch))
    if gpu:
        torch.cuda.synchronize()  # the buffers made before the trusted side fills them
    send({"frame": TIMING, "kind": "slots"}, _slots_payload(timer.sets) if gpu else b"")
    with torch.no_grad(), tf32_policy(task):
        while True:
            timer.prepare()
            # waiting for GO from here on: the trusted side starts its clock only after this
            # frame, so the work between two blocks is never on it (it was: the trusted side
            # stopped this process mid-way through it, and the rest ran after GO)
            send({"frame": TIMING, "kind": "idle"})
            if (go := parse_go(line := read_line() or "")) is None:
                break
            if not gpu:
                _fill_from(timer.sets, read_bytes)
            timer.run(go)
            # the outputs travel in the frame that stops the trusted side's clock: nothing
            # this process does after it can change what the trusted side reads
            head, payload = timer.outputs()
            send({"frame": TIMING, "kind": "block", **timer.diagnostics(go), **head}, payload)
            timer.checked_after()
            timer.let_go()
    if line != END.decode().strip():
        raise RuntimeError("the trusted side ended the timing without its end line")
    return {"persisting_l2_raised": timer.raised, "tampered": sorted(timer.tampered)}


def _make_sets(record: dict, device: str) -> list[list]:
    n = record.get("n")
    if type(n) is not int or not 1 <= n <= 4096:
        raise RuntimeError("the trusted side's timing sets are malformed")
    descs = wire.tensor_descs(record)
    return [wire.build_args(record, [torch.empty(d["shape"], dtype=wire.dtype_of(d["dtype"]),
                                                 device=device) for d in descs])
            for _ in range(n)]


def _slots_payload(sets: list[list]) -> bytes:
    return _dumps([[_export(x) for x in s if isinstance(x, torch.Tensor)]
                   for s in sets]).encode()


def _fill_from(sets: list[list], read_bytes) -> None:
    """On the CPU: every set's fresh bytes, in set order, after the GO line."""
    for s in sets:
        for x in s:
            if isinstance(x, torch.Tensor) and x.numel():
                data = read_bytes(x.numel() * x.element_size())
                x.copy_(wire.from_bytes(data, wire.describe(x), 0))


class _Block:
    """One block: each set once in the trusted side's order, one call watched like a
    checked call (op guard, thread watch). Every call's outputs are kept until the trusted
    side has read them."""

    def __init__(self, impls: dict, sets: list[list], gpu: bool):
        self.impls, self.sets, self.gpu = impls, sets, gpu
        self.raised, self.tampered = 0, set()
        self.outs: list[list] = []
        self.copies: list = []  # contiguous copies of the block's outputs, exported
        self.exported: dict = {}  # the allocations whose handles were sent (child/ipc.py)
        self.clock = _OwnClock(gpu)
        # the sets' buffers live as long as this: their storages, found once
        self.inputs = [{x.untyped_storage().data_ptr() for x in s if isinstance(x, torch.Tensor)}
                       for s in sets]

    def prepare(self) -> None:
        """What each block needs before it starts, done before this side says it is idle:
        outside the trusted side's clock (a driver call and torch's state read: hundreds of
        µs)."""
        if self.gpu:
            cudadriver.reset_persisting_l2()
        self.state = integrity.knobs()

    def run(self, go: dict) -> None:
        """The block's calls and a device-wide synchronize (work on side streams counts)."""
        order, watch = go.get("order"), go.get("watch")
        impl = go.get("impl", next(iter(self.impls)))
        if not isinstance(order, list) or not all(
                type(i) is int and 0 <= i < len(self.sets) for i in order) or \
                not isinstance(impl, str) or impl not in self.impls:
            raise RuntimeError("the trusted side's block is malformed")
        model = self.model = self.impls[impl]
        self.guarded, self.launches = {}, []
        stamps = [time.perf_counter()]
        self.clock.start()
        stamps.append(time.perf_counter())
        for pos, i in enumerate(order):
            if pos == watch:
                out = self._watched(self.sets[i], self.guarded)
            else:
                out = tree_leaves(model(*self.sets[i]))
            self.outs.append(out)
            self.launches.append(sum(own for _, own in self.guards[0].take()))
        stamps.append(time.perf_counter())
        self.inprocess_us = self.clock.stop()
        self.stamps = [*stamps, time.perf_counter()]

    def diagnostics(self, go: dict) -> dict:
        """What this process saw of the block: its own time of it, the launches per call,
        the watched call's record, outputs in an input's memory. Cheap: it runs inside the
        trusted side's clock, before the frame that stops it."""
        aliased = sum(_aliases(out, self.inputs[i])
                      for out, i in zip(self.outs, go["order"], strict=True))
        # where the block's time on the trusted clock went, this side's part of it: from GO
        # to the end of the synchronize, and from there to the frame (outputs, this record)
        began, clocked, launched, synced = self.stamps
        phases = {"run_us": (synced - began) * 1e6, "post_us": (time.perf_counter() - synced) * 1e6,
                  "clock_us": (clocked - began) * 1e6, "launch_us": (launched - clocked) * 1e6}
        return {"inprocess_us": self.inprocess_us, "own_launches": self.launches,
                "guarded": self.guarded, "aliased": aliased, "phases": phases}

    def checked_after(self) -> None:
        """The persisting-L2 guard and torch's state, read once the block's frame is gone: a
        driver call and hundreds of µs of reads that were in the candidate's time on the
        trusted clock. No code of the candidate runs between its block and here (its
        threads are watched), and both go to the report, not the frame."""
        self.raised += self.gpu and _guard_persisting_l2()
        self.tampered.update(integrity.knobs_changed(self.state))

    def outputs(self) -> tuple[dict, bytes]:
        """The block's outputs, per call: IPC handles on a GPU; descriptors and raw bytes on
        the CPU. Exactly torch.Tensor, as a checked call's (worker._run_case): a subclass
        could run code when read; one left out is an output missing, which fails there."""
        calls = [[t for t in out if type(t) is torch.Tensor] for out in self.outs]
        if self.gpu:  # the copies of non-contiguous outputs held as the outputs are
            sent = _dumps([[_export(t, self.exported, self.copies) for t in call]
                           for call in calls]).encode()
            if self.copies:  # one synchronize for them all: made, before the frame says so
                torch.cuda.synchronize()
            return {}, sent
        messages = [wire.output_message(call) for call in calls]
        return ({"outputs": [d for d, _ in messages]},
                b"".join(c for _, chunks in messages for c in chunks))

    def let_go(self) -> None:
        self.outs, self.copies = [], []

    def _watched(self, inputs, record: dict) -> list:
        """The watched call: under the op guard and the thread watch. A write into its
        inputs is the trusted side's to see (it reads the input buffers back after the
        block): a copy made here would be time in the block that is not the kernel's."""
        _, threads, allowed = self.guards
        with OpGuard(allowed) as ops, threads:
            # flattened in the call, under the guard: a container's own methods run there
            out = tree_leaves(self.model(*inputs))
        record |= {"forbidden_ops": sorted(ops.forbidden), "threads_started": threads.started}
        return out


def parse_go(line: str) -> dict | None:
    """`go {record}` (protocol.go_line) as its record; None for anything else (`end`)."""
    if not line.startswith("go "):
        return None
    try:
        record = json.loads(line[3:])
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


class _OwnClock:
    """This process's own time of a block (a diagnostic beside the trusted side's clock):
    CUDA events on the current stream, made once, the end one recorded as the last call
    returns; then a device-wide synchronize (work on side streams counts on the trusted
    clock, which stops at the frame). It replaced a synchronize, an event made and a wait
    on it after the calls (230-365 us a block outside the events on the H100); measured
    after it, the block's time outside the events stayed at 273-355 us, most of it the
    start event's record (117-149 us) and the synchronize: docs/benchmarks/kernelbench.md."""

    def __init__(self, gpu: bool):
        self.gpu = gpu
        if gpu:
            self.events = [torch.cuda.Event(enable_timing=True) for _ in range(2)]

    def start(self) -> None:
        if self.gpu:
            self.events[0].record()
        else:
            self.began = time.perf_counter()

    def stop(self) -> float:
        if not self.gpu:
            return (time.perf_counter() - self.began) * 1e6
        self.events[1].record()
        torch.cuda.synchronize()
        return self.events[0].elapsed_time(self.events[1]) * 1000.0


def _aliases(outs: list, ptrs: set[int]) -> int:
    return int(any(isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() in ptrs
                   for t in outs))


def _guard_persisting_l2() -> int:
    """1 when the persisting-L2 limit is no longer 0 (someone raised it since the block's
    reset: only the candidate's code runs in between), after putting it back to 0 (E31)."""
    if cudadriver.persisting_l2_limit() == 0:
        return 0
    cudadriver.reset_persisting_l2()
    return 1
