"""Verifications on one GPU, whichever processes ask (issue 28): several prepare their cases
and check their candidates' outputs at once, each within a reservation of the GPU's memory;
timing needs the GPU to itself. A reader-writer lock of flocks on files named after the GPU's
UUID in the system's temporary folder (which the candidate's sandbox hides), released by the
OS when its holder exits, however it exits:

- `shared` while a verification prepares and checks (flock LOCK_SH on the main file);
- `exclusive` from its first timed block to its end (LOCK_EX), taken by letting go of the
  shared lock first: two holders that both want it then cannot wait on each other;
- a turnstile (a second file) that a writer holds while it waits, so a stream of readers
  cannot starve it: a reader passes the turnstile before it takes its shared lock;
- a ledger (a third file, JSON under its own flock) of each holder's reserved bytes, so one
  admitted beside others fits beside all they may still allocate, and of a count of every
  hold ever registered, so a verification knows whether it was ever not alone.

With `jobs` 1 (one verification at a time in each process, the default executors) nothing
changes: a lone holder's shared phase has no one to share with.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import uuid
from collections.abc import Iterator


class Hold:
    """One verification's hold on one GPU. `crowded`: another verification held the GPU at
    some time during this one (its memory then counted against ours)."""

    def __init__(self, path: str | None):
        self.path, self.key = path, uuid.uuid4().hex
        self.mode, self.crowded, self._seq = "", False, 0
        self._main = None

    # -- the lock ---------------------------------------------------------------------------

    def share(self) -> None:
        if self.path is None:
            return
        with _flocked(self.path + ".turnstile", fcntl.LOCK_EX):
            self._main = _open(self.path)
            _flock(self._main, fcntl.LOCK_SH)
        self.mode = "shared"
        self._seq, others = self._ledger(lambda book: _enter(book, self.key))
        self.crowded = others > 0

    def exclusive(self) -> None:
        """The GPU to this verification alone (idempotent); its reservation stays."""
        if self.path is None or self.mode == "exclusive":
            return
        if self._main is not None:  # let go first: a second holder waiting here too must be
            _flock(self._main, fcntl.LOCK_UN)  # able to pass, or each waits on the other
        else:
            self._main = _open(self.path)
        with _flocked(self.path + ".turnstile", fcntl.LOCK_EX):
            _flock(self._main, fcntl.LOCK_EX)
        self.mode = "exclusive"
        if not self._seq:
            self._seq, others = self._ledger(lambda book: _enter(book, self.key))
            self.crowded = others > 0

    def release(self) -> None:
        if self.path is None or self._main is None:
            return
        try:
            seq, _ = self._ledger(lambda book: _leave(book, self.key))
            self.crowded = self.crowded or seq != self._seq  # someone came after us
        finally:
            self._main.close()  # closing the file releases the flock
            self._main, self.mode = None, ""

    # -- the memory ledger ------------------------------------------------------------------

    def admit(self, needed: int, available: int) -> bool:
        """Reserve `needed` bytes beside the others' reservations if `available` (what is
        free now) holds them all; False, nothing reserved, where it does not (the caller then
        takes the GPU alone). Alone or exclusive, always admitted."""
        if self.path is None:
            return True

        def reserve(book):
            others = sum(e["bytes"] for k, e in _live(book).items() if k != self.key)
            fits = self.mode == "exclusive" or others + needed <= available
            if fits:
                book["holds"][self.key]["bytes"] = needed
            return fits, others

        fits, others = self._ledger(reserve)
        self.crowded = self.crowded or others > 0
        return fits

    def quiet(self, available: int) -> int:
        """What was free with no verification beside this one: `available` now where this
        one is alone (it is recorded), else the last recorded (a plan made beside others is
        then the plan it would be alone: memplan.plan's `quiet`)."""
        if self.path is None:
            return available

        def read(book):
            if not [k for k in book["holds"] if k != self.key] or "quiet" not in book:
                book["quiet"] = available
            return book["quiet"]

        return self._ledger(read)

    def _ledger(self, change):
        with _flocked(self.path + ".ledger", fcntl.LOCK_EX) as handle:
            handle.seek(0)
            try:
                book = json.loads(handle.read() or "{}")
            except ValueError:  # a holder killed mid-write: the live ones register again
                book = {}
            if not isinstance(book, dict) or not isinstance(book.get("holds", {}), dict):
                book = {}
            if not isinstance(book.get("seq"), int):
                book["seq"] = 0
            if not isinstance(book.get("quiet", 0), int):
                book.pop("quiet")
            book["holds"] = _live(book)
            result = change(book)
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps(book))
            handle.flush()
            return result


@contextlib.contextmanager
def held(device: str, alone: bool = False) -> Iterator[Hold]:
    """One verification's hold on `device`, shared to begin with (exclusive from the start
    where `alone`); nothing on the CPU, where verifications share the cores and time nothing.
    Threads of one process hold it as processes do (each its own open file: flock's)."""
    hold = Hold(_path() if device == "cuda" and _gpu_present() else None)
    try:
        hold.exclusive() if alone else hold.share()
        yield hold
    finally:
        hold.release()


def _enter(book: dict, key: str) -> tuple[int, int]:
    book["seq"] += 1
    others = len(book["holds"])
    book["holds"][key] = {"pid": os.getpid(), "bytes": 0}
    return book["seq"], others


def _leave(book: dict, key: str) -> tuple[int, int]:
    book["holds"].pop(key, None)
    return book["seq"], 0


def _live(book: dict) -> dict:
    """The holds whose process still runs (a killed one never said it left)."""
    return {k: e for k, e in book.get("holds", {}).items()
            if isinstance(e, dict) and _alive(e.get("pid")) and
            isinstance(e.get("bytes"), int)}


def _alive(pid) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True


def _open(path: str):
    return open(path, "a+")  # noqa: SIM115 (held across the verification)


def _flock(handle, how: int) -> None:
    fcntl.flock(handle, how)


@contextlib.contextmanager
def _flocked(path: str, how: int):
    with open(path, "a+") as handle:
        fcntl.flock(handle, how)
        yield handle


def _gpu_present() -> bool:
    import torch

    return torch.cuda.is_available()


def _path() -> str:
    import torch

    try:
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        name = str(getattr(props, "uuid", "") or props.name)
    except Exception:  # a torch without the field: one lock for the machine's GPUs
        name = "any"
    name = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
    return os.path.join(tempfile.gettempdir(), f"warpsmith-gpu-{name}.lock")
