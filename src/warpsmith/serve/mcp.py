"""`warpsmith serve mcp`: warpsmith's tools for coding agents (Claude Code, Codex, Cursor), over
the Model Context Protocol on stdio, with the official Python SDK (`mcp` 2.x, `MCPServer`).

Every tool goes through the public Python API and the store at the configured path, returns a
short text for the model to read and the full record as structured content. A bad argument
(unknown task, empty source, bad budget) is a tool error the agent can read and correct; the
server itself never goes down with it. Tool docstrings are what the agent reads: they say when
to call the tool, not how it is built.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import logging
import secrets
import threading
from pathlib import Path
from typing import Annotated, Literal

import anyio
import torch
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from .. import __version__, config, verify
from ..errors import WarpsmithError
from ..search import Settings, parse_budget
from ..search import optimize as run_optimize
from ..search.registry import LIBRARY, STRATEGIES
from ..store import VerdictStore, verdict_to_dict
from ..store.runs import RunStore
from ..tasks import load_suite, resolve_task
from ..tasks.describe import task_details, task_summary
from ..tasks.gpus import DEFAULT_GPU
from ..types import Verdict

log = logging.getLogger(__name__)

# One verification, timing or search at a time: two timings sharing a GPU corrupt each other's
# numbers, and on the CPU one interpreter run already fills the cores. Other calls (list, show,
# find) do not wait for it.
_EXCLUSIVE = threading.Lock()

MAX_SOURCE_CHARS = 1_000_000
DEFAULT_BUDGET = "calls=8,usd=1,wall=10m"  # a tool call should end while the agent waits
# Read from the registry, so a strategy added there is offered here too.
LLM_STRATEGIES = [name for name in STRATEGIES if name != LIBRARY]

INSTRUCTIONS = """\
warpsmith proves GPU kernels correct against a PyTorch reference task and times them honestly.
A task is a PyTorch `Model` (see show_task); a candidate is a Python file defining
`class ModelNew(nn.Module)` with the same constructor and forward signature, doing its compute in
Triton (@triton.jit) or CUDA C++. Typical loop: list_tasks -> show_task -> write a candidate ->
verify_kernel, fix what its feedback says, repeat until it passes -> time_kernel (needs a GPU).
find_kernels returns kernels already verified for a task; optimize runs a short search.
"""

Task = Annotated[str, Field(min_length=1, description=(
    "A built-in task name such as 'level1/relu' (list_tasks shows them) or the absolute path "
    "of a KernelBench-format task file."))]
Source = Annotated[str, Field(min_length=1, max_length=MAX_SOURCE_CHARS, description=(
    "The whole candidate file as text: imports, kernels and `class ModelNew(nn.Module)`."))]
Device = Annotated[Literal["cpu", "cuda"] | None, Field(description=(
    "cuda when the server has a GPU, else cpu: the Triton interpreter, correctness only."))]
Profile = Annotated[Literal["quick", "thorough"], Field(description=(
    "How many random seeds and input variants to check, and how long to time."))]


def build_server() -> MCPServer:
    server = MCPServer("warpsmith", instructions=INSTRUCTIONS, version=__version__)
    for name, fn in TOOLS.items():
        # Clients may call read-only tools without asking the user each time.
        hints = ToolAnnotations(read_only_hint=True) if name in READ_ONLY else None
        server.add_tool(_tool(fn), name=name, description=inspect.cleandoc(fn.__doc__),
                        annotations=hints)
    return server


def serve_stdio() -> None:
    build_server().run("stdio")


def _tool(fn):
    """The tool body on a worker thread, so the event loop keeps answering while a candidate is
    verified for seconds or a search runs for minutes; every exception becomes a tool error
    whose text the agent can act on."""

    @functools.wraps(fn)  # the SDK reads the parameters and the docstring through __wrapped__
    async def run(**kwargs):
        try:
            return await anyio.to_thread.run_sync(functools.partial(fn, **kwargs))
        except ToolError:
            raise
        except WarpsmithError as e:
            raise ToolError(str(e)) from e
        except Exception as e:  # a bug of ours: say so, keep serving
            log.exception("tool %s failed", fn.__name__)
            raise ToolError(f"internal error ({type(e).__name__}: {e}); the server is still "
                            "running, other calls work") from e

    return run


def _result(text: str, data: dict, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=data, is_error=error)


# --- tasks ------------------------------------------------------------------------------------


def list_tasks(suite: Annotated[str, Field(description=(
        "'builtin', 'builtin/level1', or the absolute path of a folder of task files."))]
        = "builtin") -> CallToolResult:
    """List the tasks of a suite: name, dtype, input shapes and a one-line description. Call it
    to find a task name for the other tools."""
    tasks, errors = load_suite(suite)
    lines = [f"{len(tasks)} tasks in {suite}:"]
    lines += [f"- {t.name} ({t.dtype}; shapes {', '.join(s.name for s in t.shapes)}): "
              f"{t.description}" for t in tasks]
    lines += [f"not loaded: {e}" for e in errors]
    return _result("\n".join(lines), {"suite": suite, "tasks": [task_summary(t) for t in tasks],
                                      "errors": [str(e) for e in errors]})


def show_task(task: Task,
              gpu: Annotated[str, Field(description="GPU for the roofline floor, e.g. H100.")]
              = DEFAULT_GPU,
              include_source: bool = True) -> CallToolResult:
    """Show a task: its PyTorch reference source (the `Model` your `ModelNew` must match), its
    input shapes, FLOPs and bytes per call, and the roofline floor (the least time any kernel can
    take on the GPU). Read it before writing a candidate."""
    loaded = resolve_task(task)
    details = task_details(loaded, gpu)
    lines = [f"{loaded.name}: {loaded.description}",
             f"dtype {loaded.dtype}{' (TF32 allowed)' if loaded.allow_tf32 else ''}; "
             f"file {loaded.path}"]
    if loaded.allowed_torch:
        lines.append(f"torch ops a candidate may still call: {', '.join(loaded.allowed_torch)}")
    lines += [_shape_line(s, details["gpu"]) for s in details["shapes"]]
    if include_source:
        lines.append(f"\nreference source:\n```python\n{loaded.source.rstrip()}\n```")
    return _result("\n".join(lines), details | {"source": loaded.source})


def _shape_line(s: dict, gpu: str) -> str:
    floor = (f"floor on {gpu} {s['floor_us']:.3g} µs ({s['floor_bound']}-bound)"
             if s["floor_us"] is not None
             else f"no floor (uncounted ops: {', '.join(s['uncounted_ops'])})")
    return (f"shape {s['name']}: inputs {'; '.join(s['inputs'])}; {s['flops'] / 1e9:.4g} GFLOP, "
            f"{s['bytes'] / 1e6:.4g} MB moved; {floor}")


# --- verification and timing ------------------------------------------------------------------


def verify_kernel(task: Task, source: Source, device: Device = None,
                  profile: Profile = "quick") -> CallToolResult:
    """Verify a candidate kernel against a task: static rules, then many random inputs and
    shapes compared with the reference, then timing against PyTorch eager and torch.compile when
    the server has a GPU. Returns the status ('passed' only when accepted), why it failed, and
    feedback to fix it. Takes seconds on the CPU, longer with timing. A repeat of the same source
    is answered from the store."""
    path = _save_candidate(task, source)
    verdict = _verify(task, path, device, profile)
    return _result(_verdict_text(verdict), verdict_to_dict(verdict))


def time_kernel(task: Task, source: Source, profile: Profile = "quick") -> CallToolResult:
    """Time a candidate on the server's GPU against PyTorch eager and torch.compile (correctness
    is checked first: an incorrect kernel is not timed). Returns median times with their spread,
    the speedups and the fraction of the roofline reached. Needs a CUDA GPU: without one it says
    so and times nothing."""
    if not torch.cuda.is_available():
        return _result("not timed: timing needs a CUDA GPU and this server has none. "
                       "verify_kernel still checks correctness here, on the CPU interpreter; "
                       "run the server on a GPU machine to time.",
                       {"timed": False, "reason": "no CUDA GPU on the server"}, error=True)
    verdict = _verify(task, _save_candidate(task, source), "cuda", profile)
    data = verdict_to_dict(verdict) | {"timed": verdict.timing_measured}
    return _result(_timing_text(verdict), data)


def _verify(task: str, path: Path, device: str | None, profile: str) -> Verdict:
    store = VerdictStore(config.db_path())
    try:
        with _EXCLUSIVE:
            return verify(task, path, device=device, profile=profile, store=store)
    finally:
        store.close()


def _save_candidate(task: str, source: str) -> Path:
    """Kept under the store's home, named by content, rather than in a temporary file: the
    verdict store records the candidate's path, and find_kernels hands its source back later."""
    if not source.strip():
        raise ToolError("source is empty: pass the whole candidate file as text")
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    folder = config.home() / "mcp" / "candidates"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_slug(task)}-{digest}.py"
    if not path.exists():
        path.write_text(source)
    return path


