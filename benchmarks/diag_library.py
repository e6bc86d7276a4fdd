"""Where a library kernel goes wrong, outside the verifier: for each named KernelBench task,
the library's kernel and the task's own model run on the same inputs (the task's sizes, or
`--scale`d down), and the candidate's outputs are compared with a float64 evaluation of the
reference. Prints one JSON line a task: the worst error, the share of outputs outside
1e-4 relative, and, for a strided output, which positions along the last dimension modulo 2
and 4 are wrong (a phase of a transposed convolution, say). A diagnostic, not a verdict.

    PYTHONPATH=src python benchmarks/diag_library.py .kb/KernelBench/level1 79_conv 75_conv

On the CPU set TRITON_INTERPRET=1 and use small --scale values.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from warpsmith.library import Generated, generate  # noqa: E402
from warpsmith.tasks.loader import build, load_task  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", type=Path)
    p.add_argument("prefixes", nargs="+", help="task file name prefixes, e.g. 79_ or 75_conv")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = p.parse_args()
    for prefix in args.prefixes:
        for path in sorted(args.folder.glob(f"{prefix}*.py")):
            print(json.dumps(diagnose(path, args.device)), flush=True)


def diagnose(path: Path, device: str) -> dict:
    task = load_task(path)
    row = {"task": path.stem}
    gen = generate(task)
    if not isinstance(gen, Generated):
        return row | {"error": f"not covered: {gen}"}
    inst = build(task, task.shapes[-1].name, device=device)
    module = _load(gen.source)
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    try:
        new = module.ModelNew(*inst.init_inputs).to(device)
        new.load_state_dict(inst.model.state_dict(), strict=False)
        with torch.no_grad():
            got = new(*inst.inputs)
            exact = inst.model.double()(*[x.double() if x.is_floating_point() else x
                                          for x in inst.inputs])
    except Exception as e:  # noqa: BLE001 - a diagnostic reports every failure
        return row | {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    return row | _compare(got, exact)


def _compare(got: torch.Tensor, exact: torch.Tensor) -> dict:
    got, exact = got.double(), exact.double()
    err = (got - exact).abs()
    scale = exact.abs().clamp_min(exact.pow(2).mean().sqrt().item() * 1e-3)
    wrong = err > 1e-4 * scale
    out = {"shape": list(got.shape), "max_abs": err.max().item(),
           "norm_rel": (err.norm() / exact.norm()).item(),
           "wrong": int(wrong.sum()), "numel": got.numel()}
    if got.dim() >= 2 and wrong.any():
        last = wrong.reshape(-1, got.shape[-1])
        idx = torch.arange(got.shape[-1], device=got.device)
        out["wrong_by_last_mod2"] = [int(last[:, idx % 2 == r].sum()) for r in range(2)]
        out["wrong_by_last_mod4"] = [int(last[:, idx % 4 == r].sum()) for r in range(4)]
        flat = wrong.flatten().nonzero().flatten()
        out["first_wrong"] = flat[:5].tolist()
        out["last_wrong"] = flat[-3:].tolist()
        out["got_exact_first"] = [[got.flatten()[i].item(), exact.flatten()[i].item()]
                                  for i in flat[:3].tolist()]
    return out


def _load(source: str):
    path = Path(tempfile.mkdtemp()) / "candidate.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("candidate", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["candidate"] = module
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
