"""Watching real processes from a test: which are a process's children, and waiting for one."""

import os
import time
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent
GOOD = ROOT / "tests" / "kernels" / "good"
BAD = ROOT / "tests" / "kernels" / "bad"


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:  # field 4, after the (name)
            found.append(int(entry))
    return found


def wait_for_child(pid: int, timeout_s: float = 300, settle_s: float = 0.5) -> int:
    """Until `pid` has a child that lives on for `settle_s`, and return it: a worker that has
    one is mid-verification (the candidate runs in a process of its own). A fresh worker's
    first child is the sandbox probe (`bwrap ... true`), gone in milliseconds: not that one."""
    deadline = time.monotonic() + timeout_s
    while True:
        for child in children(pid):
            time.sleep(settle_s)
            if child in children(pid):
                return child
        assert time.monotonic() < deadline, f"process {pid} started nothing that lasted"
        time.sleep(0.05)


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(e.decode(errors="replace").split("=", 1) for e in raw if b"=" in e)
