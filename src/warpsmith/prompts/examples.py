"""Few-shot examples: verified candidate files, each shown with the reference it solves.

The default pool is the shipped examples (warpsmith/examples/*.py) and the kernel library's
renderings, one per family (its shortest over the built-in level-1 tasks; CI verifies every
rendering of a covered built-in task on the interpreter, tests/library/test_generate.py). More
folders of accepted candidates (for example a checkout's tests/kernels/good) can be given
instead. Never chosen: an example for the very task being prompted, or one of the task's own
library family (a sibling's rendering differs from the answer in a line or two): showing the
answer would make any benchmark score meaningless.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
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
    family: str | None = None  # the library family of the built-in task it solves
    rendered: bool = False  # a library rendering, not a file

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
    """Examples from `dirs` in file order (no family known: only the rule against the task's
    own answer applies to them); by default the shipped ones, then the library's."""
    found = []
    for folder in dirs if dirs is not None else [packaged_dir()]:
        for path in sorted(Path(folder).glob("*.py")):
            example = read_example(path)
            if example is not None:
                found.append(example)
    if dirs is not None:
        return found
    families = _builtin_families()
    return [replace(e, family=families.get(e.task or "")) for e in found] + library_examples()


# One build of the pool at a time (two threads' first prompts would trace level 1 twice).
_LOCK = threading.Lock()
_FAMILIES: dict[str, str] = {}
_LIBRARY: list[Example] = []


def _builtin_families() -> dict[str, str]:
    """Each covered built-in level-1 task's library family (traced once per process)."""
    from ..library import coverage
    from ..tasks.suite import load_suite

    with _LOCK:
        if not _FAMILIES:
            tasks, _ = load_suite("builtin/level1")
            _FAMILIES.update({r.task: r.family for r in coverage(tasks) if r.family})
        return dict(_FAMILIES)


def library_examples() -> list[Example]:
    """One example per library family: its shortest rendering of a built-in task, with the
    default knobs (the rendering CI verifies)."""
    from ..library import Generated, generate

    families = _builtin_families()
    with _LOCK:
        if not _LIBRARY:
            best: dict[str, Example] = {}
            for name, fam in sorted(families.items()):
                made = generate(name)
                if isinstance(made, Generated) and (
                        fam not in best or len(made.source) < len(best[fam].source)):
                    best[fam] = Example(f"library_{fam}", name, "triton", made.source, fam,
                                        rendered=True)
            _LIBRARY.extend(best[f] for f in sorted(best))
        return list(_LIBRARY)


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
    """Up to k examples in the language, shortest first (a short example teaches the format
    and the rules at the least cost in tokens), one per family, never for `task` itself or
    of its library family. Where the pool has library renderings, one file example at most:
    the shipped ones are the shortest and would otherwise take every place."""
    pool = list(example_library() if library is None else library)
    own = task_family(task) if language == "triton" else None
    files = 1 if any(e.rendered for e in pool) else k
    chosen, families = [], set()
    for e in sorted(pool, key=lambda e: len(e.source)):
        if e.language != language or solves(e, task) or len(e.source) > MAX_EXAMPLE_CHARS \
                or (own is not None and e.family == own) or len(chosen) == k:
            continue
        if (e.family is None or e.family not in families) and (e.rendered or files > 0):
            chosen.append(e)
            families.add(e.family)
            files -= not e.rendered
    return chosen


def task_family(task: Task) -> str | None:
    """The library family that covers `task`, or whose structure it has but declined it (bf16
    GEMM and attention); None where none does or the task cannot be traced."""
    from ..library import Match, NoMatch, match_task

    try:
        found = match_task(task)
    except Exception:  # a prompt is still built for a task the library cannot read
        return None
    return found.family if isinstance(found, Match | NoMatch) else None


def solves(example: Example, task: Task) -> bool:
    """By name, or by file for a built-in task loaded from its path under another name."""
    if example.task is None:
        return False
    return example.task == task.name or (BUILTIN / f"{example.task}.py").resolve() == task.path
