"""The candidate's process: `python -m warpsmith.verify.child.worker JOB_DIR RESULT_FD`.

It reads its job from stdin (the job folder holds only the candidate's and the task's code,
read-only: nothing in it to read or to fill), imports the candidate and builds its models.
Then it asks the trusted side for each checked call's inputs in turn and gets them only then
(the bytes on stdin, or on a GPU written by the trusted side into buffers this process
allocated): no seed and no later call's input is ever here. Each call's raw outputs go to the
trusted side through an inherited pipe (a case frame, protocol.py) and are freed once it has
them, then a report ends the messages; it leaves with os._exit so no finaliser or exit hook of
the candidate's runs afterwards. What this process says is a diagnostic: the candidate may
own it. The facts (inputs, outputs, time) are the trusted side's.
It never sees the expected outputs and never decides a verdict; the trusted process does both.
"""

from __future__ import annotations

import _thread
import contextlib
import importlib.util
import io
import json
import os
import select
import sys
import threading
import time
import traceback
from dataclasses import asdict
from pathlib import Path

import torch
from torch.utils._pytree import tree_leaves

from ...lang.triton_compat import (
    emulate_interpreter_libdevice,
    emulate_interpreter_tf32,
    fix_interpreter_bf16,
    hide_interpreter_values,
    interpret_programs_in_any_order,
    refuse_host_functions_in_launches,
    refuse_run_time_constexprs,
)
from ...tasks.loader import load_task, tf32_policy
from .. import protocol, wire
from ..protocol import WAIT
from . import autotune, bounds, codewatch, integrity
from .dispatch import OpGuard
from .gpukernels import GpuKernels
from .ipc import export as _export
from .launches import LaunchLog
from .models import make_model as _make_model
from .models import own_sizes, set_sizes

# Bound before the candidate is imported: a candidate that rebinds json.dumps, torch.save or
# torch.equal does not change what the worker calls (protocol.py binds its own likewise).
_dumps, _equal, _write_frame = json.dumps, torch.equal, protocol.write_frame
_poll = select.select
_OOMS = integrity.OomWatch()  # what the allocator itself failed: too_large needs it (E48)
_LOGS: list[LaunchLog] = []  # the run's launch log, read again if the run raises


def main(job_dir: str, fd: int) -> None:
    report = {"stage": "setup", "error": None, "kernels": [], "threads_started": [],
              "forbidden_ops": [], "inputs_modified": [], "aliased": [], "bad_outputs": [],
              "poison_off": [], "gpu_kernels": [], "tampered": [],
              "stage_seconds": {}, "launched": 0}
    job: dict = {}
    if job_dir.startswith(f"{WAIT}:"):  # started ahead of its job (sandbox.start_waiting)
        job_dir = _warm_then_wait(job_dir.split(":", 1)[1])
    try:
        job = _read_job(Path(job_dir))
        run(job, report, fd)
        report["stage"] = "done"
    except BaseException as e:  # the candidate's failure is data for the verdict
        report["error"] = {"type": type(e).__name__, "message": str(e)[:2000],
                           "traceback": _trim(traceback.format_exc())}
        if (request := _OOMS.evidence(e)) is not None:
            report["oom_request_bytes"] = request
        report["launched"] += sum(_own_launches(log) for log in _LOGS)
    if job.get("device") == "cuda":
        with contextlib.suppress(Exception):  # a broken context: the report still goes
            report["peak_bytes"] = torch.cuda.max_memory_allocated()
    _write_frame(fd, report)  # the last frame: the report, no payload
    os.close(fd)  # the trusted side sees the messages end here
    os._exit(0)


def _warm_then_wait(device: str) -> str:
    """Pay what every candidate pays before its first line runs (triton's import, the CUDA
    context, the first profiler session: seconds each) while nothing is timed, then block
    until the trusted side sends the job folder. No kernel is launched here."""
    import triton.language  # noqa: F401

    if device == "cuda":
        torch.cuda.init()
        torch.empty(1, device="cuda")  # the context (an allocation, no kernel)
        with GpuKernels():
            pass
    _warm_guard(device)
    line = stdin_line()
    if line is None:  # the trusted side went away before sending a job
        os._exit(0)
    return line


