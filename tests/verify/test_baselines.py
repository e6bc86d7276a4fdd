"""The baselines are timed in the trusted process between the candidate's blocks
(baselines.py), with the worker stopped meanwhile (proctree.stopped). On the CPU: the
schedule and the protocol; the GPU timing itself is tests/verify/test_gpu.py's."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from warpsmith.config import PROFILES, worker_environment
from warpsmith.tasks.loader import load_task
from warpsmith.verify.baselines import Baselines
from warpsmith.verify.protocol import END, GO, Malformed
from warpsmith.verify.reference import Case, prepare

BUILTIN = Path(__file__).parents[2] / "src" / "warpsmith" / "tasks" / "builtin" / "level1"
PROFILE = replace(PROFILES["quick"], blocks=4, calls_per_block=3, warmup_s=0.0,
                  compile_modes=())


def _prepared(prof=PROFILE):
    task = load_task(BUILTIN / "relu.py")
    shape = task.shapes[0].name
    prepared = prepare(task, [shape], prof, "cpu", twin=False)
    prepared.timed_shape = shape
    prepared.cases += [Case(shape, "timing", seed, [], []) for seed in (11, 12, 13)]
    return task, prepared


def _block(times, extra=None):
    calls = len(times) + 1  # the timed calls and the watched one
    block = {"times_us": times, "probes": [{}] * calls, "own_launches": [1] * calls,
             "guarded": {"forbidden_ops": [], "threads_started": 0, "inputs_modified": False},
             "aliased": 0} | (extra or {})
    return json.dumps(block).encode()


def _is_go(reply: bytes) -> bool:
    return reply.startswith(b"go ")


def test_each_block_times_every_implementation_once_in_an_order_drawn_per_block():
    task, prepared = _prepared()
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    replies = [timer({"kind": "ready"}, b"")]
    while _is_go(replies[-1]):
        replies.append(timer({"kind": "block"}, _block([5.0, 6.0, 7.0])))
    assert sum(map(_is_go, replies)) == PROFILE.blocks and replies[-1] == END
    timing = timer.timing({"persisting_l2_raised": 0})
    assert timing["complete"] and len(timing["clocks"]) == PROFILE.blocks
    assert timing["times_us"]["candidate"] == [5.0, 6.0, 7.0] * PROFILE.blocks
    assert len(timing["times_us"]["eager"]) == PROFILE.blocks * PROFILE.calls_per_block
    assert all(t > 0 for t in timing["times_us"]["eager"])
    for block in range(PROFILE.blocks):  # a permutation of the implementations each time
        assert sorted(n for b, n in timer.turns if b == block) == ["candidate", "eager"]


def test_the_order_is_not_the_same_for_every_verification():
    task, prepared = _prepared()
    many = replace(PROFILE, blocks=12)
    orders = {tuple(Baselines(task, prepared, many, device="cpu").turns) for _ in range(4)}
    assert len(orders) > 1  # 2^12 orders each: drawn, not fixed by the block's number


def test_a_block_nobody_asked_for_or_a_malformed_one_ends_the_timing():
    task, prepared = _prepared()
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    with pytest.raises(Malformed):
        timer({"kind": "block"}, _block([1.0, 1.0, 1.0]))  # before `ready`
    while not _is_go(timer({"kind": "ready"} if not timer.ready else {"kind": "block"},
                           _block([1.0] * 3))):
        pass
    short = {"probes": [], "own_launches": []}  # a block that hides its calls' probes
    for bad in (b"not json", _block([1.0]), json.dumps([1, 2]).encode(),
                _block([1.0] * 3, short), _block([1.0] * 3, {"guarded": {}}),
                _block([1.0] * 3, {"aliased": "none"}), _block([1.0] * 3, {"aliased": 99}),
                b"[" * 200_000 + b"]" * 200_000):  # past json's recursion limit
        with pytest.raises(Malformed):
            timer({"kind": "block"}, bad)
    with pytest.raises(Malformed):
        timer({"kind": "ready"}, b"")  # a second `ready`


def test_a_baseline_that_cannot_be_built_is_left_out_with_a_note_not_blamed():
    task, prepared = _prepared()
    prof = replace(PROFILE, compile_modes=("no-such-mode",))
    timer = Baselines(task, prepared, prof, device="cpu")
    reply = timer({"kind": "ready"}, b"")
    while _is_go(reply):
        reply = timer({"kind": "block"}, _block([1.0] * 3))
    timing = timer.timing({"persisting_l2_raised": 0})
    assert set(timing["times_us"]) == {"candidate", "eager"} and timing["complete"]
    assert "compile:no-such-mode" in timer.notes[0] and "not a baseline" in timer.notes[0]


# A worker of our own that talks the timing protocol, as child/timing.py does.
WORKER = '''
import os, sys
from warpsmith.verify.protocol import GO, TIMING, write_frame
fd = int(sys.argv[-1])
def line():
    got = b""
    while not got.endswith(b"\\n"):
        got += os.read(0, 1)
    return got
write_frame(fd, {"frame": TIMING, "kind": "ready"})
lines = []
while (got := line()) == GO:
    lines.append(got.decode().strip())
    write_frame(fd, {"frame": TIMING, "kind": "block"}, b"[1.0]")
write_frame(fd, {"stage": "done", "lines": lines + [got.decode().strip()]})
os._exit(0)
'''


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    return stat[stat.rindex(b")") + 2:].split()[0].decode()


def test_the_worker_is_stopped_while_the_trusted_side_times_and_that_time_is_not_its(
        tmp_path):
    import secrets
    import time

    from warpsmith.verify.sandbox import pids, run_worker

    states, frames, marker = [], [], f"# job {secrets.token_hex(8)}"

    def on_timing(head, payload):
        frames.append(head["kind"])
        tree = [p for p in pids() if marker.encode() in _cmdline(p)]  # bwrap's and python's
        assert tree
        states.append({_state(p) for p in tree})
        time.sleep(1.5)  # a baseline's block, while the worker waits
        return GO if len(frames) < 4 else END

    job, scratch = tmp_path / "job", tmp_path / "cwd"
    job.mkdir()
    scratch.mkdir()
    out = run_worker(job, scratch, 4, worker_environment("cpu"), max_bytes=1 << 20,
                     program=("-c", WORKER + marker), on_timing=on_timing)
    assert not out.timed_out and not out.malformed, out
    assert out.report["lines"] == ["go", "go", "go", "end"]
    assert frames == ["ready", "block", "block", "block"]
    assert all(s == {"T"} for s in states), states  # every process of the worker: stopped


def test_timing_frames_without_a_timer_are_malformed(tmp_path):
    from warpsmith.verify.sandbox import run_worker

    job, scratch = tmp_path / "job", tmp_path / "cwd"
    job.mkdir()
    scratch.mkdir()
    out = run_worker(job, scratch, 30, worker_environment("cpu"), max_bytes=1 << 20,
                     program=("-c", WORKER))
    assert "timing that was not asked for" in out.malformed and out.report is None


# A worker whose child forks a new generation and exits, again and again: a process listed
# before the stop is gone by the time its SIGSTOP lands, and its child runs on.
FORKING = '''
import os
if os.fork() == 0:
    while True:
        if os.fork():
            os._exit(0)
''' + WORKER


def _running(marker: str) -> list[str]:
    from warpsmith.verify.proctree import STOPPED, pids, state

    return [s for p in pids() if marker.encode() in _cmdline(p)
            if (s := state(p)) not in STOPPED]


# A daemon of the worker's: a new session, its parent gone (without a sandbox it leaves the
# worker's tree for the host's init), spinning on the CPU while the baselines are timed.
DAEMON = '''
import os
if os.fork() == 0:
    os.setsid()
    if os.fork():
        os._exit(0)
    while True:
        pass
''' + WORKER


@pytest.mark.parametrize("program", [FORKING, DAEMON], ids=["fork-chain", "daemon"])
@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_every_process_of_the_worker_is_stopped_while_a_baseline_is_timed(
        tmp_path, monkeypatch, program, sandbox):
    import secrets
    import time

    from warpsmith.verify import jail
    from warpsmith.verify.sandbox import run_worker

    if sandbox == "none":
        monkeypatch.setattr(jail, "current", lambda: jail.Jail("none", "test"))
    elif not jail.current().ok:
        pytest.skip(jail.current().detail)
    marker, running = f"# job {secrets.token_hex(8)}", []

    def on_timing(head, payload):
        for _ in range(20):  # a baseline's block: nothing of the worker's may run meanwhile
            running.extend(_running(marker))
            time.sleep(0.01)
        return GO if head["kind"] == "ready" else END

    job, scratch = tmp_path / "job", tmp_path / "cwd"
    job.mkdir()
    scratch.mkdir()
    out = run_worker(job, scratch, 20, worker_environment("cpu"), max_bytes=1 << 20,
                     program=("-c", program + marker), on_timing=on_timing)
    assert not out.timed_out and not out.malformed, out
    assert running == [], f"{len(running)} samples of the worker's processes running"


def _timed_prepared():
    task = load_task(BUILTIN / "relu.py")
    shape = task.shapes[0].name
    return task, prepare(task, [shape], PROFILE, "cpu", twin=False, timed=True)


def _probe_for(task, prepared, seed, k):
    """What an honest worker reports for set k when its inputs came from `seed`."""
    from warpsmith.verify.reference import timing_case

    like = [c for c in prepared.cases if c.variant == "timing"][k]
    case = timing_case(task, prepared, seed, like, "cpu")
    return {"case": k, "values": [t.double().tolist() for t in case.ref],
            "shapes": case.out_shapes}


def test_every_timed_call_gets_fresh_inputs_and_an_answer_replayed_from_others_fails():
    """The warm-up's sets (the prepared timing seeds) are never timed: each go brings a
    fresh seed for every call of its block, so an answer cached from the warm-up or an
    earlier call fails the probes (E18)."""
    from warpsmith.verify.child.timing import parse_go
    from warpsmith.verify.timing import _check_probes

    task, prepared = _timed_prepared()
    warm = {c.seed for c in prepared.cases if c.variant == "timing"}
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    reply, replayed = timer({"kind": "ready"}, b""), []
    while _is_go(reply):
        calls, _, seeds = parse_go(reply.decode())
        assert not warm & set(seeds) and len(set(seeds)) == calls + 1
        honest = [_probe_for(task, prepared, seed, i % len(warm))
                  for i, seed in enumerate(seeds)]
        replayed += [_probe_for(task, prepared, min(warm), i % len(warm))
                     for i in range(calls + 1)]
        reply = timer({"kind": "block"}, _block([1.0] * calls, {"probes": honest}))
    timing = timer.timing({"persisting_l2_raised": 0})
    assert len(timing["probes"]) == PROFILE.blocks * (PROFILE.calls_per_block + 1)
    assert all(r.ok for r in _check_probes(timing, prepared, task, "cpu"))
    timing["probes"] = [p | {k: q[k] for k in ("block", "call", "case")}
                        for p, q in zip(replayed, timing["probes"], strict=True)]
    assert not any(r.ok for r in _check_probes(timing, prepared, task, "cpu"))
