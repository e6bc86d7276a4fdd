"""A verification as plain data, for executors whose verifier runs in another process: the
job that goes out, the answer that comes back, and the verdict the caller makes of it.

Only JSON-able dicts cross the boundary (never pickled exceptions or objects). A job names
files by path where the worker shares this machine's disk (local), or carries their text where
it may not (Ray: the worker writes them to a temporary folder and verifies those).
"""

from __future__ import annotations

import shutil
import tempfile
import traceback
from dataclasses import replace
from pathlib import Path

from ..errors import UsageError, WarpsmithError
from ..types import Task, Verdict


def make_job(task: Task, candidate: Path, device: str | None, profile: str,
             store_path: Path | None = None, portable: bool = False) -> dict:
    """`portable` sends the sources, for a worker that cannot read our files. `hide`: the
    folders this process hides from candidates (a store given by --db): a worker process
    hides them too, or its candidates could read them."""
    from ..verify.isolation import jail

    if not candidate.is_file():  # the same error verify() gives, before anything is sent
        raise UsageError(f"no candidate file {candidate}")
    store = str(Path(store_path).resolve()) if store_path else None
    job = {"task": {"name": task.name, "level": task.level, "path": str(task.path)},
           "candidate": {"path": str(candidate.resolve())}, "device": device, "profile": profile,
           "store": store,
           "hide": jail.hidden_extra() + ([str(Path(store).parent)] if store else [])}
    if portable:
        job["task"]["source"] = task.source
        job["candidate"]["source"] = candidate.read_text()
    return job


def run_job(job: dict) -> dict:
    """Worker side: the job's verification; a verifier that raises becomes an answer too, so
    the worker lives on for the next job."""
    try:
        return {"verdict": _verify(job)}
    except WarpsmithError as e:  # a bad task or file: the caller's usage error, as inline
        return {"usage_error": str(e)}
    except Exception:  # a bug in the verifier: reported, never hidden as a candidate failure
        return {"error": traceback.format_exc(limit=20)}


def _verify(job: dict) -> dict:
    from ..store import VerdictStore, verdict_to_dict
    from ..verify.isolation import jail
    from ..verify.pipeline import verify

    for hidden in job.get("hide") or ():
        jail.hide(hidden)
    folder = Path(tempfile.mkdtemp(prefix="warpsmith-exec-")) if "source" in job["task"] \
        else None
    store = VerdictStore(job["store"]) if job.get("store") else None
    try:
        task, candidate = _files(job, folder)
        return verdict_to_dict(verify(task, candidate, device=job["device"],
                                      profile=job["profile"], store=store))
    finally:
        if store is not None:
            store.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _files(job: dict, folder: Path | None) -> tuple[Task, Path]:
    from ..tasks.loader import load_task

    t, c = job["task"], job["candidate"]
    task_path, candidate = Path(t["path"]), Path(c["path"])
    if folder is not None:  # keep the file names: a task file's stem can be its name
        (folder / "task").mkdir()
        task_path = folder / "task" / task_path.name
        task_path.write_text(t["source"])
        candidate = folder / candidate.name
        candidate.write_text(c["source"])
    return load_task(task_path, name=t["name"], level=t["level"]), candidate


def verdict_of(answer: dict, candidate: Path) -> Verdict:
    """Caller side: the verdict in an answer, naming our candidate file (a portable job's
    worker verified a copy); the errors an inline verify would raise, raised here."""
    from ..store import verdict_from_dict

    if "usage_error" in answer:
        raise UsageError(answer["usage_error"])
    if "error" in answer:
        raise RuntimeError(f"the verifier failed in an executor's worker:\n{answer['error']}")
    return replace(verdict_from_dict(answer["verdict"]), candidate=str(candidate))


def crashed(task: Task, candidate: Path, device: str | None, why: str) -> Verdict:
    """The verdict when the verifier's own process died twice on this job. It is not cached
    (a worker lost to the machine says nothing about the candidate)."""
    from ..verify.feedback import feedback_text

    verdict = Verdict(status="crashed", task=task.name, candidate=str(candidate),
                      device=device or "unknown",
                      reasons=(f"the executor's worker died while verifying, twice ({why}); "
                               "the job was run again once and lost again",))
    return replace(verdict, feedback=feedback_text(verdict))
