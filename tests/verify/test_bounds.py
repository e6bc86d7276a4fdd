"""Memory safety under the interpreter (verify/child/bounds.py): an access outside every
tensor of the launch is refused before it touches memory, named, and the same every run."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from warpsmith.config import PROFILES
from warpsmith.verify.child import bounds
from warpsmith.verify.pipeline import verify

BAD = Path(__file__).parents[1] / "kernels" / "bad"
PROFILE = replace(PROFILES["quick"], timeout_s=120)


def _launch(*tensors):
    bounds._launched([(f"arg{i}", t) for i, t in enumerate(tensors)])


def test_accesses_inside_a_launchs_tensors_pass_and_one_element_past_the_end_is_named():
    x, y = torch.zeros(10), torch.zeros(4, dtype=torch.float64)
    _launch(x, (y, 3))  # a tuple argument's tensors count too
    base = x.data_ptr()
    inside = np.array([base, base + 36, y.data_ptr() + 24], dtype=np.uint64)
    bounds._accessed("load", inside, np.ones(3, dtype=bool), 4)
    past = np.array([base + 36, base + 40], dtype=np.uint64)
    bounds._accessed("store", past, np.array([True, False]), 4)  # the masked lane is free
    with pytest.raises(bounds.OutOfBounds, match=r"out-of-bounds store.*1 of 2 unmasked lanes"
                       r".*4 bytes past the end of `arg0` \(40 bytes\)"):
        bounds._accessed("store", past, np.ones(2, dtype=bool), 4)
    with pytest.raises(bounds.OutOfBounds, match="before the start of `arg0`"):
        bounds._accessed("load", np.array([base - 8], dtype=np.uint64), None, 4)
    below = np.array([base, 2**64 - 2], dtype=np.uint64)  # a negative offset, wrapped
    with pytest.raises(bounds.OutOfBounds):
        bounds._accessed("load", below, None, 4)
    wide = np.array([base + 36], dtype=np.uint64)  # an 8-byte element from the last 4 bytes
    with pytest.raises(bounds.OutOfBounds):
        bounds._accessed("atomic", wide, None, 8)


def test_only_real_tensors_grant_memory():
    """Red team (2026-12-04): an argument with data_ptr() and untyped_storage() methods of its
    own claimed a terabyte after the input, and an unmasked read past the input passed."""
    x = torch.zeros(4)

    class Claims:
        def untyped_storage(self):
            return self

        def data_ptr(self):
            return x.data_ptr() + 16

        def nbytes(self):
            return 1 << 40

    _launch(x, Claims())
    with pytest.raises(bounds.OutOfBounds, match="4 bytes past the end of `arg0`"):
        bounds._accessed("load", np.array([x.data_ptr() + 16], dtype=np.uint64), None, 4)


def test_a_launch_with_no_tensor_refuses_every_access():
    _launch()
    with pytest.raises(bounds.OutOfBounds, match="no tensor was passed"):
        bounds._accessed("load", np.array([4096], dtype=np.uint64), None, 4)


@pytest.mark.parametrize("kind", ["load", "store"])
def test_an_unmasked_access_gets_the_same_named_verdict_every_run(kind):
    path = BAD / f"oob_unmasked_{kind}.py"
    verdicts = [verify("level1/relu", path, device="cpu", profile=PROFILE, use_cache=False)
                for _ in range(2)]
    for v in verdicts:
        assert v.status == "runtime_error", v.feedback
        assert f"out-of-bounds {kind}" in v.feedback
    assert verdicts[0].reasons == verdicts[1].reasons


def test_one_address_stored_by_two_programs_of_a_launch_is_a_race():
    """E76: programs combining partial sums with a plain load-add-store of one address were
    exact under the sequential interpreter, in any order; on a GPU they race."""
    out = torch.zeros(8)
    _launch(out)
    base = out.data_ptr()
    lanes = np.array([base, base + 4], dtype=np.uint64)
    bounds._accessed("store", lanes, None, 4, program=(0, 0, 0))
    bounds._accessed("store", lanes, None, 4, program=(0, 0, 0))  # the same program again
    bounds._accessed("store", lanes + np.uint64(8), None, 4, program=(1, 0, 0))
    bounds._finished()  # disjoint outputs per program: no race
    _launch(out)
    bounds._accessed("store", lanes, None, 4, program=(0, 0, 0))
    bounds._accessed("atomic", lanes, None, 4)  # atomics are not stores of a program
    bounds._accessed("store", lanes[1:], np.array([False]), 4, program=(1, 0, 0))  # masked
    bounds._finished()
    _launch(out)
    bounds._accessed("store", lanes, None, 4, program=(0, 0, 0))
    bounds._accessed("store", lanes[1:], None, 4, program=(0, 1, 0))
    with pytest.raises(bounds.ProgramsRace, match=r"\(0, 0, 0\) and \(0, 1, 0\).*byte 4 of `arg0`"):
        bounds._finished()


def test_a_read_of_what_another_program_stored_or_exchanged_is_a_race():
    """Red-team round 7: a cumsum whose program read the total the program before it (in the
    order an atomic ticket gave) had stored, and partial sums exchanged in after a plain
    load, were exact under the interpreter; the same program reading its own store is fine."""
    out = torch.zeros(8)
    lanes = np.array([out.data_ptr(), out.data_ptr() + 4], dtype=np.uint64)
    _launch(out)
    bounds._accessed("store", lanes, None, 4, program=(0, 0, 0))
    bounds._accessed("load", lanes, None, 4, program=(0, 0, 0))
    bounds._accessed("load", lanes + np.uint64(8), None, 4, program=(1, 0, 0))
    bounds._finished()
    _launch(out)
    bounds._accessed("store", lanes, None, 4, program=(1, 0, 0))
    bounds._accessed("load", lanes[:1], None, 4, program=(0, 0, 0))
    with pytest.raises(bounds.ProgramsRace, match=r"store to and read.*byte 0 of `arg0`"):
        bounds._finished()
    _launch(out)
    bounds._accessed("load", lanes, None, 4, program=(0, 0, 0))
    bounds._accessed("exchange", lanes, None, 4, program=(1, 0, 0))
    with pytest.raises(bounds.ProgramsRace):
        bounds._finished()


def test_atomic_updates_race_with_a_store_or_a_read_apart_from_the_update():
    """Red-team round 8: a running total read with `tl.atomic_add(p, 0.0)` (an atomic that
    changes nothing: a load) and written back with atomic_max, and the previous ticket's
    stored total read the same way, were exact under the interpreter. Updates alone (split-K
    partial sums, a ticket counter) are no race."""
    out = torch.zeros(8)
    lanes = np.array([out.data_ptr(), out.data_ptr() + 4], dtype=np.uint64)
    _launch(out)
    for program in range(3):  # every program adds into the same tile, and takes a ticket
        bounds._accessed("atomic", lanes, None, 4, program=(program, 0, 0))
    bounds._accessed("load", lanes + np.uint64(8), None, 4, program=(0, 0, 0))
    bounds._finished()
    _launch(out)
    bounds._accessed("store", lanes, None, 4, program=(0, 0, 0))
    bounds._accessed("atomic", lanes[:1], None, 4, program=(1, 0, 0))
    with pytest.raises(bounds.ProgramsRace, match="store to and update"):
        bounds._finished()
    _launch(out)
    for program in range(2):  # read, then update apart from the read
        bounds._accessed("load", lanes[:1], None, 4, program=(program, 0, 0))
        bounds._accessed("atomic", lanes[:1], None, 4, program=(program, 0, 0))
    with pytest.raises(bounds.ProgramsRace, match=r"\(1, 0, 0\) and \(0, 0, 0\).*update"):
        bounds._finished()


@pytest.mark.parametrize(("op", "values", "reads"), [
    ("ATOMIC_OP.FADD", np.array([0.0, -0.0, 1.0], np.float32), [True, True, False]),
    ("ATOMIC_OP.ADD", np.array([0, 3], np.int32), [True, False]),
    ("ATOMIC_OP.MAX", np.array([-np.inf, 0.0], np.float32), [True, False]),
    ("ATOMIC_OP.MIN", np.array([np.iinfo(np.int32).max, 0], np.int32), [True, False]),
    ("ATOMIC_OP.AND", np.array([-1, 0], np.int32), [True, False]),
    ("ATOMIC_OP.UMAX", np.array([0, 1], np.int32), [True, False]),
    ("ATOMIC_OP.OR", np.array([0, 2], np.int64), [True, False]),
    # a float max with -inf and a float min with +inf, as Triton lowers them: UMIN and MIN on
    # the bits (round 10)
    ("ATOMIC_OP.UMIN", np.array([0xFF800000, 5], np.uint32).view(np.int32), [True, False]),
    ("ATOMIC_OP.MIN", np.array([0x7F800000, 5], np.int32), [True, False]),
])
def test_an_atomic_that_changes_nothing_is_a_read(op, values, reads):
    from warpsmith.lang.triton_compat import _identity_lanes

    assert _identity_lanes(op, values).tolist() == reads


def test_atomics_that_do_not_commute_and_reads_of_another_programs_update_race():
    """Round 10: a total read by an add of 1 undone by one of -1 and written back by
    atomic_max; round 11: a published total read by a plain load. Adds alone from several
    programs, and a program mixing kinds or reading what only it updates, are no race."""
    out = torch.zeros(8)
    lanes = np.array([out.data_ptr(), out.data_ptr() + 4], dtype=np.uint64)
    _launch(out)
    for program in range(3):
        bounds._accessed("atomic", lanes, None, 4, program=(program, 0, 0), op="add")
    for op in ("add", "max"):  # kinds mixed where only program 0 updates
        bounds._accessed("atomic", lanes + np.uint64(16), None, 4, program=(0, 0, 0), op=op)
    bounds._accessed("atomic", lanes + np.uint64(8), None, 4, program=(1, 0, 0), op="max")
    bounds._accessed("load", lanes + np.uint64(8), None, 4, program=(1, 0, 0))
    bounds._finished()
    _launch(out)
    bounds._accessed("atomic", lanes, None, 4, program=(0, 0, 0), op="add")
    bounds._accessed("atomic", lanes[:1], None, 4, program=(1, 0, 0), op="max")
    with pytest.raises(bounds.ProgramsRace, match="do not commute"):
        bounds._finished()
    _launch(out)
    bounds._accessed("atomic", lanes, None, 4, program=(0, 0, 0), op="add")
    bounds._accessed("load", lanes[1:], None, 4, program=(1, 0, 0))
    with pytest.raises(bounds.ProgramsRace, match="update and read"):
        bounds._finished()


def test_an_access_reaching_two_tensors_is_compared_by_bytes():
    """Round 10: a wide lane whose first half lay in a scratch tensor below was sized by that
    tensor's unit (8 bytes), so the fp32 slot 4 bytes into it was never listed."""
    scratch, acc = torch.zeros(2, dtype=torch.float64), torch.zeros(4)
    _launch(scratch, acc)
    wide = np.array([scratch.data_ptr(), acc.data_ptr()], dtype=np.uint64)
    bounds._accessed("store", wide, None, 8, program=(0, 0, 0))
    bounds._accessed("store", np.array([acc.data_ptr() + 4], np.uint64), None, 4,
                     program=(1, 0, 0))
    with pytest.raises(bounds.ProgramsRace, match="store to"):
        bounds._finished()


def test_programs_meet_on_the_bytes_they_touch_whatever_view_they_used():
    """Red-team round 9: one program updated an fp32 slot, another the same four bytes
    through an int64 view whose element began 4 bytes before it; compared by first byte,
    they never met. Neighbouring fp16 elements of two programs are no race."""
    out = torch.zeros(8)
    base = np.uint64(out.data_ptr())
    _launch(out)
    bounds._accessed("store", np.array([base + np.uint64(4)]), None, 4, program=(0, 0, 0))
    bounds._accessed("load", np.array([base]), None, 8, program=(1, 0, 0))
    with pytest.raises(bounds.ProgramsRace):
        bounds._finished()
    _launch(out)
    bounds._accessed("store", np.array([base]), None, 2, program=(0, 0, 0))
    bounds._accessed("store", np.array([base + np.uint64(2)]), None, 2, program=(1, 0, 0))
    bounds._accessed("store", np.array([base + np.uint64(4)]), None, 4, program=(1, 0, 0))
    bounds._finished()
