"""`warpsmith export RUN_ID [RUN_ID ...] | --bench BENCH_ID | --from-library SUITE
--format sft|rl|pairs|torch-op`."""

from __future__ import annotations

from collections import Counter

import click

from ..errors import WarpsmithError
from . import common, output
from .common import EXPORT_FORMATS


class ExportUsageError(click.ClickException):
    exit_code = 2


@click.command("export")
@click.argument("run_ids", nargs=-1)
@click.option("--bench", "bench_id", default=None,
              help="Export the optimize runs behind this bench's items instead.")
@click.option("--from-library", "suite", default=None, metavar="SUITE",
              help="Instead of stored runs: the offline library's kernel for each task of "
                   "SUITE ('builtin/level1', a folder of task files), verified here; one sft "
                   "record per kernel that passes (PyTorch -> Triton pairs).")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default=None,
              help="Where --from-library verifies [default: cuda if present, else cpu].")
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), required=True,
              help="sft: verified kernels; rl: trajectories with rewards; pairs: preferences; "
                   "torch-op: one run's best kernel as a drop-in Python module.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, callback=common.out_file,
              help="FILE.jsonl, or FILE.parquet (needs pyarrow), or FILE.py for torch-op "
                   "[default: stdout].")
@common.db_option()
@output.results_only
def export_command(run_ids, bench_id, suite, device, fmt, out, db) -> int:
    """Training data from optimize runs, or from the offline library's kernels verified here
    (--from-library), or (torch-op) a run's best verified kernel as a standalone module
    registering a guarded torch custom op. Only verified kernels are ever
    labelled good; docs/datasets.md documents the schemas, the rewards and the pair rule.

    \b
    Examples (RUN_ID: an id `warpsmith runs list` shows; BENCH_ID: one `warpsmith report`
    lists):
      warpsmith export RUN_ID --format sft --out sft.jsonl
      warpsmith export --bench BENCH_ID --format rl --out rl.parquet
      warpsmith export RUN_ID --format torch-op --out my_kernels.py
      warpsmith export --from-library builtin/level1 --format sft --out pairs.jsonl
    """
    if sum(map(bool, (run_ids, bench_id, suite))) > 1:
        raise ExportUsageError("give run ids, --bench or --from-library, not two of them")
    if suite is not None:
        return _from_library(suite, device, fmt, out, db)
    from ..export import NO_PROMPT, export

    skipped = Counter()
    try:
        count = export(run_ids, fmt, out or output.results(), bench_id=bench_id, db=db,
                       skipped=skipped)
    except WarpsmithError as e:
        raise ExportUsageError(str(e)) from None
    if out and fmt == "torch-op":
        click.echo(f"torch op module -> {out}", err=True)
    elif out:
        click.echo(f"{count} {fmt} records -> {out}", err=True)
    if skipped[NO_PROMPT]:  # said even when the records go to stdout: on stderr
        click.echo(f"skipped {skipped[NO_PROMPT]} {fmt} records with no prompt (kernels no "
                   "model was asked for: the offline library or the tuner)", err=True)
    return 0


def _from_library(suite: str, device: str | None, fmt: str, out: str | None, db) -> int:
    from ..config import writable_store
    from ..export import write
    from ..export.library import library_records
    from ..store import VerdictStore

    if fmt != "sft":
        raise ExportUsageError(f"--from-library writes sft records (PyTorch -> Triton pairs); "
                               f"--format {fmt} needs optimize runs")
    device = common.device(device)
    try:
        tasks, errors = common.suite_tasks(suite)
    except WarpsmithError as e:
        raise ExportUsageError(str(e)) from None
    for e in errors:
        click.echo(f"not loaded: {e}", err=True)
    store = VerdictStore(writable_store(db))
    skipped = Counter()
    try:
        rows = list(library_records(tasks, lambda task, source: _verify(
            task, source, device, store), skipped, lambda line: click.echo(line, err=True)))
    finally:
        store.close()
    write(rows, out or output.results())
    click.echo(f"{len(rows)} sft records from {len(tasks)} tasks"
               + (f" -> {out}" if out else ""), err=True)
    for why, n in sorted(skipped.items()):
        click.echo(f"  no record for {n}: {why}", err=True)
    return 1 if errors else 0


def _verify(task, source: str, device: str | None, store):
    from ..api import verify

    return verify(task, source, device=device, store=store)
