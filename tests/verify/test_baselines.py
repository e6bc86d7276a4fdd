"""Every implementation is timed on the trusted side's clock, the candidate's blocks and the
baselines' interleaved (baselines.py), the worker stopped while a baseline runs
(proctree.stopped). On the CPU: the schedule and the protocol; the GPU timing itself is
tests/verify/test_gpu.py's."""

import contextlib
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from warpsmith.config import PROFILES, worker_environment
from warpsmith.tasks.loader import load_task
from warpsmith.verify import wire
from warpsmith.verify.checks.reference import Case, prepare
from warpsmith.verify.child.timing import parse_go
from warpsmith.verify.protocol import END, Malformed
from warpsmith.verify.timing.baselines import Baselines

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


def _is_go(reply) -> bool:
    first = reply[0] if isinstance(reply, list) else reply
    return first.startswith(b"go ")


DIAG = {"own_launches": None, "guarded": {"forbidden_ops": [], "threads_started": 0},
        "aliased": 0, "inprocess_us": 1.0}


class _Worker:
    """The worker's side of the timing protocol, at the frame level (child/timing.py):
    `answer(inputs)` is what it returns for a call's inputs (relu, honestly)."""

    def __init__(self, timer, answer=None, elapsed=0.001):
        self.timer, self.elapsed = timer, elapsed
        self.answer = answer or (lambda inputs: [torch.relu(inputs[0])])
        self.records: list[dict] = []

    def run(self) -> list:
        reply = self.timer({"kind": "ready"}, b"", None)
        if not _is_go(reply):
            return [reply]
        sets = parse_go(reply.decode())
        assert sets["kind"] == "sets"
        self.n, self.descs = sets["n"], wire.tensor_descs(sets)
        assert self.timer({"kind": "slots"}, b"", None) is None  # GO waits for `idle`
        replies = [self.timer({"kind": "idle"}, b"", None)]
        while _is_go(replies[-1]):
            assert self.block(replies[-1]) is None
            replies.append(self.timer({"kind": "idle"}, b"", None))
        return replies

    def block(self, reply: list):
        record = parse_go(reply[0].decode())
        self.records.append(record)
        data, inputs = b"".join(bytes(c) for c in reply[1:]), []
        for i in range(self.n):
            size = wire.nbytes(self.descs[0])
            inputs.append([wire.from_bytes(data, self.descs[0], i * size)])
        outs = [self.answer(inputs[i]) for i in record["order"]]
        descs, chunks = zip(*(wire.output_message(o) for o in outs), strict=True)
        payload = b"".join(bytes(c) for call in chunks for c in call)
        return self.timer({"kind": "block", "outputs": list(descs), **DIAG,
                           "own_launches": [1] * self.n}, payload, self.elapsed)


def test_each_block_times_every_implementation_once_in_an_order_drawn_per_block():
    task, prepared = _prepared()
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    worker = _Worker(timer, elapsed=0.002)
    replies = worker.run()
    assert sum(map(_is_go, replies)) == PROFILE.blocks and replies[-1] == END
    timing = timer.timing({"persisting_l2_raised": 0})
    assert timing["complete"] and len(timing["clocks"]) == PROFILE.blocks
    # the candidate's time is the trusted side's clock per call, never the worker's word
    assert timing["times_us"]["candidate"] == [2000.0 / worker.n] * PROFILE.blocks
    assert timing["inprocess_us"] == [1.0 / worker.n] * PROFILE.blocks
    assert len(timing["times_us"]["eager"]) == PROFILE.blocks
    assert all(t > 0 for t in timing["times_us"]["eager"])
    for block in range(PROFILE.blocks):  # a permutation of the implementations each time
        assert sorted(n for b, n in timer.turns if b == block) == ["candidate", "eager"]
    for record in worker.records:  # every set once, nothing but the order and the watch
        assert sorted(record["order"]) == list(range(worker.n))
        assert set(record) == {"order", "watch"}


