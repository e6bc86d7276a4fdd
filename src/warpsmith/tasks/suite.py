"""Suites: a folder of task files, its sub-folders as levels; `builtin` is the shipped one."""

from __future__ import annotations

from pathlib import Path

from ..errors import TaskError, UsageError
from ..types import Task
from .loader import load_task

BUILTIN = Path(__file__).parent / "builtin"


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
    """(name, level, path) of every task file under root, levels from sub-folders."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name.startswith("_"):
            continue
        rel = path.relative_to(root)
        level = rel.parts[0] if len(rel.parts) > 1 else None
        found.append((rel.with_suffix("").as_posix(), level, path))
    return found


def load_suite(spec: str | Path) -> tuple[list[Task], list[TaskError]]:
    """Every loadable task and, separately, every file that failed to load."""
    root = suite_root(spec)
    prefix = _builtin_prefix(root)
    tasks, errors = [], []
    for name, level, path in task_files(root):
        level = level or (prefix.rstrip("/").split("/")[-1] if prefix else None)
        try:
            tasks.append(load_task(path, name=f"{prefix}{name}" if prefix else name, level=level))
        except TaskError as e:
            errors.append(e)
    return tasks, errors


def resolve_task(ref: str | Path) -> Task:
    """A task file path, or a built-in name such as 'level1/relu'."""
    path = Path(ref)
    if path.is_file():
        return load_task(path)
    name = str(ref).removeprefix("builtin/").removesuffix(".py")
    builtin = BUILTIN / f"{name}.py"
    if builtin.is_file():
        level = name.split("/")[0] if "/" in name else None
        return load_task(builtin, name=name, level=level)
    raise UsageError(f"no task {ref}: give a task file path or a built-in name "
                     "(see `warpsmith tasks list builtin`)")


def _builtin_prefix(root: Path) -> str:
    try:
        rel = root.resolve().relative_to(BUILTIN.resolve())
    except ValueError:
        return ""
    return "" if rel == Path(".") else rel.as_posix() + "/"
