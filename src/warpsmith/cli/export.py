"""`warpsmith export RUN_ID [RUN_ID ...] | --bench BENCH_ID --format sft|rl|pairs|torch-op`."""

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
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), required=True,
              help="sft: verified kernels; rl: trajectories with rewards; pairs: preferences; "
                   "torch-op: one run's best kernel as a drop-in Python module.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, callback=common.out_file,
              help="FILE.jsonl, or FILE.parquet (needs pyarrow), or FILE.py for torch-op "
                   "[default: stdout].")
@common.db_option()
@output.results_only
def export_command(run_ids, bench_id, fmt, out, db) -> int:
    """Training data from optimize runs, or (torch-op) a run's best verified kernel as a
    standalone module registering a guarded torch custom op. Only verified kernels are ever
    labelled good; docs/datasets.md documents the schemas, the rewards and the pair rule.

    \b
    Examples (RUN_ID: an id `warpsmith runs list` shows; BENCH_ID: one `warpsmith report`
    lists):
      warpsmith export RUN_ID --format sft --out sft.jsonl
      warpsmith export --bench BENCH_ID --format rl --out rl.parquet
      warpsmith export RUN_ID --format torch-op --out my_kernels.py
    """
    if run_ids and bench_id:
        raise ExportUsageError("give run ids or --bench, not both")
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