def _slug(task: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in Path(task).with_suffix("").as_posix())[-60:]


def _verdict_text(v: Verdict) -> str:
    lines = [f"{v.status} (correct: {str(v.correct).lower()}) for {v.task} on {v.device}"
             + (" — stored verdict of the same source" if v.cached else "")]
    if v.shapes_checked:
        lines.append(f"shapes checked: {', '.join(v.shapes_checked)}"
                     + (f"; skipped as too large for the CPU: {', '.join(v.shapes_skipped)}"
                        if v.shapes_skipped else ""))
    if v.kernels_launched:
        lines.append(f"kernels that ran: {', '.join(v.kernels_launched)}")
    if v.passed and not v.timing_measured:
        lines.append("not timed: timing needs a CUDA GPU (time_kernel on a GPU server)")
    lines.append(v.feedback or "\n".join(f"- {r}" for r in v.reasons))
    lines += [f"warning: {w}" for w in v.warnings]
    return "\n".join(lines)


def _timing_text(v: Verdict) -> str:
    if not v.timing_measured:
        return (f"not timed: the candidate did not pass verification ({v.status}); fix it "
                f"first.\n{_verdict_text(v)}")
    lines = [f"{v.status} on {v.device}, timed at shape {v.timed_shape}:"]
    lines += [f"- {t.name}: median {t.median_us:.1f} µs (IQR {t.iqr_us:.1f}, min {t.min_us:.1f}, "
              f"{t.calls} calls)" for t in v.timings]
    if v.speedup_vs_eager is not None:
        lines.append(f"speedup {v.speedup_vs_eager:.2f}× vs eager, "
                     f"{_num(v.speedup_vs_compile, '.2f')}× vs torch.compile; "
                     f"{_num(v.roofline_fraction, '.0%')} of the roofline floor "
                     f"({_num(v.floor_us, '.3g')} µs)")
    lines += [f"- {r}" for r in v.reasons]
    lines += [f"warning: {w}" for w in v.warnings]
    return "\n".join(lines)


