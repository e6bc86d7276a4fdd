"""Task references in a request, resolved to loaded tasks: by name inside the suites the
service was given, or from source when that is allowed."""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from pathlib import Path

from ..errors import UsageError, WarpsmithError
from ..tasks import BUILTIN, load_task
from ..types import Task
from .models import RewardSettings, TaskSource

NAME = re.compile(r"[A-Za-z0-9_.\-]+(/[A-Za-z0-9_.\-]+)*")


class TaskResolver:
    """Task names resolve only inside the built-in suite and the configured folders: a name is
    never taken as a path, since loading a task file runs it in this process."""

    def __init__(self, settings: RewardSettings, source_dir: Path, keep: int = 512):
        self.roots = [BUILTIN, *settings.task_dirs]
        self.allow_source = settings.allow_task_source
        self.source_dir = source_dir
        self.cache: OrderedDict[tuple, Task] = OrderedDict()
        self.keep = keep
        self.lock = threading.Lock()  # importing task modules is not thread-safe

    def resolve(self, ref: str | TaskSource) -> Task | str:
        """The task, or why not (failures as data: one bad item never sinks its batch)."""
        try:
            with self.lock:
                return self._named(ref) if isinstance(ref, str) else self._inline(ref)
        except WarpsmithError as e:
            return str(e)

    def _named(self, ref: str) -> Task:
        name = ref.removeprefix("builtin/").removesuffix(".py")
        if not NAME.fullmatch(name) or ".." in name.split("/"):
            raise UsageError(f"bad task name {ref!r}: give a built-in name such as level1/relu")
        return self._cached(("name", name), lambda: self._load_named(name))

    def _load_named(self, name: str) -> Task:
        for root in self.roots:
            path = root / f"{name}.py"
            if path.is_file() and path.resolve().is_relative_to(root.resolve()):
                level = name.split("/")[0] if "/" in name else None
                return load_task(path, name=name, level=level)
        where = "the built-in suite" + (" or --tasks folders" if len(self.roots) > 1 else "")
        raise UsageError(f"no task {name!r} in {where} (see `warpsmith tasks list builtin`)")

    def _inline(self, ref: TaskSource) -> Task:
        if not self.allow_source:
            raise UsageError("this service does not accept task source (it runs unsandboxed "
                             "in the service): start it with --allow-task-source, or send a "
                             "task name")
        digest = hashlib.sha256(ref.source.encode()).hexdigest()[:16]
        name = ref.name or f"inline-{digest[:12]}"
        if not NAME.fullmatch(name):
            raise UsageError(f"bad task name {name!r}: letters, digits, _ . - and /")

        def load() -> Task:
            path = self.source_dir / f"{digest}.py"
            path.write_text(ref.source)
            return load_task(path, name=name)

        return self._cached(("source", digest, name), load)

    def _cached(self, key: tuple, load) -> Task:
        if key in self.cache:
            self.cache.move_to_end(key)
            return self.cache[key]
        task = self.cache[key] = load()
        while len(self.cache) > self.keep:
            self.cache.popitem(last=False)
        return task
