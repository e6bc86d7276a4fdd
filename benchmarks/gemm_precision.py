"""The library's fp32 matmul with IEEE products against tf32x3 (the TF32X3 knob), beside eager
PyTorch (cuBLAS SGEMM, TF32 off), on KernelBench level-1 matmul tasks at their official
sizes: time (triton.testing.do_bench, median, ms) and the norm-wise error against a float64
product. A microbenchmark to choose the knob's default; the verdicts that count come from
`warpsmith bench`.

    PYTHONPATH=src python benchmarks/gemm_precision.py .kb/KernelBench/level1 1_ 2_ 6_ 17_
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
    p.add_argument("prefixes", nargs="+")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    for prefix in args.prefixes:
        for path in sorted(args.folder.glob(f"{prefix}*.py")):
            print(json.dumps(measure(path)), flush=True)


def measure(path: Path) -> dict:

    task = load_task(path)
    inst = build(task, task.shapes[-1].name, device="cuda")
    with torch.no_grad():
        exact = inst.model.double()(*[x.double() for x in inst.inputs])
        inst.model.float()
        row = {"task": path.stem, "eager": _row(lambda: inst.model(*inst.inputs), exact)}
        for knob in (0, 1):
            gen = generate(task, tune={"TF32X3": knob})
            if not isinstance(gen, Generated):
                return row | {"error": str(gen)}
            new = _load(gen.source).ModelNew(*inst.init_inputs).cuda()
            row[f"tf32x3={knob}"] = _row(lambda new=new: new(*inst.inputs), exact)
    for key in ("tf32x3=0", "tf32x3=1"):
        row[key]["speedup_vs_eager"] = round(row["eager"]["ms"] / row[key]["ms"], 3)
    return row


def _row(fn, exact) -> dict:
    import triton.testing

    out = fn().double()
    ms = triton.testing.do_bench(fn, warmup=50, rep=300)
    return {"ms": round(ms, 4), "norm_rel": float((out - exact).norm() / exact.norm())}


def _load(source: str):
    path = Path(tempfile.mkdtemp()) / "candidate.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"candidate_{id(path)}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
