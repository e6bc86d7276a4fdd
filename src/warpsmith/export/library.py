"""PyTorch -> Triton pairs from the offline generator: `export --from-library SUITE`.

For each task of the suite the library writes its candidate (library.generate), the verifier
proves it on this machine, and a verified one becomes one sft record in the schema of the
records made from optimize runs (records.SFT): the prompt `optimize` would send for the task
(without examples, which are other library kernels), the kernel as the answer a model is
asked to give (one fenced python block), and its provenance and verdict. A task the library
does not cover, or whose kernel does not pass, gives no record and is counted by why; an
exception from one verification is counted too and never ends the export.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

from .. import __version__
from ..types import Task, Verdict
from .records import SFT, verdict_summary

NOT_COVERED = "not covered by the library"
VERIFIER_FAILED = "the verifier raised"  # our failure, never the kernel's: said, not hidden


def library_records(tasks: list[Task], verify: Callable[[Task, str], Verdict],
                    skipped: Counter, progress: Callable[[str], None] = lambda line: None
                    ) -> Iterator[dict]:
    """One sft record per task whose library kernel `verify(task, source)` passes; the
    others counted in `skipped` under NOT_COVERED, VERIFIER_FAILED or `not passed: STATUS`."""
    from ..library import NotCovered, generate

    for i, task in enumerate(tasks, 1):
        generated = generate(task)
        if isinstance(generated, NotCovered):
            skipped[NOT_COVERED] += 1
            progress(f"[{i}/{len(tasks)}] {task.name}: not covered")
            continue
        try:
            verdict = verify(task, generated.source)
        except Exception as e:  # noqa: BLE001 (one task's failure never ends the export)
            skipped[VERIFIER_FAILED] += 1
            progress(f"[{i}/{len(tasks)}] {task.name}: the verifier raised "
                     f"{type(e).__name__}: {e}")
            continue
        progress(f"[{i}/{len(tasks)}] {task.name}: {verdict.status}")
        if not verdict.passed:
            skipped[f"not passed: {verdict.status}"] += 1
            continue
        yield record(task, generated, verdict)


def record(task: Task, generated, verdict: Verdict) -> dict:
    """The sft record of one verified library kernel (docs/datasets.md, "from the library")."""
    from ..prompts.build import first_prompt

    prompt = first_prompt(task, examples=[])
    answer = f"```python\n{generated.source.rstrip()}\n```"
    return {"schema": SFT, "id": f"library/{task.name}", "run_id": None, "attempt_id": None,
            "model": None, "strategy": "library",
            "task": {"name": task.name, "source": task.source},
            "prompt": [{"role": m.role, "content": m.content} for m in prompt.messages()],
            "completion": [{"role": "assistant", "content": answer}], "response": answer,
            "reasoning": None, "source": generated.source,
            "verdict": verdict_summary(verdict),
            "provenance": {"generator": "library", "family": generated.family,
                           "kernels": generated.kernels, "knobs": dict(generated.tune),
                           "warpsmith": __version__,
                           "verifier": verdict.environment.get("verifier")}}
