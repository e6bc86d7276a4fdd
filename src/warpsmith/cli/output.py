"""Where the CLI writes. stdout carries a command's result and nothing else: task files are
imported in this process (seven times per `verify`), and whatever they or the libraries under
them print, from Python or from C, must not land in front of a `--json` object. So while a
command runs, file descriptor 1 and sys.stdout point at stderr, and the result is written to
the real stdout through `results()` alone."""

from __future__ import annotations

import contextlib
import functools
import io
import os
import sys
from typing import TextIO

_results: TextIO | None = None


def results() -> TextIO:
    """The stream a command's result goes to: the real stdout."""
    return _results or sys.stdout


def echo(text: str) -> None:
    import click

    click.echo(text, file=results())


# The width of a console on a pipe or a file: wide enough that no table is cut, as tables
# take their content's width and no more (rich pads nothing to the console's width).
PIPE_WIDTH = 10_000


def console():
    """A rich console on the result stream."""
    from rich.console import Console

    stream = results()
    return Console(file=stream, soft_wrap=_soft_wrap(stream), width=_width(stream))


def err_console():
    """A rich console on stderr for progress and notes."""
    from rich.console import Console

    return Console(stderr=True, soft_wrap=_soft_wrap(sys.stderr), width=_width(sys.stderr))


def plain(text: str, limit: int | None = None) -> str:
    """Text for a rich console shown as it is: a verdict's reason or a task's message quotes
    the candidate's or the task's own words, where `[forbidden-op]` vanished as an unknown
    style and a `[/x]` raised MarkupError mid-bench. Cut at `limit` characters with "…"."""
    from rich.markup import escape

    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[:limit - 1] + "…"
    return escape(text)


def _soft_wrap(stream) -> bool:
    # Rich wraps at 80 columns when the stream is no terminal: a log or a pipe then gets
    # lines broken mid-path. Wrap only for a terminal, or for an explicit $COLUMNS.
    return not _sized(stream)


def _width(stream) -> int | None:
    # Rich makes a piped console 80 columns wide, and a table then loses its last columns'
    # text to ellipses and folds (`warpsmith report | less`, a CI log). A terminal's width,
    # or $COLUMNS, rich finds itself.
    return None if _sized(stream) else PIPE_WIDTH


def _sized(stream) -> bool:
    return _isatty(stream) or bool(os.environ.get("COLUMNS"))


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def results_only(command):
    """Decorate a command's function: its body runs with stdout pointed at stderr."""
    @functools.wraps(command)
    def run(*args, **kwargs):
        with _stdout_to_stderr():
            return command(*args, **kwargs)
    return run


@contextlib.contextmanager
def _stdout_to_stderr():
    global _results
    real, fd_level = sys.stdout, _fileno(sys.stdout) == 1
    if fd_level:  # C code writes to fd 1 itself, not through sys.stdout
        real.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
        _results = io.TextIOWrapper(io.FileIO(saved, "w"), encoding=real.encoding,
                                    errors=real.errors, line_buffering=True)
    else:  # click's CliRunner: a Python stream with no descriptor of its own
        _results = real
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = real
        if fd_level:
            _flush_c_stdio()  # what C buffered for fd 1 belongs to stderr, not the result
            _results.flush()
            os.dup2(saved, 1)
            _results.close()
        _results = None


def _fileno(stream) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def _flush_c_stdio() -> None:
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)
