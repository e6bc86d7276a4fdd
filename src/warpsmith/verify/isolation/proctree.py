"""The processes of a job, found from /proc: its tree (by parent), the carriers of its tag,
and stopping all of them while the trusted side times a baseline (sandbox.Started). Linux
only; without /proc nothing is found."""

from __future__ import annotations

import contextlib
import os
import signal
import time


@contextlib.contextmanager
def stopped(root: int, tag: str = "", token: str = ""):
    """Every process of the worker's tree stopped (SIGSTOP, which no process can catch or
    ignore) while the block runs, continued after it whatever happens. `tag`=`token`: the
    job's environment tag, whose carriers are stopped too (without a sandbox a daemon can
    leave the tree)."""
    tree: set[int] = set()
    try:
        tree = _stop_tree(root, tag, token)
        yield
    finally:
        _signal(tree, signal.SIGCONT)


STOP_ROUNDS = 50


def _signal(tree, sig: int) -> None:
    """`sig` to each process group of the tree, then to each of its processes."""
    for group_id in _groups(tree):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group_id, sig)
    for pid in tree:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _stop_tree(root: int, tag: str, token: str) -> set[int]:
    """Stops the tree to a fixed point: a process listed before its SIGSTOP lands may have
    forked a child that runs on (E47, a fork chain), so the tree is listed again until every
    process in it is stopped. Each process group found is stopped whole as well: the kernel
    restarts a fork that a group's signal interrupts, so none slips through inside a group."""
    stopped: set[int] = set()
    for _ in range(STOP_ROUNDS):
        tree = _members(root, tag, token)
        _signal(tree, signal.SIGSTOP)
        stopped.update(tree)
        _wait_stopped(tree, timeout_s=0.2)
        # Listed again, carriers of the tag included: a child forked just before its
        # parent stopped runs until it takes its own SIGSTOP, and once its parent has
        # exited it is no descendant of the root, only a carrier (a fork chain without
        # a sandbox, CI 2026-12-07).
        if all(state(pid) in STOPPED for pid in tree) and \
                set(_members(root, tag, token)) <= stopped:
            break
    return stopped


def _members(root: int, tag: str, token: str) -> list[int]:
    """The worker's tree and, where a tag is given, every carrier of it."""
    return [root, *descendants(root), *(tagged(tag, token) if token else [])]


STOPPED = ("T", "t", "Z", "X", "")


def _wait_stopped(tree: list[int], timeout_s: float = 1.0) -> None:
    """Until every process of the tree is stopped (or gone), for a while at most."""
    end = time.perf_counter() + timeout_s
    while any(state(pid) not in STOPPED for pid in tree):
        if time.perf_counter() > end:
            return
        time.sleep(0.0005)


def _groups(tree) -> set[int]:
    """The process groups of the tree's processes, never the trusted side's own."""
    return {group(pid) for pid in tree} - {0, os.getpgrp()}


def group(pid: int) -> int:
    """A process's group from /proc/PID/stat (0 when it is gone)."""
    fields = _stat(pid)
    return int(fields[2]) if len(fields) > 2 else 0


def state(pid: int) -> str:
    """A process's state letter from /proc/PID/stat, '' when it is gone."""
    fields = _stat(pid)
    return fields[0].decode() if fields else ""


def _stat(pid: int) -> list[bytes]:
    """/proc/PID/stat's fields after "(comm)" (state, parent, …); [] when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return []
    return stat[stat.rindex(b")") + 2:].split()


def descendants(root: int) -> list[int]:
    """The processes below `root`, from each process's parent in /proc/PID/stat."""
    parents = {pid: int(fields[1]) for pid in pids() if (fields := _stat(pid))}
    found, frontier = [], [root]
    while frontier:
        children = [p for p, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def kill_tagged(name: str, value: str, passes: int = 3) -> None:
    """Kill every other process whose environment has name=value (also used by the local
    executor for a dead worker's candidate process, which runs in a session of its own)."""
    for _ in range(passes):
        found = tagged(name, value)
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


def tagged(name: str, value: str) -> list[int]:
    """Every other process whose environment has name=value."""
    tag = f"{name}={value}".encode()
    return [pid for pid in pids() if pid != os.getpid() and tag in environ_of(pid)]


def pids() -> list[int]:
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:  # no /proc (not Linux): nothing to scan
        return []


def environ_of(pid: int) -> list[bytes]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []
