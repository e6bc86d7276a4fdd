"""The `warpsmith` command: a thin layer over the Python API."""

from __future__ import annotations

import logging
import sys

import click

from ..errors import WarpsmithError
from .bench import bench_command
from .export import export_command
from .optimize import optimize_command
from .report import report_command
from .runs import runs_group
from .serve import serve_group
from .tasks import tasks_group
from .verify import verify_command

EXIT_USAGE = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="warpsmith")
@click.option("-v", "--verbose", is_flag=True, help="Log progress to stderr.")
def cli(verbose: bool) -> None:
    """warpsmith: turn PyTorch reference code into verified, faster GPU kernels.

    \b
    Start here:
      warpsmith tasks list builtin         the built-in task suite
      warpsmith tasks show level1/softmax  one task: shapes, FLOPs, bytes, roofline floor
      warpsmith verify TASK CANDIDATE      prove a kernel correct (and time it on a GPU)
      warpsmith optimize TASK --model SPEC ask a model for kernels, verify, keep the best
      warpsmith runs list                  past optimize runs, what they found and cost
      warpsmith bench SUITE --generator G  a whole suite; then warpsmith report BENCH_ID
      warpsmith serve reward|mcp           a reward service for RL, an MCP server for agents
    """
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


cli.add_command(tasks_group)
cli.add_command(verify_command)
cli.add_command(optimize_command)
cli.add_command(runs_group)
cli.add_command(export_command)
cli.add_command(bench_command)
cli.add_command(report_command)
cli.add_command(serve_group)


def main() -> None:
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(EXIT_USAGE)
    except WarpsmithError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(EXIT_USAGE)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
