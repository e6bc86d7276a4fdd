"""lang/triton_compat.interpret_programs_in_any_order on the Triton installed (CI runs
tests/lang on 3.6 and 3.9): every program of a 3-D grid runs exactly once, in an order that is
not the grid's (the interpreter ran them in grid order, so a kernel reading what an earlier
program stored was exact on the CPU and a race on a GPU). In a child process: the patch stays
for its life."""

import os
import subprocess
import sys

RUN = """
import sys, torch, triton, triton.language as tl
from warpsmith.lang.triton_compat import interpret_programs_in_any_order
if sys.argv[1] == "shuffled":
    assert interpret_programs_in_any_order()

@triton.jit
def k(order_ptr, counter_ptr):
    pid = (tl.program_id(0) * tl.num_programs(1) + tl.program_id(1)) * tl.num_programs(2) \\
        + tl.program_id(2)
    slot = tl.atomic_add(counter_ptr, 1)
    tl.store(order_ptr + slot, pid)

order, counter = torch.full((4 * 3 * 5,), -1, dtype=torch.int32), torch.zeros(1, dtype=torch.int32)
k[(4, 3, 5)](order, counter)
print(",".join(map(str, order.tolist())))
"""


def _order(mode: str) -> list[int]:
    env = dict(os.environ, TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", RUN, mode], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout
    return [int(x) for x in out.strip().splitlines()[-1].split(",")]


def test_the_interpreter_runs_a_launch_in_grid_order_without_the_patch():
    assert _order("plain") == list(range(60))


def test_each_program_runs_once_in_an_order_not_the_grids():
    orders = [_order("shuffled") for _ in range(2)]
    for order in orders:
        assert sorted(order) == list(range(60))
        assert order != list(range(60))
    assert orders[0] != orders[1]  # a fresh order per launch, from the OS
