"""State a forward updates in place (graph_state.py): left out when the output never reads
it (training-mode BatchNorm's running statistics and batch count), declined when it does;
random ops (training-mode dropout) are declined as nondeterministic."""

import textwrap
from pathlib import Path

from warpsmith.library import Generated, NotCovered, generate
from warpsmith.library.generator import plan_task
from warpsmith.tasks import load_task

OWN = Path(__file__).parent / "tasks"


def _task(tmp_path, init: str, body: str):
    path = tmp_path / "task.py"
    path.write_text(textwrap.dedent(f'''
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                {init}

            def forward(self, x):
                {body}


        def get_inputs():
            return [torch.randn(4, 8, 5, 5)]


        def get_init_inputs():
            return []
        '''))
    return load_task(path)


def test_unread_running_statistics_are_left_out_and_said():
    made = generate(OWN / "conv_batch_norm_train.py")
    assert isinstance(made, Generated), made
    assert plan_task(load_task(OWN / "conv_batch_norm_train.py")).unkept == (
        "bn.num_batches_tracked", "bn.running_mean", "bn.running_var")
    head = " ".join(made.source.split('"""')[1].split())
    assert "bn.running_mean" in head and "leaves them as they are" in head
    # the candidate declares only what the output reads: no running statistics
    assert "running_mean" not in made.source.split("class ModelNew")[1]


def test_eval_mode_batch_norm_updates_nothing():
    plan = plan_task(load_task(OWN / "batch_norm_eval.py"))
    assert plan.unkept == () and "leaves them" not in generate(OWN / "batch_norm_eval.py").source


def test_a_buffer_the_output_reads_and_forward_updates_is_declined(tmp_path):
    init = 'self.register_buffer("count", torch.ones(1))'
    # read before the update: the next call would read the updated value
    before = generate(_task(tmp_path, init, "y = x * self.count\n                "
                            "self.count.add_(1)\n                return y"))
    assert isinstance(before, NotCovered) and "reads count, which forward updates in " \
        "place" in before.reason, before
    # read through the update's result
    after = generate(_task(tmp_path, init, "self.count += 1\n                "
                           "return x * self.count"))
    assert isinstance(after, NotCovered) and "node 0 (aten.add_.Tensor)" in after.reason


def test_training_mode_dropout_is_declined_as_random(tmp_path):
    task = _task(tmp_path, "self.drop = nn.Dropout(0.2)", "return self.drop(x) * 2")
    result = generate(task)
    assert isinstance(result, NotCovered) and "draws random numbers" in result.reason, result
