"""Where a fresh candidate process spends its start-up on a GPU machine.

Each step runs in a fresh interpreter (as a verifier worker would) and prints seconds:
interpreter alone, `import torch`, CUDA context creation, `import triton`, the first Triton
compile with an empty cache, and the same compile with a warm cache.

    PYTHONPATH=src python3 benchmarks/startup_gpu.py
"""

import json
import os
import subprocess
import sys
import tempfile

STEPS = {
    "python": "pass",
    "import_torch": "import torch",
    "cuda_init": "import torch; torch.zeros(1, device='cuda'); torch.cuda.synchronize()",
    "import_triton": "import torch, triton, triton.language",
    "warpsmith_worker_imports": "import warpsmith.verify.child.worker",
    "first_triton_compile": """
import torch, triton, triton.language as tl
@triton.jit
def k(x, y, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y + o, tl.maximum(tl.load(x + o, mask=o < n), 0), mask=o < n)
x = torch.randn(4096, device='cuda'); y = torch.empty_like(x)
k[(4,)](x, y, 4096, B=1024); torch.cuda.synchronize()
""",
}


def timed(code: str, env: dict) -> float | str:
    script = f"import time; t=time.perf_counter()\n{code}\nprint(time.perf_counter()-t)"
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(script)  # a file, not -c: @triton.jit reads the kernel's source
    run = subprocess.run([sys.executable, f.name], env=env, capture_output=True, text=True)
    if run.returncode:
        return f"failed: {run.stderr.strip().splitlines()[-1:]}"
    return float(run.stdout.strip().splitlines()[-1])


def main() -> None:
    results = {}
    cache = tempfile.mkdtemp()
    env = dict(os.environ, TRITON_CACHE_DIR=cache)
    for name, code in STEPS.items():
        results[name] = timed(code, env)
    results["triton_compile_warm_cache"] = timed(STEPS["first_triton_compile"], env)
    start = __import__("time").perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    results["interpreter_wall"] = round(__import__("time").perf_counter() - start, 3)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
