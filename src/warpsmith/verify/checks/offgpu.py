"""What a verdict on the CPU cannot say about a GPU path: the Triton interpreter runs a
candidate's code for CPU tensors only, so a candidate that asks where its tensors live, that
needs CUDA to run at all, or whose autotuner has configs the CPU never ran, is `needs_gpu`
(the machine's limit: never passed, never the candidate's failure), not judged here."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import replace

from ... import pyparse
from ...types import Verdict
from .. import static
from ..worker_report import WorkerReport

# what torch and Triton say when a candidate needs CUDA on a machine without it
CUDA_MISSING = ("Torch not compiled with CUDA enabled", "Found no NVIDIA driver",
                "No CUDA GPUs are available", "no CUDA-capable device", "CUDA driver",
                "0 active drivers")
# the verifier's own refusals under the interpreter (child/bounds.py, lang/triton_compat.py):
# never the machine's limit, whatever line they were raised at (red-team round 7, C09)
OURS = ("OutOfBounds", "ProgramsRace", "out-of-bounds", "may be handed only")
# a candidate's own line that tests or asks for the GPU (`assert x.is_cuda`, `.cuda()`)
ASKS_CUDA = re.compile(r"is_cuda|\.cuda\(|device\.type|[\"']cuda")
# bounded: the traceback is the candidate's text (a line number of 5000 digits made int()
# raise and the verification end with no verdict: red-team round 6, D01)
CANDIDATE_FRAME = re.compile(r'File "[^"]*candidate\.py", line (\d{1,7})\b')


def cuda_required(v: Verdict, report: WorkerReport | str, source: str,
                  calls_done: int = 0) -> Verdict:
    """On the CPU, a runtime error that says CUDA is missing, or that the candidate's own
    line asking for the GPU raised (`assert x.is_cuda`, `if not x.is_cuda: raise`,
    `x.cuda()`: 40-65 % of the Triton files of the public LLM-kernel repositories tried),
    is the machine's limit: needs_gpu,
    not a runtime_error stored against the kernel. A candidate gains nothing from it (never
    passed, never rewarded). Only where nothing of it had run on the CPU yet (no call done, no
    model built, no launch of its kernels): a kernel that needs CUDA fails its first model
    or call, while one that ran here and asks for CUDA only later (on the secret twin, whose
    calls come last, or whose sizes its constructor sees; after a self-test of its kernel on
    CPU tensors, E103) chose where to fail, and needs_gpu instead of incorrect kept a kernel
    hard-coded to the declared sizes from any penalty (E54)."""
    if v.device != "cpu" or v.status != "runtime_error" or \
            not isinstance(report, WorkerReport) or report.error is None:
        return v
    built, launched = report.built, report.launched
    if calls_done > 0 or launched > 0 or report.stage == "init" and built > 0:
        return replace(v, reasons=(*v.reasons, f"not needs_gpu: it ran on the CPU before it "
                                   f"asked for CUDA ({calls_done} calls, {built} models, "
                                   f"{launched} launches of its kernels)"))
    message, trace = report.error.message, report.error.traceback
    frames = CANDIDATE_FRAME.findall(trace)
    lines = _code_lines(source)  # a comment that says `.cuda(` asks for nothing (D02)
    at = int(frames[-1]) if frames and 0 < int(frames[-1]) <= len(lines) else 0
    # the raising line and the two before it: `if not x.is_cuda:` then `raise ...`
    line = " ".join(x.strip() for x in lines[max(0, at - 3):at]) if at else ""
    asks = _cuda_requests(source)  # lines of real code that ask for the GPU (the scan's own)
    near = bool(at) and any(at - 2 <= n <= at for n in asks) and ASKS_CUDA.search(line)
    if any(m in message for m in OURS) or not asks or \
            not (near or any(m in message for m in CUDA_MISSING)):
        return v  # a message alone (C06) or a "cuda" string near the fault (C09) is no ask
    return replace(v, status="needs_gpu", correct=False, reasons=(
        "the candidate needs a CUDA GPU to run (its forward asks for one: "
        f"{(line.strip() or message)[:160]}); the CPU interpreter cannot judge it, a GPU "
        "will", *v.reasons))


def _cuda_requests(source: str) -> set[int]:
    """The lines of statements that ask for or about the GPU: `.cuda()`, `torch.cuda`, `.is_cuda`,
    `device.type == "cuda"`, a `device=` or `.to()` naming cuda, `torch.device("cuda")`.
    Read from the source's syntax tree: the worker's traceback and message are the
    candidate's text (red-team round 7 forged both), the source is what the scan read."""
    try:
        tree = pyparse.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {node.lineno for node in ast.walk(tree) if _asks_cuda(node)}