def _num(x: float | None, spec: str) -> str:
    return "n/a" if x is None else format(x, spec)


# --- search -----------------------------------------------------------------------------------


def optimize_kernel(
        task: Task,
        model: Annotated[str | None, Field(description=(
            "Leave out for the offline kernel library (no LLM, no key). Otherwise an LLM spec: "
            "openai:MODEL, anthropic:MODEL, openai-compatible:BASE_URL#MODEL; its API key must "
            "be in the server's environment."))] = None,
        strategy: Annotated[str | None, Field(description=(
            f"Only with a model: {', '.join(LLM_STRATEGIES)} [default: refine]."))] = None,
        budget: Annotated[str, Field(description=(
            "Limits, the run stops at the first reached: calls, usd, tokens, wall, gpu, "
            "e.g. 'calls=8,usd=1,wall=10m'."))] = DEFAULT_BUDGET,
        samples: Annotated[int, Field(ge=1, le=8, description=(
            "best-of-n: samples; refine: independent chains."))] = 2,
        depth: Annotated[int, Field(ge=1, le=8, description="refine: rounds per chain.")] = 2,
        device: Device = None,
        language: Literal["triton", "cuda"] = "triton") -> CallToolResult:
    """Search for a verified kernel for a task and return the best one's source and verdict.
    Without a model it renders kernels from warpsmith's offline library (seconds, if the task is
    one of its op families); with a model it asks the LLM, verifies every answer and feeds the
    failures back, within a small budget (minutes). Every attempt is recorded in the store."""
    model, strategy = _model_and_strategy(model, strategy)
    limits = parse_budget(budget)
    if model != LIBRARY and limits.describe() == "unlimited":
        raise ToolError("give a budget with at least one limit, e.g. 'calls=8,wall=10m'")
    settings = Settings(language=language, device=device or _default_device(),
                        samples=samples, depth=depth)
    out = config.home() / "mcp" / "best" / f"{_slug(task)}-{secrets.token_hex(4)}.py"
    with _EXCLUSIVE:
        result = run_optimize(task, model, strategy, settings=settings, budget=limits, out=out)
    return _result(_optimize_text(result), _optimize_data(result))


def _model_and_strategy(model: str | None, strategy: str | None) -> tuple[str, str]:
    if model:
        return model, strategy or "refine"
    if strategy is not None:
        raise ToolError(f"strategy {strategy!r} asks a model: give model, e.g. "
                        "'openai:gpt-4.1' or 'anthropic:claude-sonnet-4-5'")
    return LIBRARY, LIBRARY


