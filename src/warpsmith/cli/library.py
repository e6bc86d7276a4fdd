"""`warpsmith library SUITE`: what the offline generator would write for each task."""

from __future__ import annotations

import json

import click
from rich.table import Table

from . import output


@click.command("library")
@click.argument("suite")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@output.results_only  # a task file that prints at import cannot break --json
def library_command(suite: str, as_json: bool) -> int:
    """For each task of SUITE ('builtin', 'builtin/level1', a folder of task files or one
    file): the library families and how many kernels the offline generator would write,
    or the first node it cannot place and why. Traces only; nothing is compiled or run.

    Exit code 1 when some files in the folder are not loadable tasks.
    """
    from ..library import coverage
    from ..types import readable_task_name
    from .common import suite_tasks

    tasks, errors = suite_tasks(suite)
    rows = coverage(tasks)
    covered = sum(1 for r in rows if r.family)
    if as_json:
        output.echo(json.dumps({"suite": suite, "covered": covered, "tasks": [
            {"task": r.task, "families": r.family.split("+") if r.family else [],
             "kernels": r.kernels, "reason": r.reason} for r in rows],
            "errors": [str(e) for e in errors]}, indent=2))
    else:
        table = Table("task", "families", "kernels", "or why not", title=suite)
        for r in rows:
            table.add_row(readable_task_name(r.task), r.family or "", str(r.kernels or ""),
                          output.plain(r.reason))
        out = output.console()
        out.print(table)
        out.print(f"{covered} of {len(rows)} tasks covered")
        for e in errors:
            output.err_console().print(f"[red]not loaded[/red] {output.plain(e)}", highlight=False)
    return 1 if errors else 0
