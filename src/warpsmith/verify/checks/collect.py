"""The trusted side's half of the streamed checked calls: each call's inputs made here and
handed over when the worker asks for them (never before), its outputs read as they come
(untrusted bytes: raw bytes read as our reference's dtypes and shapes on the CPU, IPC handles
mapped and read likewise on a GPU), compared with that call's reference computed then, and
let go; the bound of one frame; the peak memory of both sides."""

from __future__ import annotations

import time

import torch

from ...config import VerifyProfile
from ...types import CaseResult, Shape, Task
from .. import ipc, wire
from ..protocol import ACK, NO_MORE, SLOTS, Malformed, untrusted_json
from ..worker_report import WorkerReport
from . import memplan
from .correctness import compare
from .inputs import case_inputs
from .reference import Prepared, checked, evaluate


class CaseReader:
    """sandbox.run_worker's on_case: hands each checked call's inputs over when the worker
    asks (request), then takes that call's outputs as they come, compares them with the
    reference computed on the same inputs and lets both go, so one call's data is resident
    at a time. Returns that call's results."""

    def __init__(self, task: Task, prepared: Prepared, device: str, stages: dict):
        self.task, self.prepared, self.device, self.stages = task, prepared, device, stages
        self.calls = checked(prepared.cases)
        self.next = 0
        self.wrong = 0  # outputs found wrong so far: the verdict is `incorrect` already
        self.given: list | None = None  # the inputs of the call handed over, until it returns
        self.slots = None  # on a GPU: the worker's input buffers, mapped (ipc.Mapped)
        # what other processes held of the GPU before the worker started (a spare's context)
        self.others = others_bytes() if device == "cuda" else None
        # ends the baselines' process (pipeline.py sets it): its memory is not the candidate's
        self.before_blame = None

    def request(self, head: dict, payload: bytes) -> bytes | list:
        """The answer to an inputs frame (the next call's record and, on the CPU, its
        inputs' bytes; NO_MORE after the last) or to a slots frame (the inputs written into
        the worker's buffers, then ACK)."""
        start = time.perf_counter()
        try:
            if head.get("frame") == SLOTS:
                return self._fill(payload)
            return self._hand_over()
        finally:
            self.stages["inputs"] = self.stages.get("inputs", 0.0) + \
                time.perf_counter() - start

    def _hand_over(self) -> bytes | list:
        if self.given is not None:
            raise Malformed("the candidate's process asked for a call's inputs before it sent "
                            "the outputs of the last")
        if self.next >= len(self.calls):
            return NO_MORE
        call = self.calls[self.next]
        shape = Shape(call.shape, self.prepared.shapes[call.shape]["values"])
        self.given = case_inputs(self.task, shape, self.device, call.seed, call.variant)
        line = wire.input_header(self.next, call.shape, self.given)
        if self.device == "cuda":
            self.filled = False
            return line
        return [line, *wire.input_payload(self.given)]

    def _fill(self, payload: bytes) -> bytes:
        if self.device != "cuda" or self.given is None or self.filled:
            raise Malformed("the candidate's process sent input buffers that were not asked for")
        tensors = [x for x in self.given if isinstance(x, torch.Tensor)]
        try:
            entries = untrusted_json(payload)
            self.slots = ipc.Mapped().__enter__()
            ipc.write_inputs(self.slots, entries, tensors)
        except ValueError as e:
            raise Malformed(f"the candidate's input buffers cannot be filled ({e})") from e
        self.filled = True
        return ACK

    def __call__(self, head: dict, payload: bytes) -> tuple[CaseResult, ...]:
        if head.get("call") != self.next or self.given is None or \
                (self.device == "cuda" and not self.filled):
            raise Malformed(f"the candidate's process sent outputs for call {head.get('call')!r}"
                            f" where call {self.next} of {len(self.calls)} was due")
        start = time.perf_counter()
        try:
            results = self._compare(self.calls[self.next], head, payload)
            self.wrong += sum(not r.ok for r in results)
            return results
        except torch.OutOfMemoryError:
            self._blame_if_held()
            raise  # the plan's estimate fell short: the verifier's limit (too_large)
        finally:
            self._let_go()
            self.next += 1
            if self.device == "cuda":  # the worker's next call needs what we cached
                torch.cuda.empty_cache()
            self.stages["compare"] = self.stages.get("compare", 0.0) + \
                time.perf_counter() - start

    def _let_go(self) -> None:
        if self.slots is not None:
            self.slots.__exit__(None, None, None)
        self.slots, self.given = None, None

    def _blame_if_held(self) -> None:
        """Our out-of-memory while checking a call is the verifier's limit (too_large, never
        blamed), unless the worker held memory the trusted side needed (blame_if_held)."""
        if self.others is not None:
            if self.before_blame is not None:
                self.before_blame()
                settle_freed()
            blame_if_held(self.task, self.prepared, self.others, timing_sets=0)

    def _compare(self, call, head: dict, payload: bytes) -> tuple[CaseResult, ...]:
        modified = self._inputs_modified()
        case = evaluate(self.task, self.prepared, call, self.device, inputs=self.given)
        if case is None:  # the reference is not finite here: this call proves nothing
            return ()
        outs = self._outputs(head, payload, case.ref)
        if len(outs) != len(case.ref):
            return (CaseResult(case.shape, case.variant, ok=False,
                               problem=f"{len(outs)} outputs, expected {len(case.ref)}"),)
        results = tuple(compare(out, exact, ref, case.shape, case.variant, self.task.tolerance)
                        for out, exact, ref in zip(outs, case.exact, case.ref, strict=True))
        if modified:
            results += (CaseResult(case.shape, case.variant, ok=False, problem=(
                "the candidate wrote into its inputs (seen in its input buffers after the "
                "call)")),)
        return results

    def _inputs_modified(self) -> bool:
        """On a GPU, the worker's input buffers read back after the call (the trusted side's
        evidence); on the CPU the worker's own copy is private: its report says (a
        diagnostic)."""
        if self.slots is None:
            return False
        tensors = [x for x in self.given if isinstance(x, torch.Tensor)]
        return not ipc.inputs_intact(self.slots, tensors)

    def _outputs(self, head: dict, payload: bytes, refs: list) -> list:
        try:
            if self.device == "cuda":
                return ipc.read_manifest(payload, [refs])[0]
            return wire.read_outputs(head.get("outputs"), payload, refs)
        except ValueError as e:  # unreadable outputs are the candidate's failure, not ours
            raise Malformed(f"the outputs that came back are unreadable ({e})") from e


