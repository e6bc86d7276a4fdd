"""The `warpsmith` command: a thin layer over the Python API."""

from __future__ import annotations

import logging
import sys

import click

from ..errors import WarpsmithError
from .bench import bench_command
from .export import export_command
from .library import library_command
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
cli.add_command(library_command)


def main() -> None:
    """Usage and environment errors (click's, and WarpsmithError: a missing file, a store
    that is not SQLite, no GPU) are one `error: …` line and exit 2, the contract scripts
    read; any other exception is a bug and keeps its traceback."""
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.exceptions.NoArgsIsHelpError as e:
        e.show()  # a bare group: its help is the answer, on stderr as click does it
        sys.exit(EXIT_USAGE)
    except click.ClickException as e:
        _fail(e.format_message(), _help_hint(e))
    except WarpsmithError as e:
        _fail(str(e))
    sys.exit(code if isinstance(code, int) else 0)


def _help_hint(e: click.ClickException) -> str | None:
    ctx = getattr(e, "ctx", None)
    return f"{ctx.command_path} --help" if ctx is not None else None


def _fail(message: str, hint: str | None = None) -> None:
    line = " ".join(message.split())  # one line: scripts and logs read errors line by line
    click.echo(f"error: {line}" + (f" (see `{hint}`)" if hint else ""), err=True)
    sys.exit(EXIT_USAGE)


if __name__ == "__main__":
    main()
