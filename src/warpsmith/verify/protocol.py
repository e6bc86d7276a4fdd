"""What passes between the trusted process and the candidate's: the job (its record and the
shapes' parameters on the worker's stdin, job_message; the code in a read-only folder), and the
framed messages the candidate's process sends back on its result pipe.

A frame is MAGIC, then a header as UTF-8 JSON and an opaque payload, each after its length as
a little-endian u64. Checked calls go one at a time, each started by the worker and fed by the
trusted side: the worker sends an inputs frame; the trusted side answers with the next call's
record (wire.input_header) and, on the CPU, the inputs' bytes, or NO_MORE. On a GPU the worker
then allocates the inputs, sends their IPC handles in a slots frame, and the trusted side
writes the inputs into them and answers ACK. After the call the worker sends a case frame
(header `{"frame": "case", "call": k}` with the outputs' descriptors on the CPU, payload their
raw bytes or, on a GPU, their IPC handles) and waits for ACK before it frees them, so one
call's data is resident at a time on either side (memplan.py). While timed, the worker sends
timing frames (child/timing.py) and the trusted side answers each, timing the candidate's
blocks on its own clock from its GO to the end of the block's frame (baselines.py). The last
frame is the report, with no payload. Headers and payloads are untrusted data: the trusted
side checks every field it reads, and never unpickles them.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import time
from dataclasses import asdict, dataclass

MAGIC = b"WSR1"
_LENGTH = struct.Struct("<Q")
WAIT = "wait"  # the job-folder argument of a worker started before its job (start_waiting)
CASE = "case"  # the `frame` of a header that carries one checked call's outputs
ACK = b"next\n"  # the trusted side has read a case frame's outputs, or filled the slots
TIMING = "timing"  # the `frame` of the worker's timing messages (child/timing.py)
INPUTS = "inputs"  # the `frame` by which the worker asks for the next checked call's inputs
SLOTS = "slots"  # on a GPU: the IPC handles of the buffers the trusted side fills
NO_MORE = b"none\n"  # the answer to an inputs frame when every checked call has been made
GO, END = b"go\n", b"end\n"  # the trusted side's answers to a timing frame: a block, or stop


def compile_name(mode: str) -> str:
    """A torch.compile baseline's name in a GO and in the verdict's timings."""
    return "compile" if mode == "default" else f"compile:{mode}"


def go_line(record: dict) -> bytes:
    """GO for one block (child/timing.py): `go ` and a JSON record of the block."""
    return b"go " + json.dumps(record).encode() + b"\n"


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
    refused from its announced lengths, before its bytes are kept. Each frame is put with
    the time its last byte came (perf_counter): the trusted side's clock for a timed block
    stops there (a clock stopped by a frame's first bytes was stopped by a worker that sent
    them before its work and the rest after)."""
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
        put((body, payload, time.perf_counter()))


def _drain(stream, put, why: str) -> None:
    put(why)
    while stream.read(1 << 20):  # keep reading so the writer never blocks
        pass


class Malformed(ValueError):
    """A frame that is not what the trusted side expects at this point."""


def untrusted_json(data: bytes):
    """JSON from the candidate's process; ValueError for anything that does not decode,
    nesting deeper than the decoder's recursion limit included (a RecursionError escaped
    the trusted side and ended a bench), and an integer outside a signed 64-bit word (an
    integer of 400 digits passed every type check and then made float() raise OverflowError
    out of the trusted side: red-team round 14, E108)."""
    try:
        return json.loads(data, parse_int=_bounded_int)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(str(e)[:200]) from e
    except RecursionError as e:
        raise ValueError("nested too deeply") from e


def _bounded_int(text: str) -> int:
    value = int(text) if len(text) <= 20 else None
    if value is None or not -2**63 <= value < 2**63:
        raise ValueError(f"an integer outside 64 bits ({text[:24]}...)")
    return value


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
