"""Verifications on one GPU, whichever processes ask. By default each has the GPU to itself
from start to verdict. Where the executor asks for sharing (`local:N`, issue 28), several
prepare their cases and check their candidates' outputs at once, each within a reservation
of the GPU's memory, and each is timed alone. A reader-writer lock of flocks on files named
after the GPU's UUID in the system's temporary folder (which the candidate's sandbox hides),
released by the OS when its holder exits, however it exits:

- `shared` while a sharing verification prepares and checks (flock LOCK_SH on the main file);
- `exclusive` otherwise, and from a sharing verification's first timed block to its end
  (LOCK_EX), taken by letting go of the shared lock first: two holders that both want it
  then cannot wait on each other;
- a turnstile (a second file) that a writer holds while it waits, so a stream of readers
  cannot starve it: a reader passes the turnstile before it takes its shared lock;
- a ledger (a third file, JSON under its own flock) of each holder's reserved bytes, so one
  admitted beside others fits beside all they may still allocate, and of a count of every
  hold ever registered, so a verification knows whether it was ever not alone. A holder that
  waits to be timed keeps its memory: the exclusive lock alone does not make the GPU's
  memory free (`admit` counts the others' reservations in every mode).

Files this process cannot open safely (another user's, a symbolic link) leave the lock to
this process's threads alone, as before the lock files existed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator

MAX_LEDGER = 1 << 20  # bytes read of the ledger: more is not one we wrote
MAX_BYTES = 1 << 50  # a reservation or quiet budget past a petabyte is not one we wrote
_local = threading.Lock()  # where no lock file can be had: this process's threads


class Hold:
    """One verification's hold on one GPU. `crowded`: another verification held the GPU at
    some time during this one (its memory then counted against ours)."""

    def __init__(self, path: str | None):
        self.path, self.key = path, uuid.uuid4().hex
        self.mode, self.crowded, self._seq = "", False, 0
        self.went_alone = False  # it held the GPU alone at some time (exclusive)
        self.fell_back = ""  # why the lock files could not be had (the verdict says it)
        self._main = None
        self._fallback = False  # no lock file: _local held instead

    # -- the lock ---------------------------------------------------------------------------

    def share(self) -> None:
        if self.path is None:
            return
        try:
            with _flocked(self.path + ".turnstile", fcntl.LOCK_EX):
                self._main = _open(self.path)
                _flock(self._main, fcntl.LOCK_SH)
        except OSError:
            return self._fall_back()
        self.mode = "shared"
        self._register()

    def exclusive(self) -> None:
        """The GPU to this verification alone (idempotent); its reservation stays."""
        if self.path is None or self.mode == "exclusive":
            return
        try:
            if self._main is not None:  # let go first: a second holder waiting here too
                _flock(self._main, fcntl.LOCK_UN)  # must be able to pass
            else:
                self._main = _open(self.path)
            with _flocked(self.path + ".turnstile", fcntl.LOCK_EX):
                _flock(self._main, fcntl.LOCK_EX)
        except OSError:
            return self._fall_back()
        self.mode, self.went_alone = "exclusive", True
        if not self._seq:
            self._register()

    def release(self) -> None:
        if self._fallback:
            self._fallback, self.mode = False, ""
            _local.release()
            return
        if self.path is None or self._main is None:
            return
        try:
            seq, _ = self._ledger(lambda book: _leave(book, self.key))
            self.crowded = self.crowded or seq != self._seq  # someone came after us
        finally:
            with contextlib.suppress(OSError):  # said, not left to the close: a process
                _flock(self._main, fcntl.LOCK_UN)  # forked meanwhile shares the file
            self._main.close()
            self._main, self.mode = None, ""

    def _register(self) -> None:
        self._seq, others = self._ledger(lambda book: _enter(book, self.key))
        self.crowded = self.crowded or others > 0

    def _fall_back(self) -> None:
        """The lock files cannot be had: this process's threads, one at a time. Said in the
        verdict: a file planted where the lock should be (another user's, a link) left two
        processes' timings overlapping in silence (red-team round of 2026-12-08)."""
        self.fell_back = f"the GPU's lock files ({self.path}.*) could not be opened safely"
        if self._main is not None:
            self._main.close()
            self._main = None
        self.path, self._fallback, self.mode, self.went_alone = None, True, "exclusive", True
        _local.acquire()

    # -- the memory ledger ------------------------------------------------------------------

    def admit(self, needed: int, available: int) -> bool:
        """Reserve `needed` bytes if `available` (what is free now) holds them beside every
        other holder's reservation (a holder waiting to be timed keeps its memory, whatever
        lock this one holds); False, nothing reserved, where it does not."""
        if self.path is None:
            return True

        def reserve(book):
            if self.key not in book["holds"]:  # a ledger started again under us
                _enter(book, self.key)
                self.crowded = True
            others = sum(e["bytes"] for k, e in book["holds"].items() if k != self.key)
            fits = others + needed <= available
            if fits:
                book["holds"][self.key]["bytes"] = int(needed)
            return fits, others

        fits, others = self._ledger(reserve)
        self.crowded = self.crowded or others > 0
        return fits

    def others_reserved(self) -> int:
        """The bytes the other verifications on the GPU have reserved (those waiting to be
        timed, where this one holds it alone, keep their memory). One registered with
        nothing reserved holds none of it: it is planning, or waiting for the lock."""
        if self.path is None:
            return 0
        return self._ledger(lambda book: sum(e["bytes"] for k, e in book["holds"].items()
                                             if k != self.key))

    def quiet(self, available: int) -> int:
        """What was free with no verification beside this one: `available` now where this
        one is alone (it is recorded), else the last recorded (a plan made beside others is
        then the plan it would be alone: memplan.plan's `quiet`)."""
        if self.path is None:
            return available

        def read(book):
            if not [k for k in book["holds"] if k != self.key] or "quiet" not in book:
                book["quiet"] = int(available)
            return book["quiet"]

        return self._ledger(read)

    def let_others_first(self) -> None:
        """Exclusive, with others' reservations in the way (holders waiting to be timed keep
        their memory): the lock let go a moment so that they go first, then taken again."""
        if self.path is None or self._main is None:
            return
        _flock(self._main, fcntl.LOCK_UN)
        time.sleep(0.2)  # the waiting timer, which holds the turnstile, takes it first
        with _flocked(self.path + ".turnstile", fcntl.LOCK_EX):
            _flock(self._main, fcntl.LOCK_EX)

    def _ledger(self, change):
        try:
            return self._write_ledger(change)
        except OSError:  # no ledger to be had: as if alone, which the lock then makes true
            return change(_parse("{}"))

    def _write_ledger(self, change):
        with _flocked(self.path + ".ledger", fcntl.LOCK_EX) as handle:
            handle.seek(0)
            book = _parse(handle.read(MAX_LEDGER + 1))
            result = change(book)
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps(book))
            handle.flush()
            return result