_pending = bytearray()  # what was read from stdin past the last line taken


def stdin_line() -> str | None:
    """One line from the trusted side (a job folder, the job, its secrets, ACKs), or None at
    end of input. Reads past the newline are kept for the next read."""
    while b"\n" not in _pending:
        if not _more():
            return None
    line, _, rest = bytes(_pending).partition(b"\n")
    _pending[:] = rest
    return line.decode()


def stdin_line_soon() -> str | None:
    """stdin_line for a timing block's GO, which the trusted side writes as soon as it has
    resumed this process: stdin is polled, not slept on, for up to SPIN_S of running time
    (a stop in between starts the count again), since a sleeping reader's wake-up is time
    on the trusted side's clock (tens to hundreds of us a block on the H200)."""
    last = time.perf_counter()
    until = last + SPIN_S  # the trusted side stops this process soon after a frame
    while b"\n" not in _pending:
        now = time.perf_counter()
        if now - last > 0.001:  # stopped, then resumed: the GO is due
            until = now + SPIN_S
        last = now
        if now < until and not _poll([0], [], [], 0)[0]:
            continue
        if not _more():
            return None
    return stdin_line()


SPIN_S = 0.02


def stdin_bytes(size: int) -> bytes:
    while len(_pending) < size:
        if not _more():
            raise RuntimeError("the trusted side's job was cut short")
    data = bytes(_pending[:size])
    del _pending[:size]
    return data


def _more() -> bool:
    chunk = os.read(0, 1 << 20)
    _pending.extend(chunk)
    return bool(chunk)


def _read_job(job_path: Path) -> dict:
    """The job record and its cases (protocol.job_message) from stdin; the code they name
    lies in the job folder."""
    head = stdin_line()
    size = stdin_line()
    if head is None or size is None or not size.isdigit():
        raise RuntimeError("the trusted side sent no job")
    record = protocol.Job.from_json(head)
    data = torch.load(io.BytesIO(stdin_bytes(int(size))), weights_only=True,
                      map_location=record.device)
    # Named relative to the job folder (pipeline.write_job).
    return asdict(record) | {"candidate": str(job_path / record.candidate),
                           "task": str(job_path / record.task), "data": data}


def run(job: dict, report: dict, fd: int) -> None:
    device, data = torch.device(job["device"]), job["data"]
    task = load_task(job["task"])
    if device.type == "cpu":
        _not_dumpable()
    _OOMS.install(device)
    log = LaunchLog(job["candidate"])
    log.install()
    _LOGS.append(log)
    autotune.install()  # under the interpreter: which configs the checked calls ran (E51)
    if device.type == "cpu":
        bounds.install()  # under the interpreter: every access inside a launch's tensors
        fix_interpreter_bf16()  # bf16 products and casts as a GPU computes them
        interpret_programs_in_any_order()  # a launch's programs in no order, as on a GPU
        refuse_host_functions_in_launches()  # a kernel calls only kernels and triton.language
        refuse_run_time_constexprs()  # a helper's constexpr parameter takes no loaded value
        emulate_interpreter_libdevice()  # libdevice.erf and the like compute, as on a GPU
        hide_interpreter_values()  # str() of a block is its type, as a GPU compiler says
        if not task.allow_tf32:  # fp32 products at the precision a GPU would run them
            emulate_interpreter_tf32()
    _warm_guard(device.type)  # lazy imports that compile strings: before the watch
    report["dynamic_code"] = codewatch.install()  # before the import (E29)
    threads = _ThreadWatch()
    watched, state = integrity.snapshot(), integrity.knobs()
    report["stage"] = "import"
    start = time.perf_counter()
    module = import_candidate(job["candidate"])
    report["stage_seconds"]["import"] = time.perf_counter() - start
    report["stage"] = "init"
    own = own_sizes(module, data["shapes"])  # a shape that sets none runs with these
    sizes = {name: {**own, **spec["values"]} for name, spec in data["shapes"].items()}
    models = _Models(module, data["shapes"], sizes, device, report)
    report["stage"] = "inputs"
    start = time.perf_counter()
    _checked_calls((module, models, sizes), (log, task, threads), (job, report, fd))
    report["stage_seconds"]["correctness"] = time.perf_counter() - start
    report["refused"] = list(bounds.REFUSED)  # raised in a launch, and caught by the candidate
    report["autotune_unrun"] = autotune.unrun()
    report["tampered"] += integrity.changed(watched)
    report["tampered"] += integrity.knobs_changed(state, skip=("deterministic",))
    if job.get("timing"):
        from .timing import time_candidate

        report["stage"] = "timing"
        start = time.perf_counter()
        torch.use_deterministic_algorithms(False)  # no NaN fills inside timed calls
        set_sizes(module, sizes[job["timed_shape"]])
        channel = (lambda head, payload=b"": _write_frame(fd, head, payload),
                   stdin_line_soon, stdin_bytes)
        report["timing"] = time_candidate(job, models, task, channel, (log, threads))
        report["tampered"] += integrity.changed(watched) + report["timing"].pop("tampered", [])
        report["stage_seconds"]["timing"] = time.perf_counter() - start


