"""A timed call's outputs are flattened inside its timed window (verify/child/timing.py): a
returned object whose own methods compute (a namedtuple built by make_dataclass with an
__iter__, E41) did its work in the probe after the window, and passed faster than honest."""

import collections
import time

import torch

from warpsmith.verify.child.timing import _Block, _probe
from warpsmith.verify.stopwatch import Slots, flush_buffer


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


def test_work_done_while_the_output_is_read_is_timed(monkeypatch):
    monkeypatch.setattr(Late, "__iter__", _late_iter)
    model = lambda x: Late(torch.relu(x))  # noqa: E731
    pool = [(0, [torch.randn(8)])]
    block = _Block(model, Slots(pool), flush_buffer("cpu"), {0: [[0, 1, 2]]}, gpu=False)
    block.guards = (_Log(), _Threads(), ())
    block.make = lambda seed: [torch.randn(8)]
    record = block.run(2, 2, [1, 2, 3])
    assert min(record["times_us"]) >= 50_000
    assert all(len(p["values"]) == 1 for p in record["probes"])


def test_a_tensor_subclass_output_is_not_probed():
    out = [torch.nn.Parameter(torch.ones(4)), torch.zeros(4)]
    probed = _probe(out, 0, {0: [[0], [1]]})
    assert probed["shapes"] == [[4]]  # the subclass is left out: an output missing


def _block_of(model):
    pool = [(0, [torch.randn(8)])]
    block = _Block(model, Slots(pool), flush_buffer("cpu"), {0: [[0, 1, 2]]}, gpu=False)
    block.guards = (_Log(), _Threads(), ())
    block.make = lambda seed: [torch.randn(8)]
    return block


def test_an_input_overwritten_and_returned_while_timed_is_counted():
    """E20 with E16: the output written into the input while timed (no allocation) passed,
    since aliasing and input writes were checked in checked calls only."""
    record = _block_of(lambda x: x.clamp_(min=0)).run(3, 1, [1, 2, 3, 4])
    assert record["aliased"] == 4
    assert record["guarded"]["inputs_modified"] is True
    honest = _block_of(lambda x: x.clamp(min=0)).run(3, 1, [1, 2, 3, 4])
    assert honest["aliased"] == 0 and honest["guarded"]["inputs_modified"] is False
