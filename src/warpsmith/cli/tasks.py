"""`warpsmith tasks list|show`."""

from __future__ import annotations

import json

import click
from rich.syntax import Syntax
from rich.table import Table

from . import output
from .common import DEFAULT_GPU, GPU_NAMES

err = output.err_console()


@click.group("tasks")
def tasks_group() -> None:
    """List and inspect tasks (KernelBench-format files)."""


@tasks_group.command("list")
@click.argument("suite", default="builtin")
@click.option("--check", is_flag=True, help="Run the admission checks on every task (CPU, "
              "about a second a task) and list what they warn about.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@output.results_only
def list_tasks(suite: str, check: bool, as_json: bool) -> int:
    """List the tasks of SUITE: 'builtin', 'builtin/level1', or a folder of task files
    (a KernelBench checkout's level1/ loads as it is: level 1, in problem order).

    Exit code 1 when some files in the folder are not loadable tasks; they are named.
    Admission warnings (--check) are not errors.
    """
    from ..tasks import load_suite
    from ..tasks.describe import task_summary

    tasks, errors = load_suite(suite)
    warnings = _warnings(tasks, quiet=as_json) if check else {}
    if as_json:
        output.echo(json.dumps({"suite": suite, "tasks": [
            task_summary(t) | ({"warnings": warnings[t.name]} if check else {}) for t in tasks],
            "errors": [str(e) for e in errors]}, indent=2))
    else:
        _print_table(suite, tasks, warnings if check else None)
        for e in errors:
            err.print(f"[red]not loaded[/red] {output.plain(e)}", highlight=False)
    return 1 if errors else 0


def _warnings(tasks, quiet: bool) -> dict[str, list[str]]:
    from rich.progress import track

    from ..tasks.admission import admission_warnings

    return {t.name: admission_warnings(t) for t in track(
        tasks, description="admission checks", console=err, transient=True, disable=quiet)}


@tasks_group.command("show")
@click.argument("task")
@click.option("--gpu", type=click.Choice(GPU_NAMES, case_sensitive=False),
              default=DEFAULT_GPU, show_default=True, help="GPU for the roofline floor.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-source", is_flag=True, help="Leave the source out.")
@click.option("--no-check", is_flag=True, help="Skip the admission checks (a second or two "
              "on the CPU).")
@output.results_only
def show_task(task: str, gpu: str, as_json: bool, no_source: bool, no_check: bool) -> int:
    """Show TASK (a file or a built-in name such as level1/softmax): its source, shapes,
    FLOPs, bytes, roofline floor on a GPU, and what the admission checks warn about (a
    constant output, an output equal to an input, inputs that do not matter)."""
    from ..tasks import resolve_task
    from ..tasks.admission import admission_warnings
    from ..tasks.describe import task_details

    loaded = resolve_task(_bare_name(task))
    details = task_details(loaded, gpu)
    if not no_check:
        details["warnings"] = admission_warnings(loaded)
    if as_json:
        output.echo(json.dumps(details | {"source": loaded.source}, indent=2))
        return 0
    out = output.console()
    out.print(f"[bold]{output.plain(loaded.title)}[/bold]  {output.plain(loaded.description)}")
    stored = f" (stored as {loaded.name})" if loaded.name != loaded.title else ""
    out.print(f"{output.plain(loaded.path)}{stored}\n{_precision_line(loaded, details)}"
              f"{' (TF32 allowed)' if loaded.allow_tf32 else ''}", highlight=False)
    if not no_source and out.is_terminal:
        out.print(Syntax(loaded.source, "python", line_numbers=False))
    elif not no_source:  # Syntax pads every line to the console's width: a pipe gets it plain
        output.echo(loaded.source.rstrip("\n"))
    out.print(_shapes_table(details))
    for c in details["conversions"]:
        out.print(f"[yellow]converted[/yellow] {output.plain(c)}", highlight=False)
    for w in details.get("warnings", []):
        out.print(f"[yellow]warning[/yellow] {output.plain(w)}", highlight=False)
    return 0


def _bare_name(task: str) -> str:
    """A bare built-in name (relu), as `bench --tasks` takes it: the one level that has it
    (level1/relu); several levels having it is a usage error that lists them."""
    from pathlib import Path

    from ..errors import UsageError
    from ..tasks.suite import BUILTIN

    if not task.replace("_", "").isalnum() or Path(task).exists():
        return task
    found = sorted(f"{p.parent.name}/{p.stem}" for p in BUILTIN.glob(f"*/{task}.py"))
    if len(found) > 1:
        raise UsageError(f"task {task} is in several levels: give one of {', '.join(found)}")
    return found[0] if found else task


def _print_table(suite: str, tasks, warnings: dict | None = None) -> None:
    table = Table(title=f"{len(tasks)} tasks in {suite}", title_justify="left")
    width = max((len(t.title) for t in tasks), default=4)
    table.add_column("task", no_wrap=True, min_width=width)
    table.add_column("dtype", no_wrap=True, min_width=8)
    table.add_column("shapes", no_wrap=True, min_width=9)
    table.add_column("description", overflow="fold", ratio=1)
    if warnings is not None:
        table.add_column("admission warnings", overflow="fold", ratio=1)
    for t in tasks:
        row = [t.title, t.dtype, ",".join(s.name for s in t.shapes), t.description]
        extra = ["; ".join(warnings[t.name]) or "-"] if warnings is not None else []
        table.add_row(*row, *extra)
    output.console().print(table)


def _precision_line(task, details: dict) -> str:
    if details["precision"] == "as written":
        return (f"dtype {task.dtype}, each input, parameter and buffer in the dtype its file "
                "gives it (below)")
    return f"dtype {task.dtype}: the file's DTYPE casts every floating tensor to it"


def _shapes_table(details: dict) -> Table:
    table = Table(title=f"cost per call, floor on {details['gpu']}", title_justify="left")
    for col in ("shape", "inputs", "parameters, buffers", "GFLOP", "MB moved", "floor µs",
                "bound"):
        table.add_column(col, overflow="fold")
    for s in details["shapes"]:
        floor = f"{s['floor_us']:.3g}" if s["floor_us"] is not None else \
            "not countable: " + ", ".join(s["uncounted_ops"])
        table.add_row(s["name"], "\n".join(s["inputs"]), "\n".join(s["held"]) or "-",
                      f"{s['flops'] / 1e9:.4g}",
                      f"{s['bytes'] / 1e6:.4g}", floor, s["floor_bound"] or "-")
    return table