class _Models(dict):
    """A shape's model, built at that shape's first call, with the module's sizes set to it:
    a constructor sees no later shape's sizes (the secret twin's) before the calls of the
    shapes before it are done. Built all at once, a kernel hard-coded to the declared sizes
    learned of the twin in __init__ and asked for CUDA at call 0, which made its failure
    needs_gpu instead of incorrect (red-team round of 2026-12-05). Counted as built: one
    built after a call that asks for CUDA is no needs_gpu (offgpu.cuda_required, E54)."""

    def __init__(self, module, specs: dict, sizes: dict, device, report: dict):
        super().__init__()
        self.module, self.specs, self.sizes = module, specs, sizes
        self.device, self.report = device, report

    def __missing__(self, shape: str):
        stage, self.report["stage"] = self.report["stage"], "init"
        set_sizes(self.module, self.sizes[shape])
        self[shape] = model = _make_model(self.module, self.specs[shape], self.device)
        self.report["built"], self.report["stage"] = len(self), stage
        return model


def _checked_calls(built: tuple, guards, context) -> None:
    """Every checked call, in the order and number the trusted side chooses: the worker asks
    for the next call's inputs (an inputs frame) and gets them then, never before; its
    outputs go to the trusted side before it asks again (one set resident: memplan.py).
    No seed, and no input of a later call, is ever in this process."""
    job, report, fd = context
    (module, models, sizes), device, made, call = built, torch.device(job["device"]), 0.0, 0
    while True:
        report["stage"], clock = "inputs", time.perf_counter()
        given = next_inputs(fd, device)
        made += time.perf_counter() - clock
        if given is None:
            break
        shape, inputs = given
        report["stage"] = "forward"
        set_sizes(module, sizes[shape])
        out = _run_case(models[shape], inputs, call, guards, report, device)
        _send_case(fd, call, out, device.type == "cuda")
        call += 1
        del out, inputs, given
        if device.type == "cuda":  # cached blocks split by a call's smaller temporaries
            torch.cuda.empty_cache()  # made each next set of inputs a new segment: 76 GiB
            # held for a 16 GiB input (KernelBench level 1 task 45, H200), past the plan
    report["stage_seconds"]["inputs"] = made


def next_inputs(fd: int, device: torch.device):
    """(shape, inputs) of the next checked call, or None when there is none: asked for
    with an inputs frame. On the CPU the tensors' bytes follow the call's record on stdin;
    on a GPU this process allocates them, hands their IPC handles over (a slots frame) and
    the trusted side writes the inputs into them before its ACK."""
    _write_frame(fd, {"frame": protocol.INPUTS})
    line = stdin_line()
    if line is None:
        raise RuntimeError("the trusted side sent no inputs")
    if line == protocol.NO_MORE.decode().strip():
        return None
    record = wire.parse_input_header(line)
    return record["shape"], receive_tensors(fd, record, device)


