"""The tuner's ranking worker (search/tuner.py starts it; it runs every variant's code): it
loads the task at the job's shape and every variant, compiles them (first calls on a thread
pool, optionally in precompile helper processes of its own that fill Triton's on-disk cache),
drops variants whose output disagrees with the start's, times the rest round-robin, and sends
the samples back as one framed message (protocol.py). Its numbers only order the variants;
the trusted side keeps nothing from it but that order.

Here rather than in search/: it runs beside candidate code, so it must not import the tuner
(nor anything else of the trusted side); the tuner knows it only by its module name.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ...types import Task
from ..protocol import signal_name, write_frame


def worker_main(job_dir: str, fd: int) -> None:
    report: dict = {"error": None, "variants": [], "phases": {}}
    try:
        job = json.loads((Path(job_dir) / "job.json").read_text())
        _rank_all(job, report)
    except BaseException as e:  # reported as data; the trusted side decides what it means
        report["error"] = f"{type(e).__name__}: {e}"[:2000] + "\n" + \
            "\n".join(traceback.format_exc().strip().splitlines()[-12:])
    write_frame(fd, report)  # no payload: the report is the whole message
    os.close(fd)
    os._exit(0)  # no candidate finaliser or exit hook runs after the report


@dataclass
class _Entry:
    path: str
    model: object = None
    times_us: list[float] = field(default_factory=list)
    agrees: bool = False
    compile_s: float = 0.0
    error: str = ""

    def as_dict(self) -> dict:
        return {"times_us": self.times_us, "agrees": self.agrees,
                "compile_s": self.compile_s, "error": self.error}


def _rank_all(job: dict, report: dict) -> None:
    clock = time.perf_counter()
    task, inputs, spec = _setup(job, "cuda")
    entries = [_Entry(path) for path in job["variants"]]
    try:
        for i, entry in enumerate(entries):
            _load(entry, i, spec)
        report["phases"]["setup_s"] = time.perf_counter() - clock
        with _no_grad_tf32(task):
            clock = time.perf_counter()
            _compile_all(entries, inputs, job, report["phases"])
            report["phases"]["compile_s"] = time.perf_counter() - clock
            clock = time.perf_counter()
            _time_all([e for e in entries if not e.error and e.agrees], inputs, job)
            report["phases"]["time_s"] = time.perf_counter() - clock
    finally:  # what was measured before a failure still ranks
        report["variants"] = [e.as_dict() for e in entries]


def _setup(job: dict, device: str) -> tuple:
    """(task, the inputs at the job's shape, what builds each variant's model)."""
    from ...tasks.loader import build, load_task
    from ..checks.inputs import case_inputs
    from .models import spec_of

    task = load_task(job["task"])
    inst = build(task, job["shape"], device=device, seed=job["seed"])
    # variants run in the task's MODE, as the verifier runs them
    spec = spec_of(inst.model, inst.init_inputs, inst.mode)
    del inst
    return task, case_inputs(task, job["shape"], device, job["seed"], "base"), spec


@contextlib.contextmanager
def _no_grad_tf32(task: Task):
    import torch

    from ...tasks.loader import tf32_policy

    with torch.no_grad(), tf32_policy(task):
        yield


def _load(entry: _Entry, index: int, spec: dict, device: str = "cuda") -> None:
    import importlib.util

    import torch

    from .models import make_model

    try:
        name = f"warpsmith_variant_{index}"
        module_spec = importlib.util.spec_from_file_location(name, entry.path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module  # triton and dataclasses look modules up by name
        module_spec.loader.exec_module(module)
        entry.model = make_model(module, spec, torch.device(device))
    except Exception as e:
        entry.error = f"load: {type(e).__name__}: {e}"[:500]


def _compile_all(entries: list[_Entry], inputs: list, job: dict, phases: dict) -> None:
    """The start first (its output is what the others must agree with), then every other
    variant's first call on a thread pool: compilation is most of it, so what is not started
    after parallel_after_s goes to helper processes (when job["processes"] > 1), which
    compile it first. Fresh memory is NaN-filled meanwhile, so a variant whose grid stops
    covering its output disagrees. A variant not started within the compile budget drops
    out."""
    import torch
    from torch.utils._pytree import tree_leaves

    deadline = time.perf_counter() + job.get("compile_budget_s", 180.0)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        out = _first_call(entries[0], inputs)
        if out is None:
            return
        ref = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
        entries[0].agrees = True
        rest = [i for i, e in enumerate(entries) if i and not e.error]

        def one(entry: _Entry, cached: bool = False) -> None:
            if entry.error:
                return
            if time.perf_counter() > deadline and not cached:  # cached: a load, not a compile
                entry.error = "not compiled within the compile budget"
                return
            with torch.no_grad():  # grad mode is per thread
                got = _first_call(entry, inputs)
                entry.agrees = got is not None and _agree(got, ref)

        if not rest:
            return
        # Compile times differ tenfold between variants (a 64-wide tile against a 256-wide one
        # with four stages), so no sample predicts the rest: the threads compile until
        # parallel_after_s has passed, and helper processes take what is left then.
        switch_at = time.perf_counter() + job.get("parallel_after_s", 15.0)
        pending: list[int] = []

        def first_pass(i: int) -> None:
            if job.get("processes", 1) > 1 and time.perf_counter() > switch_at:
                pending.append(i)  # list.append is atomic: safe from the pool's threads
            else:
                one(entries[i])

        with ThreadPoolExecutor(max_workers=max(1, job["threads"])) as pool:
            list(pool.map(first_pass, rest))
            pending.sort()
            cached: set[int] = set()
            if pending and time.perf_counter() < deadline:
                clock = time.perf_counter()
                errors, cached = precompile(job, pending, deadline)
                for i, error in errors.items():
                    entries[i].error = entries[i].error or error
                phases["precompile_s"] = time.perf_counter() - clock
            list(pool.map(lambda i: one(entries[i], i in cached), pending))
    finally:
        torch.use_deterministic_algorithms(False)
        torch.utils.deterministic.fill_uninitialized_memory = False


HELPER = "import sys; from warpsmith.verify.child.rank import helper_main; " \
         "helper_main(sys.argv[1], sys.argv[2], sys.argv[3])"


RUNNING = "running"  # a helper's mark on the variant it is compiling


def precompile(job: dict, indices: list[int], deadline: float) -> tuple[dict[int, str],
                                                                        set[int]]:
    """Compile variants `indices` in job["processes"] helper processes (a share each), each
    making its variants' first calls; their compiled kernels land in Triton's on-disk cache.
    Returns ({index: error} for the variants that failed in a helper, which drop out; the
    indices compiled, which load from the cache and need no budget). Helpers run in the
    ranking worker's sandbox (its process group); one still running at the deadline is
    killed, and what it had not finished is left to the worker."""
    count = max(1, min(job["processes"], len(indices)))
    shares = [indices[k::count] for k in range(count)]
    outs = [Path.cwd() / f"precompiled-{k}.json" for k in range(count)]
    helpers = [subprocess.Popen(
        [sys.executable, "-c", HELPER, job["job_dir"], ",".join(map(str, share)), str(out)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for share, out in zip(shares, outs, strict=True)]
    killed = set()
    for k, helper in enumerate(helpers):
        try:
            helper.wait(timeout=max(0.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait()
            killed.add(k)
    errors, done = {}, set()
    for k, out in enumerate(outs):
        for i, state in _read_marks(out).items():
            if state == RUNNING:  # died on it (a compiler crash) unless killed at the deadline
                if k not in killed:
                    errors[i] = "crashed a precompile helper " \
                                f"({signal_name(helpers[k].returncode)})"
            elif state:
                errors[i] = state
            else:
                done.add(i)
    return errors, done


def _read_marks(path: Path) -> dict[int, str]:
    try:
        return {int(i): str(v) for i, v in json.loads(path.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}  # a helper that died before its first mark: the worker compiles its share


def helper_main(job_dir: str, indices: str, out: str) -> None:
    """A precompile helper: the job's inputs, then each named variant's first call, marking
    each as running, then done ("") or failed (its error), in `out` after every step. It
    stops at an error that leaves the GPU unusable (out of memory, a broken CUDA context);
    what it did not reach the worker compiles itself."""
    job = json.loads((Path(job_dir) / "job.json").read_text())
    device = job.get("device", "cuda")
    marks: dict[int, str] = {}
    task, inputs, spec = _setup(job, device)
    with _no_grad_tf32(task):
        for i in (int(x) for x in indices.split(",") if x):
            _mark(out, marks, i, RUNNING)
            entry = _Entry(job["variants"][i])
            _load(entry, i, spec, device)
            _first_call(entry, inputs)
            if "out of memory" in entry.error.lower():
                del marks[i]  # not this variant's fault: the worker tries it
                _write_marks(out, marks)
                break
            _mark(out, marks, i, entry.error)
            if entry.error and not _context_ok(device):
                break  # this variant broke the context: it drops out, the rest go back
    os._exit(0)  # no candidate finaliser or exit hook runs


def _mark(out: str, marks: dict[int, str], index: int, state: str) -> None:
    marks[index] = state
    _write_marks(out, marks)


def _write_marks(out: str, marks: dict[int, str]) -> None:
    tmp = f"{out}.tmp"
    Path(tmp).write_text(json.dumps(marks))
    os.replace(tmp, out)  # the worker never reads half a file


def _context_ok(device: str) -> bool:
    """False once a CUDA error has left this process's context unusable."""
    if device != "cuda":
        return True
    import torch

    try:
        torch.cuda.synchronize()
        return True
    except Exception:
        return False


