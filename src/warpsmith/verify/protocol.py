"""What passes between the trusted process and the candidate's: the job (its record and cases
on the worker's stdin, job_message; the code in a read-only folder), and the framed messages
the candidate's process sends back on its result pipe. The worker asks for its seeds with a
seeds frame once its candidate is imported; the trusted side sends them then, not before.
Both sides import this module, so it imports nothing of warpsmith's.

A frame is MAGIC, then a header as UTF-8 JSON and an opaque payload, each after its length as
a little-endian u64. The outputs are streamed: after every checked call the worker sends a
case frame (header `{"frame": "case", "call": k}`, payload that call's outputs) and waits for
ACK on its stdin before it frees them and goes on, so one call's outputs are resident at a
time on either side (memplan.py). While timed, the worker sends a timing frame (`ready`, then
one per block of its own timed calls, the times and probe values as a JSON payload) and
waits for GO (time another block: go_line) or END on its stdin; the trusted side times the baselines
in between (baselines.py). Its last frame is the report, with no payload. Headers and
payloads are untrusted data: the trusted side checks every field it reads.
"""

from __future__ import annotations

import json
import os
import signal
import struct
from dataclasses import asdict, dataclass

MAGIC = b"WSR1"
_LENGTH = struct.Struct("<Q")
WAIT = "wait"  # the job-folder argument of a worker started before its job (start_waiting)
CASE = "case"  # the `frame` of a header that carries one checked call's outputs
ACK = b"next\n"  # the trusted side has copied a case frame's outputs: the worker may go on
TIMING = "timing"  # the `frame` of the worker's timing messages (child/timing.py)
SEEDS = "seeds"  # the `frame` by which the worker asks for its seeds, once its candidate is in
GO, END = b"go\n", b"end\n"  # the trusted side's answers to one: time a block, or stop


def go_line(calls: int, guarded: int, seeds: list[int]) -> bytes:
    """GO for one block: `calls` timed calls, and one more at position `guarded` (0..calls)
    that runs watched like a checked call (child/timing.py), its time not kept; each of the
    calls+1 calls gets inputs made from its own seed, so no inputs the candidate saw before
    (in its warm-up, in an earlier call) are timed again. The trusted side draws all of it:
    the worker cannot tell the watched call from a timed one."""
    return f"go {calls} {guarded} {' '.join(map(str, seeds))}\n".encode()


# Bound when this module is imported, before any candidate is: a candidate that rebinds
# json.dumps or os.write does not change what the frame writer calls.
_dumps, _write = json.dumps, os.write


@dataclass(frozen=True)
class Job:
    """The record of a verification (pipeline.job_message), sent on the worker's stdin: paths
    are relative to the job folder; the seeds and probe positions are not here (they come
    later, when the worker asks)."""

    candidate: str
    task: str
    device: str
    timing: bool
    profile: str
    timed_shape: str | None

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Job:
        return cls(**json.loads(text))


def job_message(job: Job, cases: bytes) -> bytes:
    """What the worker reads from stdin first (child/worker._read_job): the record as a JSON
    line, the size of the cases (torch.save bytes) as a line, then the cases."""
    return f"{job.to_json()}\n{len(cases)}\n".encode() + cases


def write_frame(fd: int, report: dict, payload: bytes | memoryview = b"") -> None:
    """The whole message, written in full to `fd` (a pipe: short writes are resumed)."""
    body = _dumps(report).encode()
    for chunk in (MAGIC, _LENGTH.pack(len(body)), body, _LENGTH.pack(len(payload)), payload):
        view = memoryview(chunk)
        while view:
            view = view[_write(fd, view):]


def read_frames(stream, limit, put) -> None:
    """Split a byte stream (a file object whose read(n) blocks until n bytes or the end)
    into frames, calling put((header bytes, payload)) for each; at the end put(None), or
    put(str) with what was wrong and the rest drained unread. A frame over limit() bytes is
    refused from its announced lengths, before its bytes are kept."""
    while True:
        head = stream.read(12)
        if not head:
            return put(None)
        max_bytes = limit()  # read once a frame starts: a spare's is set with its job
        if len(head) < 12 or head[:4] != MAGIC:
            return _drain(stream, put, "the result message is malformed (bad magic)")
        (n,) = _LENGTH.unpack_from(head, 4)
        if n + 8 > max_bytes:
            return _drain(stream, put, "the result message exceeded its size limit")
        body, size = stream.read(n), stream.read(8)
        if len(body) < n or len(size) < 8:
            return _drain(stream, put, "the result message is malformed (cut short)")
        (m,) = _LENGTH.unpack(size)
        if n + m > max_bytes:
            return _drain(stream, put, "the result message exceeded its size limit")
        payload = stream.read(m)
        if len(payload) < m:
            return _drain(stream, put, "the result message is malformed (cut short)")
        put((body, payload))


def _drain(stream, put, why: str) -> None:
    put(why)
    while stream.read(1 << 20):  # keep reading so the writer never blocks
        pass


class Malformed(ValueError):
    """A frame that is not what the trusted side expects at this point."""


def untrusted_json(data: bytes):
    """JSON from the candidate's process; ValueError for anything that does not decode,
    nesting deeper than the decoder's recursion limit included (a RecursionError escaped
    the trusted side and ended a bench)."""
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(str(e)[:200]) from e
    except RecursionError as e:
        raise ValueError("nested too deeply") from e


def header(body: bytes) -> dict:
    """A frame's header as a dict; ValueError when it is not a JSON object."""
    try:
        value = untrusted_json(body)
    except ValueError as e:
        raise ValueError(f"the result message is malformed ({e})") from e
    if not isinstance(value, dict):
        raise ValueError("the result message is malformed (its header is not an object)")
    return value


def signal_name(returncode: int | None) -> str:
    """How either side names a process's end in what it reports."""
    if returncode is not None and returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"
