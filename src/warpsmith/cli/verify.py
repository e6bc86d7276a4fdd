"""`warpsmith verify TASK CANDIDATE`."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click

from ..config import PROFILES, writable_store
from ..store import VerdictStore, verdict_to_dict
from . import common, output

err = output.err_console()  # the spinner shows only on a terminal, never in --json output


@click.command("verify")
@click.argument("task")
@click.argument("candidate", type=click.Path(dir_okay=False))
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default=None,
              help="cuda when a GPU is present, else cpu (the Triton interpreter: "
                   "correctness only, no timing).")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default="quick",
              show_default=True, help="How many seeds and input variants, how long to time.")
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object.")
@click.option("--no-cache", is_flag=True, help="Verify again even if a stored verdict exists.")
@common.db_option()
@click.option("--accept-suspect", is_flag=True, hidden=True,
              help="No effect since verifier 11: an implausibly fast result is measured "
                   "again and flagged, never held as 'suspect'.")
@click.option("--require-sandbox", is_flag=True,
              help="Refuse (exit 2) where candidate code cannot run in the OS sandbox "
                   "(bubblewrap) instead of verifying with `sandbox: none`.")
@output.results_only
def verify_command(task, candidate, device, profile, as_json, no_cache, db,
                   accept_suspect, require_sandbox) -> int:
    """Prove CANDIDATE (a file defining ModelNew) correct against TASK (a task file or a
    built-in name such as level1/relu), and time it on a GPU.

    \b
    Exit codes: 0 passed, 1 the candidate failed, 2 bad usage or environment (a missing
    or binary file, a store that is not SQLite, --device cuda without a GPU), 3 this
    machine could not judge it (needs_gpu: a CUDA C++ candidate on a CPU-only machine;
    too_large: the task's cases do not fit its memory), 130 Ctrl-C.
    Example (from a clone's root):
      warpsmith verify level1/relu src/warpsmith/examples/relu_triton.py --device cpu
    """
    common.source_file(candidate)  # usage errors before torch is imported (seconds)
    common.hide_store(db)
    store = VerdictStore(writable_store(db))
    try:
        from ..verify.pipeline import verify

        device = common.device(device) if device == "cuda" else device
        with err.status(f"verifying {output.plain(candidate)} against {output.plain(task)} …"):
            # the store keeps the absolute path: a relative one names no file for a reader
            # elsewhere (MCP's find_kernels, started in the agent's folder, left such
            # kernels out); the verdict printed here names the file as it was typed
            verdict = verify(task, Path(candidate).absolute(), device=device,
                             profile=profile, store=store, use_cache=not no_cache,
                             require_sandbox=require_sandbox)
    finally:
        store.close()
    if as_json:
        output.echo(json.dumps(verdict_to_dict(replace(verdict, candidate=candidate))))
    else:
        _print(verdict, candidate)
    return 0 if verdict.passed else EXIT_MACHINE if verdict.status in MACHINE else 1


EXIT_MACHINE = 3  # a verdict about this machine, not the candidate: neither passed nor failed
MACHINE = ("needs_gpu", "too_large")


def _print(v, typed: str) -> None:
    """verify/render.py's text, the status in colour, the candidate named as `typed`."""
    from rich.markup import escape

    from ..verify.render import detail_lines, summary_lines

    out = output.console()
    color = "green" if v.passed else "red"
    first, *rest = summary_lines(replace(v, candidate=typed))
    status, _, tail = first.partition("  ")
    out.print(f"[bold {color}]{escape(status)}[/bold {color}]  {escape(tail)}", highlight=False)
    for line in rest + detail_lines(v):
        out.print(line, highlight=False, markup=False)
