"""Batch norm in training mode: besides the output (which the verifier checks), the candidate
updates running_mean, running_var and num_batches_tracked as the reference does. Run in a
subprocess under the Triton CPU interpreter (TRITON_INTERPRET must be set before triton is
imported)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from warpsmith.library import generate
from warpsmith.library.exact import match_task
from warpsmith.tasks import load_task

TASK = Path(__file__).parent / "tasks" / "batch_norm_train.py"

CHECK = textwrap.dedent('''
    import importlib.util, sys
    import torch

    def load(path, name):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    task, cand = load(sys.argv[1], "task"), load(sys.argv[2], "cand")
    torch.manual_seed(0)
    ref = task.Model(*task.get_init_inputs())
    new = cand.ModelNew(*task.get_init_inputs())
    new.load_state_dict(ref.state_dict())
    for _ in range(2):
        x = torch.randn(4, 5, 6, 7) * 3 + 10
        with torch.no_grad():
            torch.testing.assert_close(new(x), ref(x), rtol=1e-4, atol=1e-4)
    for name, value in ref.state_dict().items():
        torch.testing.assert_close(new.state_dict()[name], value, rtol=1e-5, atol=1e-5)
    print("ok", int(new.bn.num_batches_tracked))
''')


def test_running_statistics_are_updated_like_the_reference(tmp_path):
    source = generate(TASK, tune={"STAT_BLOCK": 16, "STAT_PROGRAMS": 10}).source
    (tmp_path / "cand.py").write_text(source)
    (tmp_path / "check.py").write_text(CHECK)
    done = subprocess.run([sys.executable, str(tmp_path / "check.py"), str(TASK),
                           str(tmp_path / "cand.py")], capture_output=True, text=True,
                          env=os.environ | {"TRITON_INTERPRET": "1"}, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["ok", "2"], done.stderr[-3000:]


def test_momentum_none_and_no_running_statistics_are_not_this_family(tmp_path):
    for body in ("nn.BatchNorm2d(5, momentum=None)",
                 "nn.BatchNorm2d(5, track_running_stats=False)"):
        text = TASK.read_text().replace("nn.BatchNorm2d(num_features=num_features)", body)
        (tmp_path / "t.py").write_text(text)
        found = match_task(load_task(tmp_path / "t.py"))
        assert getattr(found, "family", None) != "batch_norm"