def _first_call(entry: _Entry, inputs: list):
    """The variant's output, or None with entry.error set."""
    import torch

    if entry.error:
        return None
    clock = time.perf_counter()
    try:
        out = entry.model(*inputs)
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
    except Exception as e:  # an illegal config (too many registers, shared memory): data
        entry.error = f"first call: {type(e).__name__}: {e}"[:500]
        return None
    finally:
        entry.compile_s = time.perf_counter() - clock
    return out


# Loose on purpose: this only drops a variant that left its output unwritten or computes
# something else. Different block sizes sum in different orders; the verifier judges the rest.
AGREE_RTOL = {"torch.float32": 1e-3, "torch.float16": 2e-2, "torch.bfloat16": 5e-2}


def _agree(out, ref: list) -> bool:
    import torch
    from torch.utils._pytree import tree_leaves

    got = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
    if len(got) != len(ref):
        return False
    return all(_close(a, b) for a, b in zip(got, ref, strict=True))


def _close(a, b, chunk: int = 1 << 26) -> bool:
    """Chunked, so comparing multi-GB outputs in several threads at once stays in memory."""
    import torch

    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not b.is_floating_point():
        return bool(torch.equal(a, b))
    a, b = a.reshape(-1), b.reshape(-1)
    worst, squares, count = 0.0, 0.0, 0
    for i in range(0, b.numel(), chunk):
        x, y = a[i:i + chunk].float(), b[i:i + chunk].float()
        finite = torch.isfinite(y)
        if not torch.equal(finite, torch.isfinite(x)):
            return False  # NaN where the start wrote a number: output left unwritten
        diff = (x - y).abs()[finite]
        worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
        squares += float(y[finite].double().pow(2).sum())
        count += int(finite.sum())
    rms = (squares / count) ** 0.5 if count else 0.0
    return worst <= AGREE_RTOL.get(str(b.dtype), 1e-3) * rms + 1e-30


def _time_all(entries: list[_Entry], inputs: list, job: dict) -> None:
    """Warm-up, then rounds over all variants in a shuffled order, each call timed alone
    (L2 flushed, CUDA events, device-wide sync) as the verifier times candidates."""
    import torch

    from ..timing.stopwatch import L2_FLUSH_BYTES, timed_call

    for entry in entries:
        _guarded(entry, lambda e=entry: [e.model(*inputs) for _ in range(job["warmup"])])
    torch.cuda.synchronize()
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    clock = time.perf_counter()
    for round_ in range(job["rounds"]):
        order = [e for e in entries if not e.error]
        random.Random(job["seed"] + round_).shuffle(order)
        for entry in order:
            for _ in range(job["calls"]):
                _guarded(entry, lambda e=entry: e.times_us.append(
                    timed_call(e.model, inputs, flush)[0]))
        if time.perf_counter() - clock > job["time_budget_s"]:
            break  # a slow set of variants: what was measured so far ranks them


def _guarded(entry: _Entry, fn) -> None:
    if entry.error:
        return
    try:
        fn()
    except Exception as e:
        entry.error = f"timing: {type(e).__name__}: {e}"[:500]
