"""The timing of a verification, all on the trusted side's clock: the candidate's blocks and
eager's and torch.compile's, interleaved in an order drawn here (SystemRandom: the worker
cannot predict when a baseline runs).

Each round draws a fresh seed per input set. For the candidate's turn the sets are written
into the worker's buffers (through CUDA IPC on a GPU, as bytes after GO on the CPU) and GO
starts its block: every set once, in an order drawn here; the block's time is the trusted
side's clock from the start of GO's write to the end of the worker's `block` frame
(sandbox.Started), divided by its calls. That frame carries the block's outputs, and the
trusted side reads them with the worker stopped: a worker that says "done" before its work is
done gains nothing it can keep, since the values of a secret choice of the block's calls are
read from the outputs it handed over at the clock's stop and checked against the reference
of the same inputs (timing._check_probes); on a GPU it also reads back those calls' input
buffers. Each baseline's turn runs the same sets, made afresh in its own
memory from the same seeds, the same way: the calls back to back, one synchronize, the
clock around them. Every process of the worker is stopped (proctree.stopped) while a baseline
runs; torch.compile's caches are the trusted process's, out of the sandbox.

A baseline that cannot be built here (torch.compile of the task raising) is left out with a
note, never blamed on the candidate; an out-of-memory is the verifier's limit (too_large).
"""

from __future__ import annotations

import functools
import math
import random
import time

import torch

from ...tasks.loader import tf32_policy
from ...types import Shape, Task
from .. import ipc, wire
from ..checks import memplan
from ..checks.collect import blame_if_held, others_bytes, settle_freed
from ..checks.inputs import case_inputs
from ..checks.reference import Prepared
from ..protocol import END, Malformed, compile_name, go_line, untrusted_json
from .baseline_process import BaselineFailed, BaselineProcess
from .stopwatch import clock_and_temperature, per_call_seconds, synchronize, warm_up

CANDIDATE = "candidate"
BLOCK_SECONDS = 0.02  # a block's target length: the clock's fixed costs (a pipe's round
# trip, a synchronize: tens of microseconds) stay under 1 % of it
# On the CPU (tests of the protocol only: nothing there is a measurement) a block is short
CPU_MAX_SETS, CPU_SET_BYTES = 8, 256 << 20
PROBED_CALLS = 8  # per block, the calls whose outputs are read back and checked
# On a GPU, where memory leaves a block short of BLOCK_SECONDS, more rounds than the
# profile's, up to this many times its count, while the rounds so far took under ROUNDS_S:
# a short block carries its fixed costs' noise (the worker's wake-up, the pipes) in a larger
# share, and the median of more blocks holds it down
MORE_ROUNDS, ROUNDS_S = 4, 1.0


