"""The secret twin (E13) of a KernelBench file, which declares no SHAPES: its module-level
sizes stand for its one shape, so the twin grows them (it had none, and a kernel hard-coded
to the file's sizes passed: tests/kernels/redteam/E13_hardcoded_kernelbench_sizes.py)."""

from pathlib import Path

from warpsmith.tasks.loader import load_task
from warpsmith.types import Shape
from warpsmith.verify.checks.reference import perturbed, sizes_of

MLP = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        dims = [input_size, *sizes]
        self.net = nn.Sequential(*[nn.Linear(a, b) for a, b in zip(dims, dims[1:])])

    def forward(self, x):
        return self.net(x)

batch_size = 16
input_size = 64
layer_sizes = [64, 32]
kernel = (3, 3)
flag = True
eps = 1e-5

def get_inputs():
    return [torch.rand(batch_size, input_size)]

def get_init_inputs():
    return [layer_sizes]
'''


def test_a_kernelbench_file_s_sizes_stand_for_its_shape_and_grow_in_its_twin(tmp_path):
    path = tmp_path / "3_MLP.py"
    path.write_text(MLP)
    task = load_task(Path(path))
    shape = sizes_of(task, task.shapes[0])
    assert shape.values == {"batch_size": 16, "input_size": 64, "layer_sizes": [64, 32]}
    twin = perturbed(shape).values
    assert 17 <= twin["batch_size"] <= 19 and type(twin["layer_sizes"]) is list
    assert twin["layer_sizes"][0] == twin["input_size"]  # equal sizes grow alike


def test_a_declared_shape_is_kept_as_it_is():
    declared = Shape("small", {"N": 128})
    assert sizes_of(load_task(Path(__file__).parents[1] / "kernels" / "tasks" /
                              "relu_and_sigmoid.py"), declared) is declared


def test_the_twin_keeps_every_structural_parameter():
    """KernelBench level1/41: kernel_size = 8 grew on the twin, and a kernel written for the
    task's window was held to another (the H200 bench's failure, issue 27). Data sizes grow;
    a structural value equal to one (a depthwise conv's groups) grows with it."""
    from warpsmith.types import Shape
    from warpsmith.verify.checks.reference import perturbed

    values = {"batch_size": 64, "sequence_length": 4096, "kernel_size": 8, "dilation": 9,
              "in_channels": 64, "groups": 64}
    twin = perturbed(Shape("s", values)).values
    assert twin["kernel_size"] == 8 and twin["dilation"] == 9
    assert twin["batch_size"] > 64 and twin["sequence_length"] > 4096
    assert twin["groups"] == twin["in_channels"] > 64
