"""The candidate's process: `python -m warpsmith.verify.worker JOB_DIR`.

It imports the candidate, runs it on the inputs the trusted process prepared, and writes the
raw outputs (result.pt, tensors only) and a report (report.json). It never sees the expected
outputs and never decides a verdict; the trusted process does both.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
import time
import traceback
from pathlib import Path

import torch
from torch.utils._pytree import tree_leaves

from ..tasks.loader import load_task
from .dispatch import OpGuard
from .launches import LaunchLog
from .reference import case_inputs


def main(job_dir: str) -> None:
    job_path = Path(job_dir)
    job = json.loads((job_path / "job.json").read_text())
    report = {"stage": "setup", "error": None, "kernels": [], "threads_left": [],
              "forbidden_ops": [],
              "inputs_modified": [], "aliased": [], "stage_seconds": {}}
    try:
        run(job, job_path, report)
        report["stage"] = "done"
    except BaseException as e:  # the candidate's failure is data for the verdict
        report["error"] = {"type": type(e).__name__, "message": str(e)[:2000],
                           "traceback": _trim(traceback.format_exc())}
    finally:
        (job_path / "report.json").write_text(json.dumps(report))


def run(job: dict, job_path: Path, report: dict) -> None:
    clock = time.perf_counter()
    device = torch.device(job["device"])
    data = torch.load(job_path / "cases.pt", weights_only=True, map_location=device)
    log = LaunchLog(job["candidate"])
    log.install()
    _poison_fresh_memory()
    report["stage_seconds"]["setup"] = time.perf_counter() - clock
    report["stage"] = "import"
    start = time.perf_counter()
    module = _import_candidate(job["candidate"])
    report["stage_seconds"]["import"] = time.perf_counter() - start
    report["stage"] = "init"
    models = {name: _make_model(module, spec, device) for name, spec in data["shapes"].items()}
    report["stage"] = "inputs"
    start = time.perf_counter()
    task = load_task(job["task"])
    for case in data["cases"]:
        case["inputs"] = case_inputs(task, case["shape"], job["device"], case["seed"],
                                     case["variant"])
    report["stage_seconds"]["inputs"] = time.perf_counter() - start
    report["stage"] = "forward"
    start = time.perf_counter()
    allowed = tuple(task.allowed_torch)
    outputs = [_run_case(models[c["shape"]], c, i, (log, allowed), report, device)
               for i, c in enumerate(data["cases"])]
    report["stage_seconds"]["correctness"] = time.perf_counter() - start
    start = time.perf_counter()
    torch.save({"outputs": outputs}, job_path / "result.pt")
    report["stage_seconds"]["save_outputs"] = time.perf_counter() - start
    if job.get("timing"):
        from .timing import time_candidate

        report["stage"] = "timing"
        start = time.perf_counter()
        torch.use_deterministic_algorithms(False)  # no NaN fills inside timed calls
        report["timing"] = time_candidate(job, models, data, module_task=job["task"])
        report["stage_seconds"]["timing"] = time.perf_counter() - start


def _import_candidate(path: str):
    spec = importlib.util.spec_from_file_location("candidate", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["candidate"] = module  # dataclasses and triton look modules up by name
    spec.loader.exec_module(module)
    if not hasattr(module, "ModelNew"):
        raise AttributeError("the candidate defines no ModelNew")
    return module


def _make_model(module, spec: dict, device: torch.device) -> torch.nn.Module:
    with torch.device(device):
        model = module.ModelNew(*spec["init_inputs"])
    model = model.to(device)
    _load_matching(model, spec["state_dict"])
    return model.eval()


def _load_matching(model: torch.nn.Module, reference_state: dict) -> None:
    """Copy the reference's parameters where names and shapes match, so RNG order is moot."""
    own = model.state_dict()
    matching = {k: v for k, v in reference_state.items()
                if k in own and own[k].shape == v.shape}
    model.load_state_dict(matching, strict=False)


def _run_case(model, case: dict, index: int, guards, report: dict, device):
    log, allowed = guards
    inputs = case["inputs"]
    before = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
    threads = set(threading.enumerate())
    log.take()
    with torch.no_grad(), OpGuard(log, allowed) as ops:
        out = model(*inputs)
    report["forbidden_ops"].append(sorted(ops.forbidden))
    if device.type == "cuda":
        torch.cuda.synchronize()
    report["kernels"].append(log.take())
    report["threads_left"].append(
        [t.name for t in threading.enumerate() if t not in threads and t.is_alive()])
    outs = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]
    if any(isinstance(a, torch.Tensor) and not torch.equal(a, b)
           for a, b in zip(inputs, before, strict=True) if a is not None):
        report["inputs_modified"].append(index)
    if _aliases(outs, inputs):
        report["aliased"].append(index)
    return [t.detach().cpu() for t in outs]


def _aliases(outs, inputs) -> bool:
    ptrs = {x.untyped_storage().data_ptr() for x in inputs if isinstance(x, torch.Tensor)}
    return any(t.untyped_storage().data_ptr() in ptrs for t in outs)


def _poison_fresh_memory() -> None:
    """torch.empty and friends return NaN (floats) or the max integer, so a kernel that
    leaves part of its output unwritten cannot pass by luck."""
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True


def _trim(text: str, lines: int = 40) -> str:
    kept = text.strip().splitlines()
    return "\n".join(kept[-lines:])


if __name__ == "__main__":
    main(sys.argv[1])
