"""The optimize tool: a short search, with the offline library or an LLM."""

from __future__ import annotations

import secrets
from typing import Annotated, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from ... import config
from ...types import Verdict
from .checks import EXCLUSIVE
from .common import Device, Task, result, slug

DEFAULT_BUDGET = "calls=8,usd=1,wall=10m"  # a tool call should end while the agent waits
# search.registry's names, written out for the schema sent before any tool runs: the
# registry imports every strategy and with them torch (a test keeps them equal). Which of them
# needs a model is the registry's answer (model_and_strategy), asked when the tool is called.
LIBRARY = "library"
STRATEGIES = ["library", "tune", "one-shot", "best-of-n", "refine", "judge", "evolve"]
MODEL_FREE = ["library", "tune"]


def optimize_kernel(
        task: Task,
        model: Annotated[str | None, Field(description=(
            "Leave out for the offline kernel library (no LLM, no key). Otherwise an LLM spec: "
            "openai:MODEL, anthropic:MODEL, openai-compatible:BASE_URL#MODEL; its API key must "
            "be in the server's environment."))] = None,
        strategy: Annotated[str | None, Field(description=(
            f"One of {', '.join(STRATEGIES)}; {' and '.join(MODEL_FREE)} ask no model, the "
            "others need one [default: refine with a model, library without]."))] = None,
        start: Annotated[str | None, Field(description=(
            "strategy tune: the candidate file to tune, a path on the server's machine."))]
        = None,
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
    from ...search import Settings, parse_budget
    from ...search import optimize as run_optimize

    model, strategy = _model_and_strategy(model, strategy)
    limits = parse_budget(budget)
    if model != LIBRARY and limits.describe() == "unlimited":
        raise ToolError("give a budget with at least one limit, e.g. 'calls=8,wall=10m'")
    settings = Settings(language=language, device=device or _default_device(),
                        samples=samples, depth=depth, start=start)
    out = config.home() / "mcp" / "best" / f"{slug(task)}-{secrets.token_hex(4)}.py"
    with EXCLUSIVE:
        run = run_optimize(task, model, strategy, settings=settings, budget=limits, out=out)
    return result(_optimize_text(run), _optimize_data(run))


def _model_and_strategy(model: str | None, strategy: str | None) -> tuple[str, str]:
    from ...errors import UsageError
    from ...search.registry import model_and_strategy

    try:
        return model_and_strategy(model or None, strategy)
    except UsageError as e:
        raise ToolError(str(e)) from None


def _default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _optimize_data(run) -> dict:
    return run.to_dict()  # the form `optimize --json` prints


def _optimize_text(run) -> str:
    stop = f"; budget reached ({run.stopped_by})" if run.stopped_by else ""
    lines = [f"run {run.run_id}: {run.status}{stop}; {run.attempts} attempts; "
             f"spent {run.spend_text()}"]
    if run.note:
        lines.append(run.note)
    if run.best is None:
        lines.append("no verified kernel; each attempt's verdict is in the store "
                     f"(`warpsmith runs show {run.run_id}`)")
        return "\n".join(lines)
    lines.append(f"best verified kernel (attempt #{run.best.number}, "
                 f"{speed(run.best.verdict)}), also written to "
                 f"{run.best_path}:\n```python\n{run.best.source.rstrip()}\n```")
    return "\n".join(lines)


def speed(v: Verdict) -> str:
    if v.speedup_vs_eager is None:
        return f"passed on {v.device}, not timed"
    return f"passed on {v.device}, {v.speedup_vs_eager:.2f}× vs eager"
