"""What passes between the trusted process and the candidate's: the job record it writes into
the job folder, and the one framed message the candidate's process sends back on its result
pipe. Both sides import this module, so it imports nothing of warpsmith's.

A frame is MAGIC, then the report as UTF-8 JSON and an opaque payload (the outputs), each
after its length as a little-endian u64. The report is untrusted data: the trusted side
checks every field it reads.
"""

from __future__ import annotations

import json
import os
import signal
import struct
from dataclasses import asdict, dataclass

MAGIC = b"WSR1"
_LENGTH = struct.Struct("<Q")
JOB_FILE, CASES_FILE = "job.json", "cases.pt"  # the worker deletes both once read
WAIT = "wait"  # the job-folder argument of a worker started before its job (start_waiting)

# Bound when this module is imported, before any candidate is: a candidate that rebinds
# json.dumps or os.write does not change what the frame writer calls.
_dumps, _write = json.dumps, os.write


@dataclass(frozen=True)
class Job:
    """job.json of a verification (pipeline.write_job): paths are relative to the job
    folder; the seeds and probe positions are not here (they come on stdin, later)."""

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


def write_frame(fd: int, report: dict, payload: bytes | memoryview = b"") -> None:
    """The whole message, written in full to `fd` (a pipe: short writes are resumed)."""
    body = _dumps(report).encode()
    for chunk in (MAGIC, _LENGTH.pack(len(body)), body, _LENGTH.pack(len(payload)), payload):
        view = memoryview(chunk)
        while view:
            view = view[_write(fd, view):]


def read_frame(data: bytes) -> tuple[dict, bytes]:
    """(report, payload) of one complete message; ValueError or struct.error when `data`
    is not exactly one well-formed message."""
    if data[:4] != MAGIC:
        raise ValueError("bad magic")
    (n,) = _LENGTH.unpack_from(data, 4)
    report = json.loads(data[12:12 + n])
    (m,) = _LENGTH.unpack_from(data, 12 + n)
    payload = data[20 + n:20 + n + m]
    if len(payload) != m or len(data) != 20 + n + m or not isinstance(report, dict):
        raise ValueError("length mismatch")
    return report, payload


def signal_name(returncode: int | None) -> str:
    """How either side names a process's end in what it reports."""
    if returncode is not None and returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"
