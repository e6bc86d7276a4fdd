"""Where a bench's candidates come from, chosen by a spec string:

    dir:PATH                    candidate files that already exist (kernels made elsewhere)
    llm:STRATEGY:MODEL_SPEC     warpsmith.search.optimize, once per (task, sample)
    library                     the offline kernel library (warpsmith.library), no model
    reference                   each task's own reference, a self-check of the suite

A generator is anything with `produce(job) -> Produced`: either a candidate file, which the
runner verifies, or (for a generator that verifies while it searches) the verdict itself.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..errors import UsageError
from ..search.budget import Budget
from ..tasks.suite import BUILTIN
from ..types import Task, Verdict


@dataclass(frozen=True)
class Job:
    task: Task
    sample: int
    device: str
    profile: str
    budget: Budget  # this item's share of the bench's budget
    db: Path
    workdir: Path  # where generated files go
    resume_run: str | None = None  # the search this item started before a crash, if any
    on_run: Callable[[str], None] = lambda run_id: None  # a search exists: record its id
    executor: object = None  # where a search verifies (warpsmith.executors); None: inline


@dataclass(frozen=True)
class Produced:
    candidate: Path | None = None
    verdict: Verdict | None = None
    status: str | None = None  # when there is neither: no_candidate, llm_error
    run_id: str | None = None
    cost_usd: float | None = None  # None: nothing was bought (a folder of files)
    spend: dict = field(default_factory=dict)
    note: str = ""


class Generator(Protocol):
    def produce(self, job: Job) -> Produced: ...


@dataclass(frozen=True)
class Options:
    """Settings of the llm generator's searches (a folder ignores them)."""

    language: str = "triton"
    width: int = 1  # best-of-n: samples per search; refine: chains
    depth: int = 4  # refine: rounds per chain
    temperature: float | None = None
    tune: bool = True  # the generic tuner as every search's final step (GPU only)


class DirGenerator:
    """A folder of candidate files, matched to tasks by file name. For task `level1/relu`,
    sample 0, the first of these that exists is taken:

        PATH/level1/relu.py              the suite's own layout
        PATH/relu.py                     the task's file name
        PATH/level1_relu.py              level and name
        PATH/level1_relu_best.py         what `warpsmith optimize` writes

    Sample S (0 included) also matches those names with `_sample_S` before `.py`
    (`relu_sample_2.py`), and KernelBench run folders (`runs/NAME/` of its
    generate_samples.py): `level_1_problem_19_sample_S_kernel.py` for task file
    `19_ReLU.py` of a suite's `level1/`.
    """

    def __init__(self, root: Path):
        self.root = root

    def produce(self, job: Job) -> Produced:
        found = find_candidate(self.root, job.task, job.sample)
        if found is None:
            return Produced(status="no_candidate",
                            note=f"no file for sample {job.sample} in {self.root}")
        return Produced(candidate=found)


def find_candidate(root: Path, task: Task, sample: int) -> Path | None:
    for name in candidate_names(task, sample):
        path = root / name
        if path.is_file():
            return path
    pattern = kernelbench_pattern(task, sample)
    matches = sorted(root.glob(pattern)) if pattern else []
    return matches[0] if matches else None


def candidate_names(task: Task, sample: int) -> list[str]:
    stem = task.title.rsplit("/", 1)[-1]  # a folder's relu@1a2b3c4d is still relu.py
    flat = task.title.replace("/", "_")
    leveled = [f"{task.level}_{stem}"] if task.level else []
    bases = list(dict.fromkeys([task.title, stem, flat, *leveled]))
    plain = [f"{b}.py" for b in bases] + [f"{flat}_best.py"] if sample == 0 else []
    return plain + [f"{b}_sample_{sample}.py" for b in bases]


def kernelbench_pattern(task: Task, sample: int) -> str | None:
    """KernelBench numbers its problems by the task file's leading integer."""
    problem = re.match(r"(\d+)_", task.title.rsplit("/", 1)[-1])
    if problem is None:
        return None
    level = re.search(r"(\d+)$", task.level or "")
    return (f"level_{level.group(1) if level else '*'}_problem_{int(problem.group(1))}"
            f"_sample_{sample}_kernel.py")


