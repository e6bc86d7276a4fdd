"""What several commands share, kept free of torch so that `--help` and usage errors answer
at once: the names their options accept, and the checks of paths and devices."""

from __future__ import annotations

# The names the options offer, copied from the registries they come from (which import torch
# to build the objects behind them); tests/test_cli_startup.py checks they stay equal.
STRATEGY_NAMES = ("best-of-n", "evolve", "judge", "library", "one-shot", "refine", "tune")
EXPORT_FORMATS = ("sft", "rl", "pairs", "torch-op")
GPU_NAMES = ("A100", "B200", "H100", "H200", "L40S")
DEFAULT_GPU = "H200"


EXIT_INTERRUPTED = 130  # Ctrl-C, on every command: 128 + SIGINT, as shells report it


def interrupted(command: str, started: str | None, db: str | None) -> int:
    """Ctrl-C during a resumable command: the line that continues it, and exit 130."""
    from .output import err_console

    line = (f"interrupted; continue with: {with_db(f'{command} --resume {started}', db)}"
            if started else "interrupted before anything was recorded")
    err_console().print(line, highlight=False, soft_wrap=True)  # one line, to copy
    return EXIT_INTERRUPTED


def db_option(what: str = "SQLite store"):
    """--db, the same on every command that reads or writes the store."""
    import click

    return click.option("--db", type=click.Path(dir_okay=False), default=None,
                        help=f"{what} [default: $WARPSMITH_DB or ~/.cache/warpsmith/"
                             "warpsmith.sqlite]")


def with_db(command: str, db: str | None) -> str:
    """A follow-up command to print: it names the --db the user gave, or it finds nothing."""
    import shlex

    return f"{command} --db {shlex.quote(db)}" if db else command


def hide_store(db: str | None) -> None:
    """A store given by --db, outside the folders the sandbox hides anyway, is hidden from
    candidates too: inline here, and in a local or Ray worker through the job
    (executors/jobs.make_job)."""
    if db:
        from pathlib import Path

        from ..verify.isolation import jail

        jail.hide(Path(db).parent)


def resume_only(ctx, *allowed: str) -> None:
    """--resume continues with the stored settings: an argument or another option given
    with it would be silently ignored, so it is refused."""
    from click.core import ParameterSource

    from ..errors import UsageError

    given = [p for p in ctx.command.params if p.name not in (*allowed, "resume_id")
             and ctx.get_parameter_source(p.name) is ParameterSource.COMMANDLINE]
    if given:
        names = ", ".join(p.name.upper() if not p.opts[0].startswith("-") else p.opts[0]
                          for p in given)
        takes = ", ".join(f"--{name.replace('_', '-')}" for name in allowed if name != "as_json")
        raise UsageError(f"--resume continues with the settings it was started with: leave "
                         f"out {names} (with --resume: {takes}, --json)")


def writable_run(out: str | None, model: str | None) -> None:
    """A new optimize run's other folders, checked before any work: the one the best kernel
    is written to when no --out is given (the current folder) and, with a model, the LLM
    response cache's. (--out's own folder is checked by out_file.)"""
    from pathlib import Path

    from .. import config

    if out is None:
        config.writable_folder(Path.cwd(), "--out FILE")
    if model:
        writable_llm_cache()


def writable_llm_cache() -> None:
    from .. import config

    config.writable_folder(config.llm_cache_path().parent, "$WARPSMITH_LLM_CACHE")


def out_file(ctx, param, value: str | None) -> str | None:
    """An --out FILE whose folder exists and is writable, checked before the work that fills
    it (a bench report, an export) rather than by a traceback at the end."""
    import os
    from pathlib import Path

    import click

    if value is None or value == "-":
        return value
    folder = Path(value).parent
    if not folder.is_dir():
        raise click.BadParameter(f"{value}: there is no folder {folder} (make it first)")
    if not os.access(folder, os.W_OK):
        raise click.BadParameter(f"{value}: the folder {folder} is not writable")
    return value


def source_file(path: str) -> None:
    """A candidate must be Python source text: a binary file is the user's mistake (exit 2),
    not a candidate that failed."""
    from pathlib import Path

    from ..errors import UsageError

    try:
        Path(path).read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise UsageError(f"no candidate file {path}") from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{path} is not Python source (not UTF-8 text: byte {e.start} is "
                         f"{e.object[e.start]:#04x}); give the .py file defining ModelNew"
                         ) from None


def source_option(ctx, param, value: str | None) -> str | None:
    """source_file as a click callback (optimize --start)."""
    if value is not None:
        source_file(value)
    return value


def device(name: str | None) -> str:
    """--device, or cuda when a GPU is present; --device cuda on a machine without one is an
    environment error (exit 2), found before any work starts."""
    import torch

    from ..errors import UsageError

    if name is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda, but torch sees no GPU here (torch.cuda.is_available() "
                         "is False): use --device cpu, or run where a GPU is visible")
    return name


def suite_tasks(suite: str) -> tuple[list, list]:
    """(tasks, files that did not load) of SUITE: 'builtin', 'builtin/levelN', a folder of
    task files, or one .py file (`library`, `export --from-library`)."""
    from ..tasks import load_suite, resolve_task

    if suite.endswith(".py"):
        return [resolve_task(suite)], []
    return load_suite(suite)
