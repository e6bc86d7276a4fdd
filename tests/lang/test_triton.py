"""Autotuned Triton kernels under the interpreter (issue 17): the autotuner takes its configs
in turn, one per call, instead of asking a GPU driver to time them, so the CPU's checked calls
check each; with the interpreter off nothing changes."""

import os
import subprocess
import sys
from pathlib import Path

GOOD = Path(__file__).parents[1] / "kernels" / "good" / "autotune_configs_triton.py"
RUN = f"""
import importlib.util, torch
import warpsmith.lang
from triton.runtime.autotuner import Autotuner
spec = importlib.util.spec_from_file_location("candidate", {str(GOOD)!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
x = torch.randn(5000)
picked = []
for _ in range(5):
    out = module.ModelNew()(x)
    assert torch.allclose(out, torch.nn.functional.silu(x), atol=1e-6)
    picked.append(module.silu_kernel.best_config.kwargs["BLOCK_SIZE"])
print(*picked)
"""


def _python(code: str, interpret: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    if interpret:
        env |= {"TRITON_INTERPRET": "1", "CUDA_VISIBLE_DEVICES": ""}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)


def test_a_multi_config_autotuned_kernel_runs_under_the_interpreter():
    proc = _python(RUN, interpret=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-5:] == ["1024", "2048", "4096", "512", "1024"]  # in turn


def test_nothing_is_patched_without_the_interpreter():
    proc = _python("import warpsmith.lang\nfrom triton.runtime.autotuner import Autotuner\n"
                   "print(hasattr(Autotuner, '_warpsmith_interpreted'))", interpret=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-1] == "False"


def test_install_is_idempotent():
    code = ("from warpsmith.lang.triton import install_interpreter_autotune as i\n"
            "print(i(), i())")
    proc = _python(code, interpret=True)
    assert proc.stdout.split()[-2:] == ["False", "False"]  # installed on import already
