"""`warpsmith report RUN [RUN_B] [--format md|json|html] [--out FILE]`."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.table import Table

from ..config import db_path
from ..errors import UsageError
from . import common, output


@click.command("report")
@click.argument("run", required=False)
@click.argument("run_b", required=False)
@click.option("--format", "fmt", type=click.Choice(["md", "json", "html"]), default="md",
              show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), default=None, callback=common.out_file,
              help="Write the report to FILE instead of stdout.")
@common.db_option()
@output.results_only
def report_command(run, run_b, fmt, out, db) -> int:
    """The report of bench RUN (a bench id, or a JSON report file): fast_p against eager and
    torch.compile, geometric means, roofline, cost, per level and per task; --format html
    writes one self-contained page with plots and the kernels. With RUN_B, RUN_B
    compared with RUN task by task; without RUN, the recent benches. docs/metrics.md defines
    every number.

    \b
    Examples (from a clone's root; BENCH_ID: a bench id, as `warpsmith report` lists them):
      warpsmith report
      warpsmith report docs/benchmarks/raw/suite-library-2026-11-30.json --out report.md
      warpsmith report BENCH_ID --format html --out report.html
      warpsmith report BENCH_ID --format json | jq .metrics.overall
      warpsmith report docs/benchmarks/raw/suite-library-2026-11-30.json BENCH_ID
    """
    from ..report import compare_reports, load_report

    store = Path(db) if db else db_path()
    if run is None:
        return _list(store, fmt)
    data = load_report(run, store)
    if run_b:
        data = compare_reports(data, load_report(run_b, store))
        for warning in data["warnings"]:  # loud where the reader is, whatever the format
            click.secho(f"warning: not comparable: {warning}", fg="red", err=True)
    text = _render(data, fmt, bool(run_b))
    if out:
        _write(Path(out), text if text.endswith("\n") else text + "\n")
    else:
        output.echo(text)
    return 0


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError as e:  # the folder was checked when parsed; it can still refuse (full)
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None


def _render(data: dict, fmt: str, comparison: bool) -> str:
    from ..report import render_comparison, render_comparison_html, render_html, render_report

    if fmt == "json":
        return json.dumps(data, indent=2)
    if fmt == "html":
        return render_comparison_html(data) if comparison else render_html(data)
    return render_comparison(data) if comparison else render_report(data)


def _list(path: Path, fmt: str) -> int:
    from ..bench import BenchStore

    store = BenchStore(path)
    rows = [(r, len(store.items(r.id))) for r in store.benches()]
    store.close()
    if fmt == "json":
        output.echo(json.dumps({"benches": [{"id": r.id, "suite": r.suite, "generator":
                                            r.generator, "status": r.status, "items_done": n,
                                            "items_total": r.total_items} for r, n in rows]}))
        return 0
    table = Table("bench", "suite", "generator", "K", "device", "status", "items")
    table.columns[0].no_wrap = True  # ids are copied into `report` and `bench --resume`
    for r, n in rows:
        table.add_row(r.id, r.suite, r.generator, str(r.settings["samples"]),
                      r.settings["device"], r.status, f"{n}/{r.total_items}")
    output.console().print(table)
    return 0