@contextlib.contextmanager
def held(device: str, alone: bool = True) -> Iterator[Hold]:
    """One verification's hold on `device`: exclusive from the start (`alone`, the default),
    or shared to begin with where the executor shares the GPU (config.gpu_shared); nothing
    on the CPU, where verifications share the cores and time nothing."""
    hold = Hold(_path() if device == "cuda" and _gpu_present() else None)
    try:
        hold.exclusive() if alone else hold.share()
        yield hold
    finally:
        hold.release()


def _parse(text: str) -> dict:
    """The ledger as written, or a fresh one for anything else (a holder killed mid-write, a
    file someone else wrote): the live holders register again as they next touch it."""
    try:
        book = json.loads(text) if len(text) <= MAX_LEDGER else None
    except (ValueError, RecursionError):
        book = None
    if not isinstance(book, dict) or not isinstance(book.get("holds", {}), dict):
        book = {}
    if not isinstance(book.get("seq"), int):
        book["seq"] = 0
    quiet = book.get("quiet")
    if quiet is not None and not (isinstance(quiet, int) and 0 <= quiet <= MAX_BYTES):
        book.pop("quiet")
    book["holds"] = _live(book)
    return book


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
            isinstance(e.get("bytes"), int) and 0 <= e["bytes"] <= MAX_BYTES}


def _alive(pid) -> bool:
    if not isinstance(pid, int) or pid <= 1:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):  # another user's, or no pid at all
        return isinstance(pid, int) and pid < 1 << 22
    return True


def _open(path: str):
    """The file, ours and not a link (O_NOFOLLOW; another user's is refused): OSError."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        if os.fstat(fd).st_uid != os.geteuid():
            raise PermissionError(f"{path} belongs to another user")
        return os.fdopen(fd, "r+")
    except BaseException:
        os.close(fd)
        raise


def _flock(handle, how: int) -> None:
    fcntl.flock(handle, how)


@contextlib.contextmanager
def _flocked(path: str, how: int):
    with _open(path) as handle:
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
