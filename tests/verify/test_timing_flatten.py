"""A timed call's outputs are flattened inside its block (verify/child/timing.py), before the
block's frame stops the trusted side's clock: a returned object whose own methods compute (a
namedtuple built by make_dataclass with an __iter__, E41) did its work after the window, and
passed faster than honest."""

import collections
import time

import torch

from warpsmith.verify.child.timing import _Block


class _Log:
    def take(self):
        return [("k", True)]


class _Threads:
    started = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


Late = collections.namedtuple("Late", "y")


def _late_iter(self):
    time.sleep(0.05)  # the work a late __iter__ does
    return iter((self[0],))


def _block_of(model, sets: int = 2):
    block = _Block({"candidate": model}, [[torch.randn(8)] for _ in range(sets)], gpu=False)
    block.guards = (_Log(), _Threads(), ())
    block.prepare()
    return block


def test_work_done_while_the_output_is_read_is_timed(monkeypatch):
    monkeypatch.setattr(Late, "__iter__", _late_iter)
    block, go = _block_of(lambda x: Late(torch.relu(x))), {"order": [1, 0], "watch": 1}
    block.run(go)
    # both calls' late work inside the block
    assert block.diagnostics(go)["inprocess_us"] >= 100_000
    head, payload = block.outputs()
    assert [len(call) for call in head["outputs"]] == [1, 1]
    assert len(payload) == 2 * 8 * 4


def test_a_tensor_subclass_output_is_not_handed_over():
    block = _block_of(lambda x: [torch.nn.Parameter(torch.ones(4)), torch.zeros(4)], sets=1)
    block.run({"order": [0], "watch": 0})
    head, _ = block.outputs()  # noqa
    assert head["outputs"] == [[{"dtype": "float32", "shape": [4]}]]  # the subclass left out


def test_an_input_overwritten_and_returned_while_timed_is_counted():
    """E20 with E16: the output written into the input while timed (no allocation) passed,
    since aliasing and input writes were checked in checked calls only."""
    go = {"order": [3, 2, 1, 0], "watch": 1}
    block = _block_of(lambda x: x.clamp_(min=0), sets=4)
    block.run(go)
    assert block.diagnostics(go)["aliased"] == 4  # the write itself: read back on a GPU
    honest = _block_of(lambda x: x.clamp(min=0), sets=4)
    honest.run(go)
    assert honest.diagnostics(go)["aliased"] == 0