SOUND = {"run_us": 500.0, "post_us": 300.0, "clock_us": 10.0, "launch_us": 100.0}


@pytest.mark.parametrize("phases", [SOUND, SOUND | {"run_us": "x"},
                                    None, [1.0]], ids=["sound", "bad-value", "absent", "list"])
def test_the_workers_account_of_a_block_is_kept_only_when_well_formed(phases, monkeypatch):
    task, prepared = _prepared()
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    monkeypatch.setitem(DIAG, "phases", phases)
    _Worker(timer, elapsed=0.002).run()  # a malformed diagnostic never ends the timing
    timing = timer.timing({"persisting_l2_raised": 0})
    assert timing["complete"]
    # the pipes' transit is the trusted clock's 2000 us less what the worker accounts for
    assert timing["phases"] == ([SOUND | {"transit_us": 1200.0}] * PROFILE.blocks
                                if phases is SOUND else [])


def test_go_comes_only_after_the_worker_says_it_is_idle():
    """The clock starts at GO: work the worker does after a block (its checks, the next
    block's preparation) comes before its `idle`, never on the clock; a block or a second
    `idle` out of turn is malformed."""
    task, prepared = _prepared()
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    assert _is_go(timer({"kind": "ready"}, b"", None))
    with pytest.raises(Malformed):
        timer({"kind": "idle"}, b"", None)  # before its slots
    assert timer({"kind": "slots"}, b"", None) is None
    with pytest.raises(Malformed):
        timer({"kind": "block"}, b"", 0.001)  # no GO was sent
    assert _is_go(timer({"kind": "idle"}, b"", None))
    with pytest.raises(Malformed):
        timer({"kind": "idle"}, b"", None)  # a block is due


def test_the_order_is_not_the_same_for_every_verification():
    task, prepared = _prepared()
    many = replace(PROFILE, blocks=12)
    orders = {tuple(Baselines(task, prepared, many, device="cpu").turns) for _ in range(4)}
    assert len(orders) > 1  # 2^12 orders each: drawn, not fixed by the block's number


def _at_first_block(timer):
    timer({"kind": "ready"}, b"", None)
    timer({"kind": "slots"}, b"", None)
    if not _is_go(timer({"kind": "idle"}, b"", None)):
        pytest.skip("no candidate block drawn")  # the baselines' turns ended the schedule


def test_a_block_nobody_asked_for_or_a_malformed_one_ends_the_timing():
    task, prepared = _prepared()
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    with pytest.raises(Malformed):
        timer({"kind": "block"}, b"", 0.001)  # before `ready`
    _at_first_block(timer)
    n = timer.n
    good = {"kind": "block", "outputs": [[]] * n, **DIAG, "own_launches": [1] * n}
    with pytest.raises(Malformed):  # a block frame that came before its GO was written
        timer(good, b"", None)
    for bad in (good | {"own_launches": [1] * (n + 1)}, good | {"guarded": {}},
                good | {"aliased": "none"}, good | {"aliased": n + 1},
                good | {"inprocess_us": "fast"}):
        timer.state = "block"
        with pytest.raises(Malformed):
            timer(bad, b"", 0.001)
    with pytest.raises(Malformed):
        timer({"kind": "ready"}, b"", None)  # a second `ready`


@pytest.mark.parametrize("outputs", [b"", b"x" * 64], ids=["none", "garbage"])
def test_outputs_that_do_not_match_their_descriptors_end_the_timing(outputs):
    task, prepared = _prepared()
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    _at_first_block(timer)
    n = timer.n
    descs = [[{"dtype": "float32", "shape": [1 << 20]}]] * n
    with pytest.raises(Malformed):
        timer({"kind": "block", "outputs": descs, **DIAG, "own_launches": [1] * n},
              outputs, 0.001)
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    _at_first_block(timer)
    overflow = [[{"dtype": "float32", "shape": [0] + [2**39] * 15}]] * n  # E64: no bytes,
    with contextlib.suppress(Malformed):  # and no meta tensor: nothing but Malformed escapes
        timer({"kind": "block", "outputs": overflow, **DIAG, "own_launches": [1] * n},
              b"", 0.001)