def _cuda(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and \
        node.value.startswith("cuda")


def _asks_cuda(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):  # x.is_cuda, x.cuda(), torch.cuda.*
        return node.attr in ("is_cuda", "cuda")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("to", "device") and any(
            map(_cuda, node.args)) or any(k.arg == "device" and _cuda(k.value)
                                          for k in node.keywords)
    if isinstance(node, ast.Call):
        return any(k.arg == "device" and _cuda(k.value) for k in node.keywords)
    return isinstance(node, ast.Compare) and any(map(_cuda, [node.left, *node.comparators]))


def _code_lines(source: str) -> list[str]:
    """The source's lines with its comments blanked (tokenize's own reading), none where it
    does not tokenize."""
    lines = source.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start[0] - 1, tok.start[1]
            lines[row] = lines[row][:col]
    return lines


def off_gpu_path(v: Verdict, source: str) -> Verdict:
    """On the CPU, a candidate that asks where its tensors live (static/device.py) ran only
    its CPU path: a PyTorch fallback (`if not x.is_cuda: return torch.argmin(x)`) never
    launches its kernel, and whatever the other path does for GPU tensors was never run (a
    kernel that does half its work when `x.device.type == "cuda"` passed here, E50). The
    CPU's limit, not a verdict on the kernel: a GPU judges it. A rejection for anything but
    the fallback itself (its PyTorch compute, its kernel not running) stays a rejection, and
    so does a fallback that returned wrong outputs (they are wrong on any device) or one
    taken on some calls while the candidate's kernel ran on others (it runs on the CPU: the
    candidate chose where not to; red-team round 13 got needs_gpu, no penalty, for both)."""
    fallback = v.status == "rejected" and "no-kernel-ran" in v.rules and \
        set(v.rules) <= CPU_FALLBACK and not v.kernels_launched and \
        all(c.ok for c in v.cases)
    if v.device != "cpu" or not (fallback or v.status == "passed") or \
            not static.branches_on_device(source):
        return v
    if v.status == "passed":
        return replace(v, status="needs_gpu", correct=False, reasons=(
            "forward asks which device its tensors are on (is_cuda, device.type, …): the CPU "
            "interpreter ran only its CPU path, correct here; only a GPU can check the path "
            "it takes for GPU tensors",))
    return replace(v, status="needs_gpu", rules=(), reasons=(
        "forward asks where its tensors live (is_cuda, device.type) and its kernel never ran "
        "on the CPU interpreter's CPU tensors: only a GPU can check it", *v.reasons))


def configs_unrun(v: Verdict, report: WorkerReport) -> Verdict:
    """On the CPU the autotuner takes its configs in turn, one per call (lang/triton.py): a
    kernel with more configs than the run had calls has some the CPU never ran, and a GPU's
    autotuner may pick one of them (E51, child/autotune.py). Only a GPU can check it."""
    unrun = report.autotune_unrun
    if v.device != "cpu" or v.status != "passed" or not unrun:
        return v
    shown = "; ".join(str(u)[:200] for u in unrun[:3])
    return replace(v, status="needs_gpu", correct=False, reasons=(
        f"autotune configs the CPU interpreter never ran ({shown}): it runs one config a "
        "call, and a GPU may pick any of them; fewer distinct configs (launch settings such "
        "as num_warps do not count) are all checked here",))


CPU_FALLBACK = {"no-kernel-ran", "forbidden-op"}  # what a PyTorch path for CPU tensors does
