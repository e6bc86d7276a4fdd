"""The timing input rotation (runs on the CPU; the timing itself needs a GPU)."""

import torch

from warpsmith.types import Timing
from warpsmith.verify.timing.stopwatch import Slots as _Slots
from warpsmith.verify.timing.summary import summarise


def test_an_address_never_holds_the_same_input_set_twice_running():
    pool = [(case, [torch.full((4,), float(case)), 7]) for case in (10, 11, 12)]
    slots = _Slots(pool)
    last_case_at: dict[int, int] = {}
    for _ in range(24):
        case, inputs = slots.next("candidate")
        assert inputs[1] == 7 and torch.all(inputs[0] == case)  # values match the case
        address = inputs[0].data_ptr()
        assert last_case_at.get(address) != case
        last_case_at[address] = case
    assert len(last_case_at) == 2  # two buffers, refilled in place


def test_each_implementation_cycles_through_every_set():
    pool = [(case, [torch.zeros(2)]) for case in (0, 1, 2)]
    slots = _Slots(pool)
    seen = {slots.next("eager")[0] for _ in range(6)}
    assert seen == {0, 1, 2}


def test_summary_statistics():
    t = summarise("candidate", [5.0, 1.0, 3.0, 2.0, 4.0])
    assert t == Timing("candidate", 3.0, 1.0, 5.0, t.iqr_us, 5) and t.iqr_us > 0
