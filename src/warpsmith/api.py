"""`warpsmith.verify` as the package exports it: the verifier's pipeline.verify, taking a
candidate as a file path, as its source text, or as a model's raw completion.

    warpsmith.verify("level1/relu", "kernel.py")              a path
    warpsmith.verify("level1/relu", source)                   text: a str holding a newline
    warpsmith.verify("level1/relu", completion=answer)        extracted as `optimize` does;
                                                              no code: status "no_code"

A str without a newline is a path (a candidate file cannot fit on one line: it defines a
class with a method), so a typo in a path still says "no candidate file", never verifies the
path's letters. Text is written to a private temporary file for the verifier, and the verdict
names the candidate `<source sha256:…>` rather than a file that is gone.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import replace
from pathlib import Path

from .errors import UsageError
from .types import Task, Verdict


def verify(task: Task | str | Path, candidate: Path | str | None = None, device: str | None = None,
           profile="quick", store=None, use_cache: bool = True,
           require_sandbox: bool = False, *, completion: str | None = None) -> Verdict:
    """The verdict on a candidate; the arguments after `candidate` are
    warpsmith.verify.pipeline.verify's."""
    if (candidate is None) == (completion is None):
        raise UsageError("give a candidate (a path or source text) or completion=, not both")
    options = dict(device=device, profile=profile, store=store, use_cache=use_cache,
                   require_sandbox=require_sandbox)
    if completion is not None:
        return _verify_completion(task, completion, options)
    if isinstance(candidate, str) and "\n" in candidate:
        return verify_text(task, candidate, options)
    from .verify.pipeline import verify as verify_file

    return verify_file(task, candidate, **options)


def verify_text(task: Task | str | Path, source: str, options: dict) -> Verdict:
    from .verify.pipeline import verify as verify_file

    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    with tempfile.TemporaryDirectory(prefix="warpsmith-candidate-") as folder:
        path = Path(folder) / f"candidate_{digest}.py"
        path.write_text(source)
        verdict = verify_file(task, path, **options)
    return replace(verdict, candidate=f"<source sha256:{digest}>")


def _verify_completion(task: Task | str | Path, completion: str, options: dict) -> Verdict:
    from .serve.completions import from_completion
    from .tasks.suite import resolve_task

    task = task if isinstance(task, Task) else resolve_task(task)
    found = from_completion(completion, task.name, options["device"] or "")
    if found.verdict is not None:
        return found.verdict
    return verify_text(task, found.source, options)