class LLMGenerator:
    """Each (task, sample) is one `warpsmith optimize` run with this strategy and model,
    within the item's share of the bench's budget; its best verified kernel is the sample.
    Runs and attempts are recorded as `optimize` records them (`warpsmith runs show`)."""

    def __init__(self, strategy: str, model: str, options: Options, provider_settings=None):
        self.strategy, self.model = strategy, model
        self.options, self.provider_settings = options, provider_settings

    def produce(self, job: Job) -> Produced:
        from ..search import optimize, resume

        out = job.workdir / f"{job.task.title.replace('/', '_')}_s{job.sample}.py"
        providers = self.provider_settings
        if job.resume_run:
            result = resume(job.resume_run, job.db, providers, budget=job.budget,
                            executor=job.executor)
        else:
            result = optimize(_task_ref(job.task), self.model, self.strategy,
                              self._settings(job), job.budget, out, job.db, providers,
                              on_start=job.on_run, executor=job.executor)
        return _from_result(result, job.db)

    def _settings(self, job: Job):
        from ..search import Settings

        o = self.options
        return Settings(language=o.language, device=job.device, profile=job.profile,
                        temperature=o.temperature, samples=o.width, depth=o.depth,
                        stream=job.sample, tune=o.tune)


def _task_ref(task: Task) -> str:
    """A built-in name where the task is the built-in one (runs list shows it), else the
    file's path: a folder's `level1/x` must not resolve to the built-in `level1/x`."""
    builtin = BUILTIN / f"{task.name}.py"
    if builtin.is_file() and builtin.resolve() == task.path.resolve():
        return task.name
    return str(task.path.resolve())


def _from_result(result, db: Path) -> Produced:
    from ..store.runs import RunStore

    spend = dict(result.spend)
    common = {"run_id": result.run_id, "cost_usd": spend.get("usd", 0.0), "spend": spend}
    if result.best is not None:
        return Produced(candidate=result.best_path, verdict=result.best.verdict, **common)
    store = RunStore(db)
    attempts = store.attempts(result.run_id)
    store.close()
    judged = [a for a in attempts if a.verdict is not None]
    if judged:  # the last answer's verdict says how far the search got
        return Produced(verdict=judged[-1].verdict, **common)
    if attempts:
        return Produced(status="llm_error", note=attempts[-1].error or "", **common)
    why = result.note or (f"budget reached ({result.stopped_by}) before any answer"
                          if result.stopped_by else "the search ended before any answer")
    return Produced(status="no_candidate", note=why, **common)


Factory = Callable[[str, Options, object], Generator]


def _dir(rest: str, options: Options, provider_settings) -> Generator:
    root = Path(rest).expanduser()
    if not rest or not root.is_dir():
        raise UsageError(f"generator dir:{rest}: no such folder of candidate files")
    return DirGenerator(root.resolve())


def _llm(rest: str, options: Options, provider_settings) -> Generator:
    from ..llm import parse_spec
    from ..search import strategy as get_strategy

    name, sep, model = rest.partition(":")
    if not sep or not model:
        raise UsageError(f"generator llm:{rest}: expected llm:STRATEGY:MODEL_SPEC, e.g. "
                         "llm:refine:openai:gpt-4.1")
    get_strategy(name)
    parse_spec(model)
    return LLMGenerator(name, model, options, provider_settings)


def _library(rest: str, options: Options, provider_settings) -> Generator:
    from ..search.registry import LIBRARY

    if rest:
        raise UsageError(f"generator library:{rest}: the library takes no argument")
    return LLMGenerator(LIBRARY, LIBRARY, options, provider_settings)


def _reference(rest: str, options: Options, provider_settings) -> Generator:
    from .selfcheck import ReferenceGenerator

    if rest:
        raise UsageError(f"generator reference:{rest}: the reference takes no argument")
    return ReferenceGenerator()


GENERATORS: dict[str, Factory] = {"dir": _dir, "llm": _llm, "library": _library,
                                  "reference": _reference}
FORMS = ("dir:PATH", "llm:STRATEGY:MODEL_SPEC", "library", "reference")
BARE = ("library", "reference")  # forms without a colon


def make_generator(spec: str, options: Options | None = None,
                   provider_settings=None) -> Generator:
    kind, sep, rest = spec.partition(":")
    if (not sep and kind not in BARE) or kind not in GENERATORS:
        raise UsageError(f"unknown generator {spec!r} (valid forms: {', '.join(FORMS)})")
    return GENERATORS[kind](rest, options or Options(), provider_settings)


def canonical(spec: str) -> str:
    """The spec as stored with a bench: a folder as an absolute path, so resume works from
    any directory."""
    kind, _, rest = spec.partition(":")
    return f"dir:{Path(rest).expanduser().resolve()}" if kind == "dir" else spec


def options_from(data: dict) -> Options:
    names = {f.name for f in dataclasses.fields(Options)}
    return Options(**{k: v for k, v in data.items() if k in names})