def _default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def _optimize_data(result) -> dict:
    best = result.best
    return {"run_id": result.run_id, "status": result.status,
            "best_candidate": str(result.best_path) if result.best_path else None,
            "source": best.source if best else None,
            "verdict": verdict_to_dict(best.verdict) if best else None,
            "spend": result.spend, "stopped_by": result.stopped_by,
            "attempts": result.attempts, "note": result.note or None}


def _optimize_text(result) -> str:
    stop = f"; budget reached ({result.stopped_by})" if result.stopped_by else ""
    lines = [f"run {result.run_id}: {result.status}{stop}; {result.attempts} attempts; "
             f"spent {result.spend['calls']} LLM calls, ${result.spend['usd']:.4f}, "
             f"{result.spend['wall_s']:.0f} s"]
    if result.note:
        lines.append(result.note)
    if result.best is None:
        lines.append("no verified kernel; each attempt's verdict is in the store "
                     f"(`warpsmith runs show {result.run_id}`)")
        return "\n".join(lines)
    lines.append(f"best verified kernel ({_speed(result.best.verdict)}), also written to "
                 f"{result.best_path}:\n```python\n{result.best.source.rstrip()}\n```")
    return "\n".join(lines)


def _speed(v: Verdict) -> str:
    if v.speedup_vs_eager is None:
        return f"passed on {v.device}, not timed"
    return f"passed on {v.device}, {v.speedup_vs_eager:.2f}× vs eager"


# --- the store --------------------------------------------------------------------------------


def find_kernels(task: Task,
                 limit: Annotated[int, Field(ge=1, le=50, description=(
                     "How many kernels to return."))] = 5,
                 include_source: bool = True) -> CallToolResult:
    """Kernels already verified (status passed) for a task, from warpsmith's store: those checked
    with verify_kernel or the CLI and those found by optimize runs. Fastest first (speedup vs
    PyTorch eager; kernels verified without timing come last). Call it before writing a kernel
    from scratch."""
    name = resolve_task(task).name
    found = _passed(name)[:limit]
    if not found:
        return _result(f"no verified kernel for {name} in the store yet", {
            "task": name, "kernels": []})
    lines = [f"{len(found)} verified kernel(s) for {name}, fastest first:"]
    for i, k in enumerate(found, 1):
        lines.append(f"#{i} {_speed(k['verdict'])}; {k['origin']}")
        if include_source and k["source"]:
            lines.append(f"```python\n{k['source'].rstrip()}\n```")
    return _result("\n".join(lines), {"task": name, "kernels": [
        _kernel_data(k, include_source) for k in found]})


def _passed(task_name: str) -> list[dict]:
    """Every passed verdict of the task, with its source: from the attempt that made it when a
    search did, else from the candidate file if it is still there."""
    sources = _attempt_sources(task_name)
    verdicts = VerdictStore(config.db_path())
    try:
        passed = verdicts.passed(task_name)
    finally:
        verdicts.close()
    found = []
    for v in passed:
        source, origin = sources.get(v.cache_key) or (_read(v.candidate), f"file {v.candidate}")
        found.append({"verdict": v, "source": source, "origin": origin})
    return found


def _attempt_sources(task_name: str) -> dict[str, tuple[str, str]]:
    """cache key -> (source, where it came from), for the task's passed search attempts."""
    runs = RunStore(config.db_path())  # also creates the runs tables in a fresh store
    try:
        rows = runs.passed_sources(task_name)
    finally:
        runs.close()
    found = {}
    for run_id, attempt_id, source, key in rows:
        found.setdefault(key, (source, f"optimize run {run_id}, attempt {attempt_id}"))
    return found


def _kernel_data(k: dict, include_source: bool) -> dict:
    v: Verdict = k["verdict"]
    return {"origin": k["origin"], "source": k["source"] if include_source else None,
            "device": v.device, "speedup_vs_eager": v.speedup_vs_eager,
            "speedup_vs_compile": v.speedup_vs_compile,
            "roofline_fraction": v.roofline_fraction, "timing_measured": v.timing_measured,
            "candidate": v.candidate, "cache_key": v.cache_key}


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text()
    except OSError:
        return None  # a CLI candidate since moved or deleted: the verdict still counts


READ_ONLY = {"list_tasks", "show_task", "find_kernels"}
TOOLS = {"list_tasks": list_tasks, "show_task": show_task, "verify_kernel": verify_kernel,
         "time_kernel": time_kernel, "optimize": optimize_kernel, "find_kernels": find_kernels}
