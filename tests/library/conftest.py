"""The verdict fixture the library's test modules share: every candidate a module lists,
rendered here and verified on the CPU interpreter, two at a time in fresh processes (the
interpreter must be set before triton is imported, and a module's verifications take
minutes). A module defines `verify_jobs()`, {label: (task, candidate source)}, and
`TIMEOUT_S`, the verifier's limit for one candidate; its tests take `verdicts` with the label
as their `stem` parameter, and only the selected tests' labels are verified."""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from warpsmith.config import PROFILES
from warpsmith.library import generate

OWN = Path(__file__).parent / "tasks"


def twin_jobs(twins, builtin=(), tiled=None) -> dict[str, tuple[str, str]]:
    """The usual jobs: each twin under tasks/ as generated, each built-in task by name, and
    `tiled` twins ({stem: knobs}) again with those knobs, labelled "tiled/<stem>"."""
    jobs = {stem: (str(OWN / f"{stem}.py"), generate(OWN / f"{stem}.py").source)
            for stem in twins}
    jobs |= {name: (name, generate(name).source) for name in builtin}
    jobs |= {f"tiled/{stem}": (str(OWN / f"{stem}.py"),
                               generate(OWN / f"{stem}.py", tune=tune).source)
             for stem, tune in (tiled or {}).items()}
    return jobs


def _verify(job: tuple[str, str, str, int]) -> tuple[str, str]:
    from warpsmith.verify.pipeline import verify

    task, path, source, timeout_s = job
    Path(path).write_text(source)
    verdict = verify(task, path, device="cpu",
                     # no decoys: they catch cheating, not a generator's mistakes
                     profile=replace(PROFILES["quick"], timeout_s=timeout_s, decoys=(0, 0)))
    return verdict.status, verdict.feedback


@pytest.fixture(scope="module")
def verdicts(request, tmp_path_factory) -> dict[str, tuple[str, str]]:
    """label -> (status, feedback) for each of the module's jobs."""
    module = request.module
    folder = tmp_path_factory.mktemp(module.__name__.rsplit(".", 1)[-1])
    wanted = _selected(request)
    listed = {label: job for label, job in module.verify_jobs().items() if label in wanted}
    jobs = [(task, str(folder / f"{label.replace('/', '_')}.py"), source, module.TIMEOUT_S)
            for label, (task, source) in listed.items()]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        return dict(zip(listed, pool.map(_verify, jobs), strict=True))


def _selected(request) -> set[str]:
    """The labels the selected tests of the module ask for (their "stem" parameter), so a
    focused run (-k) verifies only those."""
    return {item.callspec.params["stem"] for item in request.session.items
            if item.module is request.module and "verdicts" in item.fixturenames
            and "stem" in getattr(getattr(item, "callspec", None), "params", {})}
