"""Few-shot examples: verified candidate files, each shown with the reference it solves.

The shipped library is warpsmith/examples/*.py; more folders of accepted candidates (for
example a checkout's tests/kernels/good) can be added. An example for the very task being
prompted is never chosen: showing the answer would make any benchmark score meaningless.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .. import pyparse
from ..errors import WarpsmithError
from ..tasks import BUILTIN, resolve_task
from ..types import Task
from ..verify.static import detect_language

# "# task: level1/relu" headers (tests/kernels) or "for the built-in task level1/relu" in a
# docstring (warpsmith/examples).
TASK_HEADER = re.compile(r"^# task: (\S+)", re.MULTILINE)
TASK_IN_DOCSTRING = re.compile(r"built-in task (level\d+/\w+)")
EXPECT_HEADER = re.compile(r"^# expect: (\S+)", re.MULTILINE)
TEST_HEADERS = re.compile(r"^# (task|expect): .*\n", re.MULTILINE)
MAX_EXAMPLE_CHARS = 6000  # one example must not crowd out the task


@dataclass(frozen=True)
class Example:
    name: str
    task: str | None  # the built-in task it solves, where it says
    language: str  # "triton" or "cuda"
    source: str

    def reference(self) -> str | None:
        if self.task is None:
            return None
        try:
            return resolve_task(self.task).source
        except WarpsmithError:
            return None


def packaged_dir() -> Path:
    return Path(str(resources.files("warpsmith") / "examples"))


def example_library(dirs: Sequence[Path] | None = None) -> list[Example]:
    """Examples from `dirs` (default: the shipped ones), in file order."""
    found = []
    for folder in dirs if dirs is not None else [packaged_dir()]:
        for path in sorted(Path(folder).glob("*.py")):
            example = read_example(path)
            if example is not None:
                found.append(example)
    return found


def read_example(path: Path) -> Example | None:
    source = path.read_text()
    try:
        language = detect_language(pyparse.parse(source), source)
    except SyntaxError:
        return None
    expect = EXPECT_HEADER.search(source)
    if language == "none" or "class ModelNew" not in source or (
            expect and expect.group(1) != "passed"):  # a test corpus's failing kernels
        return None
    match = TASK_HEADER.search(source) or TASK_IN_DOCSTRING.search(source)
    return Example(path.stem, match.group(1) if match else None, language,
                   TEST_HEADERS.sub("", source).strip() + "\n")


def pick_examples(task: Task, language: str, k: int = 1,
                  library: Iterable[Example] | None = None) -> list[Example]:
    """Up to k examples in the language, never for `task` itself, shortest first: a short
    example teaches the format and the rules at the least cost in tokens."""
    pool = [e for e in (example_library() if library is None else library)
            if e.language == language and not solves(e, task)
            and len(e.source) <= MAX_EXAMPLE_CHARS]
    return sorted(pool, key=lambda e: len(e.source))[:k]


def solves(example: Example, task: Task) -> bool:
    """By name, or by file for a built-in task loaded from its path under another name."""
    if example.task is None:
        return False
    return example.task == task.name or (BUILTIN / f"{example.task}.py").resolve() == task.path
