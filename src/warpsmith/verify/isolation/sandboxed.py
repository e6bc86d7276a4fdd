"""A one-off tool process over candidate code (Nsight Compute's profile, compute-sanitizer's
memcheck) run in the verifier's sandbox as a job of its own: the candidate's code runs nowhere
else, and nothing outlives the call."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

from . import jail


def run(command: list[str], output: Path, folders: tuple[Path, Path], env: dict,
        timeout_s: float, readonly: list[Path] = ()) -> int | None:
    """The exit code, or None at the deadline. `folders`: the job's scratch cwd and the
    folder of its candidate, log and output (bound writable). The tool and the candidate's
    process run in a session of their own, which is killed whatever happens (deadline,
    Ctrl-C, or leftovers after a normal exit)."""
    sandbox = jail.current()
    uid = jail.new_uid() if sandbox.ok else None
    for folder in folders:
        jail.give(folder, uid)
    wrapped = jail.wrap(sandbox, command, writable=list(folders), uid=uid, keep_fds=(),
                        readonly=list(readonly))
    with output.open("wb") as out:
        try:
            proc = subprocess.Popen(wrapped.argv, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, cwd=folders[0], env=env,
                                    start_new_session=True, pass_fds=wrapped.pass_fds)
        finally:
            for fd in wrapped.close_after:
                os.close(fd)
        try:
            return proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def tail(path: Path, max_chars: int) -> str:
    """The last `max_chars` bytes of a file the sandboxed process may have filled."""
    if not path.exists():
        return ""
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - max_chars))
        return f.read().decode("utf-8", "replace")


def install_of(tool: str) -> list[Path]:
    """A tool's own folder, bound into the sandbox read-only in case it sits under a folder
    the sandbox hides (a home; /opt is not): a launcher finds its parts beside it."""
    found = Path(tool).resolve()
    return [found.parent] if found.exists() else []