def peaks(report: WorkerReport | str, device: str) -> dict[str, float]:
    """The peak GPU memory each side allocated in this verification: ours from torch, the
    candidate's process's as it reports it (untrusted: a number, or left out)."""
    if device != "cuda":
        return {}
    peaks = {"trusted_peak_gib": gib(torch.cuda.max_memory_allocated())}
    claimed = report.peak_bytes if isinstance(report, WorkerReport) else None
    if claimed is not None and claimed < 2**50:
        peaks["candidate_peak_gib"] = gib(claimed)
    return peaks


def message_limit(task: Task, prepared: Prepared, device: str, prof: VerifyProfile) -> int:
    """The bound of one frame: the report, and on the CPU one call's outputs (raw bytes)
    twice over; on a GPU outputs travel as IPC handles. A flood is cut off."""
    if device == "cuda":
        return 64 << 20
    try:
        outputs = memplan.sizes(task, prepared.timed_shape, device).outputs
    except Exception:  # the task on meta tensors (`.item()`): the CPU's size bound instead
        outputs = prof.cpu_max_bytes
    return 2 * outputs + (64 << 20)


def blame_if_held(task: Task, prepared: Prepared, others: int, timing_sets: int) -> None:
    """After an out-of-memory of the trusted side: Malformed (the verdict is `crashed`) when
    what other processes hold of the GPU grew, since `others` was read before the worker
    started, beyond the worker's whole share of the plan (+25 % and 1 GiB, as for its own
    OOM) while checked (timing_sets 0) or timed (timing_sets: the sets a timing block holds,
    as memplan.sides counts them): its process held memory the trusted side
    needed, so that a failing kernel would get a verdict nobody is blamed for (E48)."""
    try:
        worker = memplan.sides(memplan.sizes(task, prepared.timed_shape, "cuda"),
                               timing_sets)[1]
    except Exception:  # the task on meta tensors (`.item()`): no plan, nothing to blame
        return
    share = worker[1] if timing_sets else worker[0]
    torch.cuda.empty_cache()
    grown = others_bytes() - others
    if grown > share * 1.25 + (1 << 30):
        raise Malformed(f"the candidate's process held about {gib(grown)} GiB of GPU memory "
                        f"beyond its share of the memory plan ({gib(share)} GiB) while "
                        f"{'timed' if timing_sets else 'its outputs were checked'}: the "
                        "trusted side ran out of it")


def settle_freed(most_s: float = 2.0) -> None:
    """Until the memory of a process just ended is back (the driver frees it as the process
    is torn down, a moment after its exit), at most `most_s`."""
    end, last = time.perf_counter() + most_s, others_bytes()
    while time.perf_counter() < end:
        time.sleep(0.1)
        now = others_bytes()
        if now >= last:
            return
        last = now


def others_bytes() -> int:
    """GPU memory in use by every process but this one (the device's used memory less what
    this process's allocator reserved)."""
    free, total = torch.cuda.mem_get_info()
    return total - free - torch.cuda.memory_reserved()


def gib(n: float) -> float:
    return round(n / 2**30, 3)
