"""One search run's shared state and its single unit of work, the attempt: ask the model,
extract the candidate, verify it, record everything. Strategies only decide which prompts to
send in which order (one_shot.py, best_of_n.py, refine.py).

Resuming: an attempt already in the store under the same (chain, depth, sample) is replayed
from there (no call, no verification), and its recorded spend counts against the budget
again, so a resumed run stops where an uninterrupted one would have.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass
from pathlib import Path

from ..llm.base import Provider, Response
from ..prompts import Prompt, extract
from ..store.runs import Attempt, RunStore
from ..types import Task, Verdict
from .budget import Budget, Spend
from .scheduler import Scheduler


@dataclass(frozen=True)
class Settings:
    language: str = "triton"
    device: str = "cpu"
    profile: str = "quick"
    gpu: str = "H200"  # the hardware card and floor shown in prompts
    temperature: float | None = None
    max_tokens: int = 16384
    samples: int = 4  # best-of-n: samples; refine: chains
    depth: int = 4  # refine: rounds per chain
    # Independent repeats of a whole search (a benchmark's samples) draw their own answers:
    # the stream number goes into every request's cache key, never to the model.
    stream: int = 0
    start: str | None = None  # tune: the candidate file to start from
    tune: bool = True  # the generic tuner as the final step of every strategy (search/tuner.py)
    judge_model: str | None = None  # judge: the judge's model spec (None: the coder's)


class RunContext:
    def __init__(self, run_id: str, task: Task, provider: Provider, store: RunStore,
                 verify: Callable[[Task, Path], Verdict], budget: Budget, settings: Settings,
                 workdir: Path, on_attempt: Callable[[Attempt], None] = lambda a: None,
                 slots: int = 1, judge_provider: Provider | None = None,
                 lend_gpu: Callable[[], ContextManager[str | None]] | None = None):
        self.run_id, self.task, self.provider, self.store = run_id, task, provider, store
        self.judge_provider = judge_provider or provider
        self.verify_fn, self.budget, self.settings = verify, budget, settings
        self.workdir, self.on_attempt = workdir, on_attempt
        self.spend = Spend()
        self.best: Attempt | None = None
        self.stopped: str | None = None  # the budget limit reached, once one is
        self.interrupted = False
        self.note = ""  # why a strategy made no attempt, when it says
        # As many verifications at once as the executor has GPUs (or workers): one timed
        # measurement per GPU, the executor's workers keep them apart (scheduler.py).
        self.lanes = Scheduler(gpu_slots=slots)
        self._lend_gpu = lend_gpu or (lambda: contextlib.nullcontext(None))
        self._lock = threading.Lock()

    def attempt(self, prompt: Prompt, chain: int = 0, depth: int = 0, sample: int = 0,
                parent: Attempt | None = None) -> Attempt | None:
        """None once the budget is spent (the run then stops cleanly)."""
        done = self.store.find(self.run_id, chain, depth, sample)
        if done is not None:
            return self._finish(dataclasses.replace(done, replayed=True))
        if self._out_of_budget():
            return None
        request = prompt.request(temperature=self.settings.temperature,
                                 max_tokens=self.settings.max_tokens,
                                 sample=self.settings.stream * 100_000 + sample)
        with self.lanes.llm.hold():
            response = self.provider.complete(request)
        if self.interrupted:  # Ctrl-C while the call was out: the response cache keeps it
            return None
        attempt = self._from_response(prompt, response, chain, depth, sample, parent)
        return self._finish(self.store.add(attempt))

    def attempt_source(self, source: str, note: str, chain: int = 0, depth: int = 0,
                       sample: int = 0, parent: Attempt | None = None) -> Attempt | None:
        """An attempt whose candidate came from no model (the library, a tuner variant);
        None once the budget is spent or the run was interrupted."""
        done = self.store.find(self.run_id, chain, depth, sample)
        if done is not None:
            return self._finish(dataclasses.replace(done, replayed=True))
        if self._out_of_budget():
            return None
        attempt = Attempt(self.run_id, chain, depth, sample, "", [], response=note,
                          source=source, parent_id=parent.id if parent else None)
        attempt.verdict = self._verify(source, chain, depth, sample)
        attempt.status = attempt.verdict.status
        return self._finish(self.store.add(attempt))

    def parallel(self, fn: Callable, items) -> list:
        """fn over items on worker threads. On Ctrl-C no new attempt starts; calls already
        out finish (their answers land in the response cache) and the interrupt goes on."""
        items = list(items)
        pool = ThreadPoolExecutor(max_workers=max(1, min(8, len(items))))
        try:
            return list(pool.map(fn, items))
        except KeyboardInterrupt:
            self.interrupted = True
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _out_of_budget(self) -> bool:
        with self._lock:
            self.stopped = self.stopped or self.spend.exhausted(self.budget)
            return self.stopped is not None or self.interrupted

    def _from_response(self, prompt: Prompt, response: Response, chain: int, depth: int,
                       sample: int, parent: Attempt | None) -> Attempt:
        attempt = Attempt(self.run_id, chain, depth, sample, "llm_error",
                          [dataclasses.asdict(m) for m in prompt.messages()],
                          usage=dataclasses.asdict(response.usage), cost_usd=response.cost_usd,
                          llm_cached=response.cached, parent_id=parent.id if parent else None)
        if not response.ok:
            attempt.error = f"{response.error.kind}: {response.error.message}"
            return attempt
        found = extract(response.text)
        attempt.response = response.text
        attempt.reasoning = "\n".join(r for r in (response.choices[0].reasoning,
                                                   found.reasoning) if r)
        if not found.ok:
            attempt.verdict = self._no_code_verdict(found.problem)
        else:
            attempt.source = found.code
            attempt.verdict = self._verify(found.code, chain, depth, sample)
        attempt.status = attempt.verdict.status
        return attempt

    @contextlib.contextmanager
    def gpu_slot(self) -> Iterator[str | None]:
        """Held by what runs a candidate on a GPU outside the executor (the judge's profiler,
        the tuner's ranking): every GPU slot of this run, and one GPU the executor lends
        (its CUDA_VISIBLE_DEVICES entry, yielded; None: this process's default GPU), so no
        verification, of this run or of another sharing the executor, is timed on it
        meanwhile (scheduler.py)."""
        with self.lanes.gpu.exclusive(), self._lend_gpu() as visible:
            yield visible

    def _verify(self, source: str, chain: int, depth: int, sample: int) -> Verdict:
        path = self.workdir / f"c{chain}-d{depth}-s{sample}.py"
        path.write_text(source)
        with self.lanes.gpu.hold():
            return self.verify_fn(self.task, path)

    def _no_code_verdict(self, problem: str) -> Verdict:
        return Verdict(status="compile_error", task=self.task.name, candidate="",
                       device=self.settings.device, reasons=(problem,),
                       feedback=f"status: compile_error. {problem}")

    def _finish(self, attempt: Attempt) -> Attempt:
        paid = not attempt.llm_cached and bool(attempt.prompt)  # a library attempt costs nothing
        tokens = sum(attempt.usage.get(k, 0) for k in ("input_tokens", "output_tokens"))
        gpu_s = 0.0
        if attempt.verdict and attempt.verdict.device == "cuda" and not attempt.verdict.cached:
            gpu_s = attempt.verdict.stage_seconds.get("candidate_process", 0.0)
        self.spend.add(tokens=tokens if paid else 0, usd=attempt.cost_usd if paid else 0.0,
                       gpu_s=gpu_s, call=paid)
        with self._lock:
            if better(attempt, self.best):
                self.best = attempt
        self.on_attempt(attempt)
        return attempt


def better(a: Attempt, b: Attempt | None) -> bool:
    """Passed beats not passed; among passed, the higher speedup (untimed counts as 0)."""
    if not a.passed:
        return False
    if b is None:
        return True
    return (a.verdict.speedup_vs_eager or 0.0) > (b.verdict.speedup_vs_eager or 0.0)
