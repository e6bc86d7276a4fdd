"""Suites: a folder of task files, its sub-folders as levels; `builtin` is the shipped one.

A KernelBench checkout loads as its users expect: a folder named `level1` (or a sub-folder of
that name) is level 1, and tasks come in problem order (1, 2, …, 100), not text order.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..errors import TaskError, UsageError
from ..types import NAME_MARK, Task
from .loader import load_task

BUILTIN = Path(__file__).parent / "builtin"
LEVEL_FOLDER = re.compile(r"level_?(\d+)$", re.IGNORECASE)
# import names whose pip package is named otherwise
PIP_NAMES = {"cv2": "opencv-python", "PIL": "pillow", "sklearn": "scikit-learn",
             "yaml": "pyyaml", "skimage": "scikit-image"}
MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


def suite_root(spec: str | Path) -> Path:
    """'builtin', 'builtin/level1' or a folder path -> the folder."""
    text = str(spec)
    if text == "builtin" or text.startswith("builtin/"):
        root = BUILTIN / text.removeprefix("builtin").lstrip("/")
    else:
        root = Path(text)
    if not root.is_dir():
        raise UsageError(f"no suite at {spec}: give 'builtin', 'builtin/levelN' "
                         "or a folder of task files")
    return root


def task_files(root: Path) -> list[tuple[str, str | None, Path]]:
    """(name, level, path) of every task file under root, in problem order; the level is the
    first sub-folder (`level1` -> 'level1'), or the root's own when it is a level folder."""
    found = []
    own_level = level_of(root.resolve().name)
    for path in sorted(root.rglob("*.py"), key=lambda p: natural_key(p.relative_to(root))):
        if path.name.startswith("_"):
            continue
        rel = path.relative_to(root)
        level = (level_of(rel.parts[0]) or rel.parts[0]) if len(rel.parts) > 1 else own_level
        found.append((rel.with_suffix("").as_posix(), level, path))
    return found


def level_of(folder: str) -> str | None:
    """'level1', 'level_1' or 'kb_level1' -> 'level1'; other names -> None."""
    match = LEVEL_FOLDER.search(folder)
    return f"level{int(match.group(1))}" if match else None


def level_number(level: str | None) -> int | None:
    match = LEVEL_FOLDER.search(level or "")
    return int(match.group(1)) if match else None


def natural_key(path: Path) -> tuple:
    """Each part split into digit runs and text, so '2_x' < '10_x' < '100_x'."""
    return tuple(tuple((0, int(tok), "") if tok.isdigit() else (1, 0, tok.lower())
                       for tok in re.findall(r"\d+|\D+", part))
                 for part in path.with_suffix("").parts)


def load_suite(spec: str | Path) -> tuple[list[Task], list[TaskError]]:
    """Every loadable task and, separately, every file that failed to load."""
    root = suite_root(spec)
    prefix = _builtin_prefix(root)
    builtin = bool(prefix) or root.resolve() == BUILTIN.resolve()
    tasks, errors = [], []
    for name, level, path in task_files(root):
        level = level or (prefix.rstrip("/").split("/")[-1] if prefix else None)
        try:
            tasks.append(load_task_explained(
                path, name=f"{prefix}{name}" if builtin else stored_name(name, path),
                level=level))
        except TaskError as e:
            errors.append(e)
    return tasks, errors


def load_task_explained(path: Path, name: str | None = None, level: str | None = None) -> Task:
    """load_task, with what to do next added where a module the task imports is missing."""
    try:
        return load_task(path, name=name, level=level)
    except TaskError as e:
        raise with_install_hint(e) from None


def with_install_hint(error: TaskError) -> TaskError:
    match = MISSING_MODULE.search(error.message)
    if match is None:
        return error
    module = match.group(1).split(".")[0]
    package = PIP_NAMES.get(module, module)
    return TaskError(error.path, f"{error.message} (the task needs the package {package!r}: "
                                 f"pip install {package}, then load the suite again)")


def resolve_task(ref: str | Path) -> Task:
    """A task file path, or a built-in name such as 'level1/relu'."""
    path = Path(ref)
    if path.is_file():
        inside = _in_builtin(path)
        return load_task_explained(path, name=None if inside else stored_name(path.stem, path),
                                   level=level_of(path.resolve().parent.name))
    name = str(ref).removeprefix("builtin/").removesuffix(".py")
    builtin = BUILTIN / f"{name}.py"
    if builtin.is_file():
        level = name.split("/")[0] if "/" in name else None
        return load_task(builtin, name=name, level=level)
    raise UsageError(f"no task {ref}: give a task file path or a built-in name "
                     "(see `warpsmith tasks list builtin`)")


def stored_name(name: str, path: Path) -> str:
    """NAME@DIGEST for a task outside the built-in suite, DIGEST the first 8 hex digits of
    the file's SHA-256: two folders' relu.py stay apart in the store (verdicts, benches,
    find_kernels), an edited file is a new task, and a copy of a file is the same task."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]
    return f"{name}{NAME_MARK}{digest}"


def _in_builtin(path: Path) -> bool:
    return path.resolve().is_relative_to(BUILTIN.resolve())


def _builtin_prefix(root: Path) -> str:
    try:
        rel = root.resolve().relative_to(BUILTIN.resolve())
    except ValueError:
        return ""
    return "" if rel == Path(".") else rel.as_posix() + "/"
