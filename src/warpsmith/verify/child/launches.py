"""Records which Triton kernels actually ran, by wrapping the launch entry points.

Installed in the candidate's process before its module is imported. A candidate could undo
it (in-process checks never are tamper-proof); the static scan forbids the means.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ...lang.triton_compat import launching_classes, python_function


class LaunchLog:
    def __init__(self, candidate_file: str):
        self.candidate_file = str(Path(candidate_file).resolve())
        self.launches: list[tuple[str, str | None]] = []  # (kernel name, file defining it)

    def install(self) -> None:
        for cls in launching_classes():
            _wrap(cls, self)

    def take(self) -> list[tuple[str, bool]]:
        taken = [(name, self._own(filename)) for name, filename in self.launches]
        self.launches = []
        return taken

    def record(self, fn) -> None:
        # Kept cheap (no path resolution here): it runs on every launch, timed calls too.
        inner = python_function(fn)
        code = getattr(inner, "__code__", None)
        self.launches.append((getattr(inner, "__name__", "?"), code and code.co_filename))
        del self.launches[:-4096]  # timed calls are never taken: keep the list bounded

    @functools.cache  # noqa: B019 - one log per process, a handful of file names
    def _own(self, filename: str | None) -> bool:
        return filename is not None and str(Path(filename).resolve()) == self.candidate_file


def _wrap(cls: type, log: LaunchLog) -> None:
    original = cls.run

    def run(self, *args, **kwargs):
        if not kwargs.get("warmup", False):
            log.record(self)
        return original(self, *args, **kwargs)

    cls.run = run