def receive_tensors(fd: int, record: dict, device: torch.device) -> list:
    """The arguments a record describes: read from stdin on the CPU; on a GPU allocated
    here, their handles sent (a slots frame) and filled by the trusted side before its ACK."""
    descs = wire.tensor_descs(record)
    if device.type == "cuda":
        tensors = [torch.empty(d["shape"], dtype=wire.dtype_of(d["dtype"]), device=device)
                   for d in descs]
        # the NaN fill of fresh memory runs on this stream: done before the trusted side
        # writes the inputs from its own context, or it lands on top of them
        torch.cuda.synchronize()
        _write_frame(fd, {"frame": protocol.SLOTS},
                     _dumps([_export(t) for t in tensors]).encode())
        if stdin_line() != protocol.ACK.decode().strip():
            raise RuntimeError("the trusted side did not fill the inputs")
    else:
        data = stdin_bytes(sum(wire.nbytes(d) for d in descs))
        tensors, offset = [], 0
        for d in descs:
            tensors.append(wire.from_bytes(data, d, offset))
            offset += wire.nbytes(d)
    return wire.build_args(record, tensors)


def _warm_guard(device: str) -> None:
    """The first op under the dispatch guard imports torch._dynamo and sympy (seconds, and
    their imports compile strings): paid here, before the candidate and the code watch
    (codewatch.py), as every verification paid it at its first checked call. On a GPU, so is
    torch.utils.cpp_extension, which every load_inline candidate imports: its setuptools
    evaluates string annotations through typing, and under the watch that import was
    refused (`dynamic-code`: every CUDA C++ candidate rejected)."""
    with OpGuard(()):
        torch.zeros(1).add(1)
    if device == "cuda":
        import torch.utils.cpp_extension as _cpp_extension  # noqa: F401


