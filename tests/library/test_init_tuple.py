"""A parameter sized by an element of a tuple constructor argument follows that argument
(KernelBench level1/40: LayerNorm's weight was declared (64, 256, 256), so on the verifier's
twin, built with (65, 257, 257), the candidate could not take the reference's state)."""

import importlib.util
from pathlib import Path

import torch

from warpsmith.library import generate

TASK = Path(__file__).parent / "tasks" / "layer_norm_3d_tuple.py"


def _model_new(source: str, folder: Path):
    """The candidate imported from a file of its own: @triton.jit reads each kernel's source
    from the file that defines it."""
    path = folder / "candidate.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("candidate_init_tuple", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defining the class launches nothing
    return module.ModelNew


def test_parameters_follow_each_element_of_a_tuple_argument_in_their_own_dim(tmp_path):
    model = _model_new(generate(TASK).source, tmp_path)((5, 7, 9))
    shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    assert shapes == {"ln.weight": (5, 7, 9), "ln.bias": (5, 7, 9)}
    reference = torch.nn.LayerNorm((5, 7, 9))
    model.load_state_dict({"ln." + k: v for k, v in reference.state_dict().items()})
