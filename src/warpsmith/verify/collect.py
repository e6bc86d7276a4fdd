"""The trusted side's half of the streamed checked calls: each call's outputs read as they
come (untrusted bytes: torch.load with weights_only on the CPU, IPC handles read only as our
reference's shapes on a GPU), compared with that call's reference computed then, and let go;
the bound of one frame; the peak memory of both sides."""

from __future__ import annotations

import io
import time
import zipfile

import torch

from ..config import VerifyProfile
from ..types import CaseResult, Task
from . import ipc, memplan
from .correctness import compare
from .protocol import Malformed
from .reference import Prepared, checked, evaluate


class CaseReader:
    """sandbox.run_worker's on_case: each checked call's outputs as they come, compared with
    that call's reference, computed now (reference.evaluate) and let go with them, so one
    call's data is resident at a time. Returns that call's results."""

    def __init__(self, task: Task, prepared: Prepared, device: str, stages: dict):
        self.task, self.prepared, self.device, self.stages = task, prepared, device, stages
        self.calls = checked(prepared.cases)
        self.next = 0
        # what other processes held of the GPU before the worker started (a spare's context)
        self.others = others_bytes() if device == "cuda" else None

    def __call__(self, head: dict, payload: bytes) -> tuple[CaseResult, ...]:
        if head.get("call") != self.next or self.next >= len(self.calls):
            raise Malformed(f"the candidate's process sent outputs for call {head.get('call')!r}"
                            f" where call {self.next} of {len(self.calls)} was due")
        start = time.perf_counter()
        try:
            return self._compare(self.calls[self.next], payload)
        except torch.OutOfMemoryError:
            self._blame_if_held()
            raise  # the plan's estimate fell short: the verifier's limit (too_large)
        finally:
            self.next += 1
            if self.device == "cuda":  # the worker's next call needs what we cached
                torch.cuda.empty_cache()
            self.stages["compare"] = self.stages.get("compare", 0.0) + \
                time.perf_counter() - start

    def _blame_if_held(self) -> None:
        """Our out-of-memory while checking a call is the verifier's limit (too_large, never
        blamed), unless the worker held memory the trusted side needed (blame_if_held)."""
        if self.others is not None:
            blame_if_held(self.task, self.prepared, self.others, timing_sets=0)

    def _compare(self, call, payload: bytes) -> tuple[CaseResult, ...]:
        case = evaluate(self.task, self.prepared, call, self.device)
        if case is None:  # the reference is not finite here: this call proves nothing
            return ()
        if self.device != "cuda" and (problem := inflates(payload)):
            raise Malformed(problem)
        if self.device != "cuda" and (count := storages(payload)) > len(case.ref):
            # told from the archive's directory before anything is unpickled: tens of
            # thousands of tiny outputs took the trusted side minutes to load, time that
            # is not counted against the candidate's deadline
            return (CaseResult(case.shape, case.variant, ok=False,
                               problem=f"{count} outputs, expected {len(case.ref)}"),)
        got = read_outputs(payload, [case.ref], self.device)
        if got is None:
            raise Malformed("the outputs that came back are not a list of tensors per call")
        outs = got[0]
        if len(outs) != len(case.ref):
            return (CaseResult(case.shape, case.variant, ok=False,
                               problem=f"{len(outs)} outputs, expected {len(case.ref)}"),)
        return tuple(compare(out, exact, ref, case.shape, case.variant, self.task.tolerance)
                     for out, exact, ref in zip(outs, case.exact, case.ref, strict=True))


def read_outputs(outputs: bytes, refs: list[list], device: str) -> list[list] | None:
    """The candidate's outputs, one list of tensors per call of `refs` (the reference's
    outputs of those calls), or None when the bytes are not that. They come from the
    candidate's process and may be hostile: torch.load with weights_only on the CPU; on a GPU,
    IPC handles read only as our reference's shapes."""
    try:
        if device == "cuda":
            return ipc.read_manifest(outputs, refs)
        result = torch.load(io.BytesIO(outputs), weights_only=True)
    except Exception:  # any unreadable payload is the candidate's failure, not ours
        return None
    got = result.get("outputs") if isinstance(result, dict) else None
    if not isinstance(got, list) or len(got) != len(refs) or not all(
            isinstance(o, list) and all(isinstance(t, torch.Tensor) for t in o) for o in got):
        return None
    return got


def inflates(payload: bytes) -> str | None:
    """Why an archive would grow once loaded, from the zip's directory alone, or None. The
    worker's torch.save stores every entry as it is; a compressed one (DEFLATE: 2 MB of a
    forged frame became 2 GiB of the trusted side's memory, E47) or one whose sizes add up
    to more than the bytes that came is refused before anything is read."""
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return None  # no archive: torch.load says it is unreadable
    if any(e.compress_type != zipfile.ZIP_STORED for e in entries):
        return "the outputs came as a compressed archive (the worker never compresses)"
    if sum(e.file_size for e in entries) > len(payload):
        return "the outputs' archive claims more bytes than it holds"
    return None


def storages(payload: bytes) -> int:
    """How many tensor storages a torch.save archive holds (its data/ entries), read from the
    zip's directory alone; 0 when it is no archive (torch.load then says it is unreadable).
    The worker saves each output contiguous in a storage of its own."""
    try:
        with zipfile.ZipFile(io.BytesIO(payload)) as archive:
            return sum(1 for name in archive.namelist() if name.split("/")[-2:-1] == ["data"])
    except (zipfile.BadZipFile, ValueError, OSError):
        return 0


def peaks(report: dict | None, device: str) -> dict[str, float]:
    """The peak GPU memory each side allocated in this verification: ours from torch, the
    candidate's process's as it reports it (untrusted: a number, or left out)."""
    if device != "cuda":
        return {}
    peaks = {"trusted_peak_gib": gib(torch.cuda.max_memory_allocated())}
    claimed = (report or {}).get("peak_bytes")
    if isinstance(claimed, int) and not isinstance(claimed, bool) and 0 <= claimed < 2**50:
        peaks["candidate_peak_gib"] = gib(claimed)
    return peaks


def message_limit(task: Task, prepared: Prepared, device: str, prof: VerifyProfile) -> int:
    """The bound of one frame: the report, and on the CPU one call's outputs (torch.save
    bytes) twice over; on a GPU outputs travel as IPC handles. A flood is cut off."""
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
    OOM) while checked (timing_sets 0) or timed: its process held memory the trusted side
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


def others_bytes() -> int:
    """GPU memory in use by every process but this one (the device's used memory less what
    this process's allocator reserved)."""
    free, total = torch.cuda.mem_get_info()
    return total - free - torch.cuda.memory_reserved()


def gib(n: float) -> float:
    return round(n / 2**30, 3)