def _not_dumpable() -> None:
    """No other process of the job's uid (a child the candidate started, however) may open
    this one's /proc/<pid>/mem: through it a child computes unguarded and writes the answer
    into the output, or disarms the guards. Not yet on a GPU, where the trusted side maps
    this process's memory through CUDA IPC: a GPU run must show that IPC still works."""
    import ctypes

    pr_set_dumpable = 4
    if ctypes.CDLL(None, use_errno=True).prctl(pr_set_dumpable, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def import_candidate(path: str):
    spec = importlib.util.spec_from_file_location("candidate", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["candidate"] = module  # dataclasses and triton look modules up by name
    spec.loader.exec_module(module)
    if not hasattr(module, "ModelNew"):
        raise AttributeError("the candidate defines no ModelNew")
    return module


def _own_launches(log: LaunchLog) -> int:
    """How many of the launches not yet taken ran the candidate's own kernels: outside the
    checked calls (a self-test in a constructor), or in a call that then raised. A kernel
    that ran here runs on the CPU: a request for CUDA after it is no needs_gpu (E103)."""
    return sum(own for _, own in log.take())


def _run_case(model, inputs: list, index: int, guards, report: dict, device):
    log, task, threads = guards
    # On the CPU a copy shows a write into an input (a diagnostic of its own); on a GPU the
    # trusted side reads the input buffers back itself (collect.py), and a copy was one
    # more input's memory: 6 GiB of KernelBench's ReLU on an 80 GB card
    before = None if device.type == "cuda" else \
        [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
    _poison_fresh_memory()
    report["launched"] += _own_launches(log)  # in its constructor, before this call
    # The task's TF32 policy, as the reference and the timed calls run (cuDNN's default
    # allows TF32 in fp32 convolutions: checked without it, a conv differs from strict fp32)
    with _profiled(device) as gpu, torch.no_grad(), tf32_policy(task), \
            OpGuard(tuple(task.allowed_torch)) as ops, threads:
        out = model(*inputs)
        # Flattened under the guard: a returned container's own methods (__iter__ of a
        # namedtuple subclass, E41) run here, where their torch compute is seen. Copied
        # on the caller's stream before any device-wide sync, as the next op of a real
        # model would read it: side-stream work nobody waited for is caught (E23).
        leaves = tree_leaves(out)
        held = [t.clone() if type(t) is torch.Tensor else t for t in leaves]
    if device.type == "cuda":
        torch.cuda.synchronize()
        report["gpu_kernels"].append(gpu.kernels)
    report["kernels"].append(log.take())
    report["forbidden_ops"].append(sorted(ops.forbidden))
    report["threads_started"].append(threads.started)
    if not _poison_armed():
        report["poison_off"].append(index)
    if any(isinstance(t, torch.Tensor) and type(t) is not torch.Tensor for t in leaves):
        report["bad_outputs"].append(index)  # a subclass could run code when touched
        return []
    outs = [t for t in leaves if type(t) is torch.Tensor]
    if before is not None and any(isinstance(a, torch.Tensor) and not _equal(a, b)
                                  for a, b in zip(inputs, before, strict=True)):
        report["inputs_modified"].append(index)
    if _aliases(outs, inputs):
        report["aliased"].append(index)
    # Held copies: a later call must not be able to fill in this call's output afterwards.
    # On a GPU they stay there and travel by IPC handle (ipc.py).
    return [h.to(device).contiguous() for h, t in zip(held, leaves, strict=True)
            if type(t) is torch.Tensor]


def _profiled(device: torch.device):
    return GpuKernels() if device.type == "cuda" else contextlib.nullcontext()


def _aliases(outs, inputs) -> bool:
    ptrs = {x.untyped_storage().data_ptr() for x in inputs if isinstance(x, torch.Tensor)}
    return any(t.untyped_storage().data_ptr() in ptrs for t in outs)


def _poison_fresh_memory() -> None:
    """torch.empty and friends return NaN (floats) or the max integer, so a kernel that
    leaves part of its output unwritten cannot pass by luck. Re-armed before every call."""
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True


def _poison_armed() -> bool:
    return torch.are_deterministic_algorithms_enabled() and \
        torch.utils.deterministic.fill_uninitialized_memory


class _ThreadWatch:
    """Counts threads started while active, however the thread module was reached."""

    def __init__(self):
        self.active, self.started = False, 0
        start, start_new = threading.Thread.start, _thread.start_new_thread

        def thread_start(thread, *a, **k):
            self.started += self.active
            return start(thread, *a, **k)

        def start_new_thread(*a, **k):
            self.started += self.active
            return start_new(*a, **k)

        threading.Thread.start = thread_start
        _thread.start_new_thread = start_new_thread

    def __enter__(self):
        self.active, self.started = True, 0

    def __exit__(self, *exc):
        self.active = False


def _send_case(fd: int, call: int, outs: list, gpu: bool) -> None:
    """One checked call's outputs as a case frame (protocol.py): their descriptors and raw
    bytes (wire.py), or on a GPU a JSON list of IPC handles (ipc.py) kept alive, with the
    call's inputs, until the trusted side's ACK says it has read them; freed after that."""
    copies: list = []  # of non-contiguous outputs, held, as `outs` is, until the ACK
    if gpu:
        torch.cuda.synchronize()
        sent = _dumps([[_export(t, keep=copies) for t in outs]]).encode()
        if copies:
            torch.cuda.synchronize()  # the copies made before the trusted side reads them
        _write_frame(fd, {"frame": protocol.CASE, "call": call}, sent)
    else:
        descs, chunks = wire.output_message(outs)
        _write_frame(fd, {"frame": protocol.CASE, "call": call, "outputs": descs},
                     b"".join(chunks))
    if stdin_line() != protocol.ACK.decode().strip():
        raise RuntimeError("the trusted side did not take the outputs of a call")


def _trim(text: str, lines: int = 40) -> str:
    kept = text.strip().splitlines()
    return "\n".join(kept[-lines:])[-16000:]  # a message of megabytes ends it too


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