class Baselines:
    """sandbox.run_worker's on_timing: answers each timing frame, timing the baselines'
    turns and the candidate's blocks."""

    def __init__(self, task: Task, prepared: Prepared, prof, device: str = "cuda",
                 max_sets: int = memplan.MAX_BLOCK_SETS, process: BaselineProcess | None = None,
                 checks=None):
        """`process`: the baselines' own process, started with the candidate's worker
        (verify/timing/baseline_process.py), which times them the way the candidate is timed;
        None: they are timed here, in the trusted process. `checks`: the checked calls'
        reader (collect.CaseReader): a candidate with an output already found wrong is not
        timed (its verdict is `incorrect` whatever the clock says; a GPU's seconds saved)."""
        self.task, self.prepared, self.prof, self.device = task, prepared, prof, device
        self.process, self.checks = process, checks
        self.max_sets = max_sets  # the memory plan's (memplan.block_sets)
        names = [CANDIDATE, "eager"] + [compile_name(m) for m in prof.compile_modes]
        self.rng, self.names = random.SystemRandom(), names
        self.turns: list[tuple[int, str]] = []
        for _ in range(prof.blocks):
            self._add_round()
        self.rounds_began: float | None = None
        self.next_turn, self.state = 0, "start"
        self.times: dict[str, list[float]] = {name: [] for name in names}
        self.inprocess: list[float] = []  # the worker's own time per call of each block
        self.phases: list[dict] = []  # per block: where its time on this clock went
        self.probes: list = []
        self.own_launches: list[int] = []  # per timed call, the candidate's Triton launches
        self.aliased = 0  # timed calls whose output lay in an input's memory
        self.guarded: list[dict] = []  # per block, what the watched call did (child/timing.py)
        self.block_seeds: list[list[int]] = []  # per candidate block, the seed of each call
        self.sets = max(1, sum(c.variant == "timing" for c in prepared.cases))
        self.clocks: list[dict] = []
        self.notes: list[str] = []  # baselines left out, and why
        self.too_large = ""  # the baselines' memory did not fit: the verifier's limit
        self.impls: dict = {}
        self.round_seeds: dict[int, list[int]] = {}
        self.pending: dict | None = None  # the candidate block whose outputs are due
        self.slots = None  # on a GPU: the worker's timing buffers, mapped
        self.others = others_bytes() if device == "cuda" else None

    def __call__(self, head: dict, payload: bytes, elapsed: float | None = None):
        try:
            return self._answer(head, payload, elapsed)
        except torch.OutOfMemoryError:
            self._blame_if_held()
            raise  # the plan's estimate fell short: the verifier's limit (too_large)

    def _answer(self, head: dict, payload: bytes, elapsed):
        """The reply to a timing frame (None: nothing is written). The worker says `idle`
        once it waits for GO, its work after a block done: GO, and the clock, start only
        then, so what the worker does between blocks is never on the clock."""
        kind = head.get("kind")
        if kind == "ready" and self.state == "start":
            if getattr(self.checks, "wrong", 0) or not self._set_up():
                return self._close()
            self.state = "sets"
            return go_line(self._sets_record())
        if kind == "slots" and self.state == "sets":
            self._map_slots(payload)
            self.state = "between"
            return None
        if kind == "idle" and self.state == "between":
            return self._advance()
        if kind == "block" and self.state == "block":
            self._take_time(elapsed)
            self._take_diagnostics(head)
            self._take_phases(head.get("phases"), elapsed)
            self._take_outputs(head, payload)
            self.state = "between"
            self._turn_done()
            return None
        raise Malformed(f"a timing frame {str(kind)[:40]!r} that was not asked for")

    # -- set-up -----------------------------------------------------------------------

    def _set_up(self) -> bool:
        name = self.prepared.timed_shape
        self.shape = Shape(name, self.prepared.shapes[name]["values"])
        if self.process is not None:
            try:
                return self._set_up_process()
            except BaselineFailed as e:
                if self._process_failed(e):
                    return False
                # no block was timed: start over here, every baseline warmed up afresh
                self.impls, self.times = {}, {name: [] for name in self.names}
        try:
            pool = self._pool()
            self.sample = pool[0][1]
            eager = self.prepared.models[name]
            with torch.no_grad(), tf32_policy(self.task):
                for impl, make in self._makers(eager).items():
                    self._warm(impl, make, pool)
                self.n = self._set_count(eager, per_call_seconds(eager, pool))
            del pool
        except torch.OutOfMemoryError as e:
            self._blame_if_held()
            self.too_large = f"the baselines' timing sets did not fit in GPU memory ({e})"[:300]
            return False
        return "eager" in self.impls

    def _set_up_process(self) -> bool:
        """The baselines' process warmed them up meanwhile: its implementations, its notes,
        the block's length from its eager pace; then the sets' buffers in both processes."""
        ready = self.process.wait_ready()
        self.startup = self.process.startup
        self.notes += [str(n)[:300] for n in ready.get("notes", [])][:4]
        for name in list(self.times):
            if name != CANDIDATE and name not in ready["impls"]:
                self.times.pop(name)
        self.impls = {name: None for name in ready["impls"] if name in self.times}
        self.sample = case_inputs(self.task, self.shape, self.device,
                                  self._timing_seed(), "timing")
        eager = self.prepared.models[self.shape.name]
        with torch.no_grad(), tf32_policy(self.task):
            self.n = self._set_count(eager, ready["per_call_s"])
        slots = self.process.sets(self._sets_record())
        if self.device == "cuda":
            self.process_slots = ipc.Mapped().__enter__()
            try:
                self.process_views = self._slot_views(self.process_slots, slots)
            except ValueError as e:
                raise BaselineFailed(f"the baselines' timing buffers cannot be used ({e})") \
                    from e
        return True

    def _process_failed(self, e: BaselineFailed) -> bool:
        """The baselines' process failed: too_large where it ran out of memory (True: no
        timing), else timed here from now on, with a note (False)."""
        self._stop_process()
        if e.oom:
            self._blame_if_held()
            self.too_large = f"the baselines' timing sets did not fit in GPU memory ({e})"[:300]
            return True
        self.notes.append(f"{str(e)[:300]}; eager and torch.compile were timed in the "
                          "trusted process instead (their times lack a block's round trip)")
        return False

    def release(self) -> None:
        """The baselines' process ended, whatever happened to the timing (idempotent); kept
        where the profile keeps it and its timing never began (a candidate that failed
        before it: END in place of its sets)."""
        self._stop_process(park=self.state == "start")

    def end_process(self) -> None:
        """The baselines' process ended now, its memory given back (an out-of-memory of the
        trusted side's while the candidate is checked: its memory is not the candidate's)."""
        self._stop_process()

    def _stop_process(self, park: bool = False) -> None:
        """The baselines' process ended, or kept for the task's next verification (`park`:
        its timing ran to its end or never began; baseline_process.KEPT)."""
        if self.process is not None:
            process, self.process = self.process, None
            self.process_views = None
            if self.process_slots is not None:  # unmapped before it frees them
                self.process_slots.__exit__(None, None, None)
                self.process_slots = None
            process.park() if park and process.keep else process.close()

    def _timing_seed(self) -> int:
        return next(c.seed for c in self.prepared.cases if c.variant == "timing")

    def _pool(self) -> list:
        """The timing cases' inputs, made here: what the baselines warm up on."""
        return [(c.seed, case_inputs(self.task, self.shape, self.device, c.seed, c.variant))
                for c in self.prepared.cases if c.variant == "timing"]

    def _makers(self, eager) -> dict:
        return {"eager": lambda: eager} | {compile_name(m): functools.partial(
            torch.compile, eager, mode=None if m == "default" else m)
            for m in self.prof.compile_modes}

    def _set_count(self, eager, per_call: float) -> int:
        """Sets per block: enough calls for the block to last BLOCK_SECONDS at eager's pace
        (`per_call` seconds), as many as the memory plan gave a block (the worker keeps every
        set and every output of a block, and so does the baselines' side), at least one."""
        self.per_call = per_call
        wanted = math.ceil(BLOCK_SECONDS / max(per_call, 1e-7))
        if self.device == "cuda":
            room = self.max_sets
        else:
            bytes_per_set = 2 * (_bytes(self.sample) + _bytes(eager(*self.sample))) + 1
            room = min(CPU_SET_BYTES // bytes_per_set, CPU_MAX_SETS)
        return max(1, min(wanted, room))

    def _sets_record(self) -> dict:
        record = wire.parse_input_header(wire.input_header(-1, self.shape.name, self.sample)
                                         .decode())
        return record | {"kind": "sets", "n": self.n}

    def _map_slots(self, payload: bytes) -> None:
        if self.device != "cuda":
            return
        self.slots = ipc.Mapped().__enter__()
        try:
            self.slot_views = self._slot_views(self.slots, payload)
        except ValueError as e:
            raise Malformed(f"the candidate's timing buffers cannot be used ({e})") from e

    def _slot_views(self, mapped, payload: bytes) -> list:
        """Views of a process's timing buffers (its `slots` frame), mapped in `mapped`."""
        entries = untrusted_json(payload)
        if not isinstance(entries, list) or len(entries) != self.n:
            raise ValueError("not one list of buffers per set")
        tensors = [x for x in self.sample if isinstance(x, torch.Tensor)]
        return [self._views(mapped, e, tensors) for e in entries]

    @staticmethod
    def _views(mapped, entries, tensors: list) -> list:
        if not isinstance(entries, list) or len(entries) != len(tensors):
            raise ValueError("not one buffer per tensor input")
        return [mapped.view(e, tuple(t.shape), t.dtype)
                for e, t in zip(entries, tensors, strict=True)]

    def _blame_if_held(self) -> None:
        """A candidate whose process held memory the baselines needed gets `crashed`, not a
        too_large nobody is blamed for (E48). The baselines' process goes first: its memory
        is not the candidate's."""
        self._stop_process()
        if self.others is not None:
            settle_freed()
            blame_if_held(self.task, self.prepared, self.others,
                          getattr(self, "n", self.max_sets))  # the sets a block holds

    def _warm(self, name: str, make, pool) -> None:
        """Build and warm one baseline up (torch.compile compiles here), or leave it out."""
        try:
            fn = make()
            warm_up(fn, pool, self.prof.warmup_s)
            self.impls[name] = fn
        except torch.OutOfMemoryError:
            raise
        except Exception as e:  # the task's reference under torch.compile: not the candidate's
            self.notes.append(f"{name} of the reference raised {type(e).__name__}: "
                              f"{str(e)[:200]}; it is not a baseline of this verdict")
            self.times.pop(name, None)

    # -- the schedule -----------------------------------------------------------------

    def _advance(self):
        """Time the baselines' turns up to the candidate's next; GO for that one (its sets
        written first), END when every block is done."""
        if self.rounds_began is None:
            self.rounds_began = time.perf_counter()
        with torch.no_grad(), tf32_policy(self.task):
            while self.next_turn < len(self.turns) or self._more_rounds():
                block, name = self.turns[self.next_turn]
                if name == CANDIDATE:
                    return self._go(block)
                if name in self.impls:
                    self._time_block(name, block)
                if self.too_large:
                    return self._close()
                self._turn_done()
        return self._close()

    def _add_round(self) -> None:
        block = self.turns[-1][0] + 1 if self.turns else 0
        self.turns += [(block, name) for name in self.rng.sample(self.names, len(self.names))]

    def _more_rounds(self) -> bool:
        """One more round where a block falls short of BLOCK_SECONDS on a GPU, up to
        MORE_ROUNDS times the profile's count, while the rounds so far took under ROUNDS_S."""
        if self.device != "cuda" or self.n * self.per_call >= BLOCK_SECONDS or \
                len(self.turns) >= MORE_ROUNDS * self.prof.blocks * len(self.names) or \
                time.perf_counter() - self.rounds_began > ROUNDS_S:
            return False
        self._add_round()
        return True

    def _seeds(self, block: int) -> list[int]:
        if block not in self.round_seeds:
            self.round_seeds[block] = [self.rng.getrandbits(31) for _ in range(self.n)]
        return self.round_seeds[block]

    def _fresh_set(self, seed: int) -> list:
        return case_inputs(self.task, self.shape, self.device, seed, "timing")

    def _go(self, block: int):
        seeds = self._seeds(block)
        order = self.rng.sample(range(self.n), self.n)
        record = {"order": order, "watch": self.rng.randrange(self.n)}
        self.pending = {"order": order, "seeds": [seeds[i] for i in order]}
        self.state = "block"
        return [go_line(record), *self._hand_over(seeds, self.slot_views)]

    def _hand_over(self, seeds: list[int], views) -> list[bytes]:
        """A block's fresh sets: written into a process's buffers on a GPU (nothing else to
        send), or the bytes that follow its GO on the CPU."""
        if self.device == "cuda":
            for set_views, seed in zip(views, seeds, strict=True):
                fresh = [x for x in self._fresh_set(seed) if isinstance(x, torch.Tensor)]
                for view, x in zip(set_views, fresh, strict=True):
                    view.copy_(x)
            torch.cuda.synchronize()
            return []
        return [c for seed in seeds for c in wire.input_payload(self._fresh_set(seed))]

    def _time_block(self, name: str, block: int) -> None:
        if self.process is not None:
            try:
                return self._time_in_process(name, block)
            except BaselineFailed as e:
                if self._process_failed(e):
                    return  # too_large: _advance ends the timing
                self._time_here_from_now()
        sets = [self._fresh_set(seed) for seed in self._seeds(block)]
        order = self.rng.sample(range(self.n), self.n)
        fn, outs = self.impls[name], []
        synchronize(sets[0])
        start = time.perf_counter()
        for i in order:
            outs.append(fn(*sets[i]))
        synchronize(sets[0])
        self.times[name].append((time.perf_counter() - start) * 1e6 / self.n)
        del outs, sets

    def _time_in_process(self, name: str, block: int) -> None:
        """A baseline's block in the baselines' process: its fresh sets handed over as the
        candidate's are, GO naming the implementation, the same clock."""
        order = self.rng.sample(range(self.n), self.n)
        chunks = self._hand_over(self._seeds(block), self.process_views)
        record = {"order": order, "watch": -1, "impl": name}
        self.times[name].append(self.process.block(record, chunks) * 1e6 / self.n)

    def _time_here_from_now(self) -> None:
        """After the baselines' process failed mid-way: every baseline warmed up here and
        its earlier times dropped, so no ratio mixes the two clocks' ways."""
        pool, names, self.impls = self._pool(), list(self.impls), {}
        makers = self._makers(self.prepared.models[self.shape.name])
        for name in names:
            self.times[name] = []
            self._warm(name, makers[name], pool)

    def _take_time(self, elapsed: float | None) -> None:
        if elapsed is None:
            raise Malformed("a timing block that came before its GO")
        self.times[CANDIDATE].append(elapsed * 1e6 / self.n)

    def _take_diagnostics(self, head: dict) -> None:
        problem = _block_problem(head, self.n)
        if problem:
            raise Malformed(f"a timing block {problem}")
        self.inprocess.append(head["inprocess_us"] / self.n)
        self.own_launches += head["own_launches"]
        self.aliased += head["aliased"]
        self.guarded.append(head["guarded"])

    def _take_phases(self, phases, elapsed: float) -> None:
        """The worker's account of a block's time on this clock (a diagnostic, kept only
        when well-formed): its calls to the synchronize (`run_us`; of it, making the start
        event and launching the calls), its work after it up to the frame, and the rest (the
        GO's and the frame's transit through the pipes)."""
        if not isinstance(phases, dict) or not all(
                isinstance(phases.get(k), float) and 0 <= phases[k] < 1e12 for k in PHASES):
            return
        kept = {k: phases[k] for k in PHASES}
        self.phases.append(kept | {"transit_us": elapsed * 1e6 - kept["run_us"] -
                                   kept["post_us"]})

    def _take_outputs(self, head: dict, payload: bytes) -> None:
        """The values of a secret choice of the block's calls, read here from the worker's
        outputs (and on a GPU its input buffers read back), kept as probes: checked against
        the reference of the same seeds once the timing is over (timing._check_probes)."""
        pending, self.pending = self.pending, None
        block_id = len(self.block_seeds)
        self.block_seeds.append(pending["seeds"])
        chosen = sorted(self.rng.sample(range(self.n), min(PROBED_CALLS, self.n)))
        timing_cases = [c for c in self.prepared.cases if c.variant == "timing"]
        reader = None
        try:
            reader = _OutputReader(head, payload, self.n, self.device)
            for call in chosen:
                case = timing_cases[call % self.sets]
                probe = reader.probe(call, case)
                self.probes.append(probe | {"block": block_id, "call": call,
                                            "case": call % self.sets})
                if self.slot_views is not None and not self._inputs_intact(pending, call):
                    self.guarded.append({"forbidden_ops": [], "threads_started": 0,
                                         "inputs_modified": True})
        except ValueError as e:
            raise Malformed(f"the block's outputs are unreadable ({e})") from e
        finally:
            if reader is not None:
                reader.close()

    def _inputs_intact(self, pending: dict, call: int) -> bool:
        views = self.slot_views[pending["order"][call]]
        fresh = [x for x in self._fresh_set(pending["seeds"][call])
                 if isinstance(x, torch.Tensor)]
        return all(torch.equal(ipc.raw_bytes(v), ipc.raw_bytes(x))
                   for v, x in zip(views, fresh, strict=True))

    def _turn_done(self) -> None:
        block = self.turns[self.next_turn][0]
        self.next_turn += 1
        if self.next_turn == len(self.turns) or self.turns[self.next_turn][0] != block:
            self.clocks.append(clock_and_temperature())
            self.round_seeds.pop(block, None)

    def _close(self) -> bytes:
        self.impls = {}
        self._stop_process(park=not self.too_large and (
            self.state == "start" or self.next_turn == len(self.turns)))
        if self.slots is not None:
            self.slot_views = None
            self.slots.__exit__(None, None, None)
            self.slots = None
        if self.device == "cuda":
            torch.cuda.empty_cache()  # the timing sets' memory back before the next job
        return END

    slot_views = process_views = process_slots = None
    startup: dict | None = None  # the baselines' process's start-up (baseline_process._startup)

    def timing(self, raised: int | None) -> dict | None:
        """The timing entry the verdict is made from (timing.timing_verdict checks it): every
        implementation's times on this clock, the probes read here, and the worker's own
        diagnostics (`raised`: the persisting-L2 raises it reported, None: it did not).
        None when no timing was done."""
        if self.state == "start" or self.too_large:
            return None
        times = {n: t for n, t in self.times.items() if t}
        return {"times_us": times, "probes": self.probes, "clocks": self.clocks,
                "own_launches": self.own_launches, "guarded": self.guarded,
                "aliased": self.aliased, "inprocess_us": self.inprocess,
                "phases": self.phases,
                "block_seeds": self.block_seeds, "calls_per_block": getattr(self, "n", 0),
                "gpu": torch.cuda.get_device_name() if self.device == "cuda" else "cpu",
                "persisting_l2_raised": raised, "shape": self.prepared.timed_shape,
                "baselines_startup_s": self.startup,
                "complete": self.next_turn == len(self.turns)}


class _OutputReader:
    """A block's outputs as the worker described them (IPC handles on a GPU, descriptors
    and raw bytes on the CPU), read only where a probe looks."""

    def __init__(self, head: dict, payload: bytes, calls: int, device: str):
        self.device, self.mapped = device, None
        if device == "cuda":
            self.entries = untrusted_json(payload)
            if not isinstance(self.entries, list) or len(self.entries) != calls:
                raise ValueError("not one list of outputs per call")
            self.mapped = ipc.Mapped().__enter__()
        else:
            self._split_cpu(head.get("outputs"), payload, calls)

    def _split_cpu(self, descs, payload: bytes, calls: int) -> None:
        if not isinstance(descs, list) or len(descs) != calls or \
                not all(isinstance(d, list) for d in descs):
            raise ValueError("not one list of outputs per call")
        self.calls, offset = [], 0
        for call in descs:
            size = sum(wire.nbytes(d) for d in call if isinstance(d, dict))
            if len(call) > wire.MAX_ARGS or not all(isinstance(d, dict) for d in call):
                raise ValueError("an output descriptor is not an object")
            self.calls.append((call, offset))
            offset += size
        if offset != len(payload):
            raise ValueError(f"the descriptors claim {offset} bytes, {len(payload)} came")
        self.payload = payload

    def probe(self, call: int, case) -> dict:
        """The call's output shapes as claimed and, for each output of the reference's shape
        and dtype, its values at the case's probe positions."""
        claimed = self._claimed(call)
        values = []
        for k, (desc, positions) in enumerate(zip(claimed, case.probes, strict=False)):
            ref = case.ref[k]
            if desc["shape"] != case.out_shapes[k] or wire.dtype_of(desc["dtype"]) != ref.dtype:
                break
            flat = self._tensor(call, k, desc).reshape(-1)
            idx = torch.tensor(positions, device=flat.device, dtype=torch.long) % \
                max(1, flat.numel())
            values.append(flat[idx].double().cpu().tolist())
        return {"values": values, "shapes": [d["shape"] for d in claimed]}

    def _claimed(self, call: int) -> list[dict]:
        descs = self.entries[call] if self.device == "cuda" else self.calls[call][0]
        if not isinstance(descs, list) or not all(
                isinstance(d, dict) and wire.valid_shape(d.get("shape")) and
                wire.dtype_of(d.get("dtype")) is not None for d in descs):
            raise ValueError("an output without a valid shape and dtype")
        return descs

    def _tensor(self, call: int, k: int, desc: dict) -> torch.Tensor:
        dtype = wire.dtype_of(desc["dtype"])
        if self.device == "cuda":
            return self.mapped.view(desc, tuple(desc["shape"]), dtype)
        descs, offset = self.calls[call]
        offset += sum(wire.nbytes(d) for d in descs[:k])
        return wire.from_bytes(self.payload, desc, offset)

    def close(self) -> None:
        if self.mapped is not None:
            self.mapped.__exit__(None, None, None)


PHASES = ("run_us", "post_us", "clock_us", "launch_us")  # the worker's block account


def _block_problem(block: dict, calls: int) -> str:
    """What is wrong with a block's diagnostics, '' when sound: a launch count per call, the
    watched call's record, the worker's own time of the block."""
    launches = block.get("own_launches")
    if not isinstance(launches, list) or len(launches) != calls or \
            not all(type(n) is int for n in launches):
        return "without a launch count for every call"
    guarded = block.get("guarded")
    if not isinstance(guarded, dict) or not isinstance(guarded.get("forbidden_ops"), list) or \
            type(guarded.get("threads_started")) is not int:
        return "without the record of its watched call"
    if type(block.get("aliased")) is not int or not 0 <= block["aliased"] <= calls:
        return "without its count of outputs in an input's memory"
    us = block.get("inprocess_us")
    if not isinstance(us, int | float) or isinstance(us, bool) or not 0 <= us < 1e12:
        return "without the worker's own time of it"
    return ""


def _bytes(values) -> int:
    from torch.utils._pytree import tree_leaves

    return sum(t.numel() * t.element_size() for t in tree_leaves(values)
               if isinstance(t, torch.Tensor))