def test_a_baseline_that_cannot_be_built_is_left_out_with_a_note_not_blamed():
    task, prepared = _prepared()
    prof = replace(PROFILE, compile_modes=("no-such-mode",))
    timer = Baselines(task, prepared, prof, device="cpu")
    _Worker(timer).run()
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
while (got := line()).startswith(b"go"):
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

    from warpsmith.verify.isolation.sandbox import pids, run_worker

    states, frames, marker = [], [], f"# job {secrets.token_hex(8)}"

    def on_timing(head, payload, elapsed):
        frames.append(head["kind"])
        tree = [p for p in pids() if marker.encode() in _cmdline(p)]  # bwrap's and python's
        assert tree
        states.append({_state(p) for p in tree})
        time.sleep(1.5)  # a baseline's block, while the worker waits
        return b"go {}\n" if len(frames) < 4 else END

    job, scratch = tmp_path / "job", tmp_path / "cwd"
    job.mkdir()
    scratch.mkdir()
    out = run_worker(job, scratch, 4, worker_environment("cpu"), max_bytes=1 << 20,
                     program=("-c", WORKER + marker), on_timing=on_timing)
    assert not out.timed_out and not out.malformed, out
    assert out.report["lines"] == ["go {}", "go {}", "go {}", "end"]
    assert frames == ["ready", "block", "block", "block"]
    assert all(s == {"T"} for s in states), states  # every process of the worker: stopped


def test_timing_frames_without_a_timer_are_malformed(tmp_path):
    from warpsmith.verify.isolation.sandbox import run_worker

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
    from warpsmith.verify.isolation.proctree import STOPPED, pids, state

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

    from warpsmith.verify.isolation import jail
    from warpsmith.verify.isolation.sandbox import run_worker

    if sandbox == "none":
        monkeypatch.setattr(jail, "current", lambda: jail.Jail("none", "test"))
    elif not jail.current().ok:
        pytest.skip(jail.current().detail)
    marker, running = f"# job {secrets.token_hex(8)}", []

    def on_timing(head, payload, elapsed):
        for _ in range(20):  # a baseline's block: nothing of the worker's may run meanwhile
            running.extend(_running(marker))
            time.sleep(0.01)
        return b"go {}\n" if head["kind"] == "ready" else END

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


def test_every_timed_call_gets_fresh_inputs_and_an_answer_replayed_from_others_fails():
    """Every block's sets are made afresh from seeds drawn then (never the warm-up's), and the
    values the trusted side reads from the worker's outputs are checked against the
    reference of the inputs it handed over: an answer replayed from an earlier block's
    inputs fails (E18)."""
    from warpsmith.verify.timing.summary import _check_probes

    task, prepared = _timed_prepared()
    warm = {c.seed for c in prepared.cases if c.variant == "timing"}
    timer = Baselines(task, prepared, PROFILE, device="cpu")
    _Worker(timer).run()
    timing = timer.timing({"persisting_l2_raised": 0})
    seeds = [s for block in timing["block_seeds"] for s in block]
    assert not warm & set(seeds) and len(set(seeds)) == len(seeds)
    assert timing["probes"] and all(r.ok for r in _check_probes(timing, prepared, task, "cpu"))

    first: list = []

    def replay(inputs):  # the first block's answers, given again to every later block
        if len(first) < timer.n:
            first.append([torch.relu(inputs[0])])
        return first[len(first) - 1 if len(first) < timer.n else 0]

    timer = Baselines(task, prepared, PROFILE, device="cpu")
    _Worker(timer, answer=replay).run()
    timing = timer.timing({"persisting_l2_raised": 0})
    assert not all(r.ok for r in _check_probes(timing, prepared, task, "cpu"))
