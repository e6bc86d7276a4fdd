"""The evolve strategy's archive, pure: behaviour descriptors read from kernel files, the
fitness order, MAP-Elites cells, parent selection and ring migration."""

import random
from pathlib import Path

from warpsmith.search import archive as arc
from warpsmith.search.archive import Archive, Behaviour, Member, describe, fitness

KERNELS = Path(__file__).parents[1] / "kernels"


def kernel(name: str) -> str:
    return (KERNELS / name).read_text()


def test_descriptor_reads_fusion_matrix_units_tiling_and_tuning_from_files():
    relu = describe(kernel("good/relu_triton.py"))
    assert relu == Behaviour(kernels=1, dot=False, loop="none", block="medium", access="flat",
                             tuned=False)
    linear = describe(kernel("good/linear_fp16_two_kernels.py"))
    assert linear.kernels == 2 and linear.dot and linear.loop == "tiled"
    assert describe(kernel("good/silu_autotuned_triton.py")).tuned
    assert describe(kernel("good/layer_norm_triton.py")).access == "strided"
    assert describe(kernel("gpu/relu_cuda_load_inline.py")).kernels == 1  # a __global__
    broken = describe(kernel("bad/syntax_error.py"))  # does not parse, still gets a cell
    assert broken.kernels == 0 and broken != relu
    assert "1 kernel" in relu.label() and "medium block size" in relu.label()


def test_descriptor_sees_persistent_loops_block_buckets_and_ignores_comments():
    persistent = """
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    for tile in range(tl.program_id(0), tl.cdiv(n, BLOCK), tl.num_programs(0)):
        pass

class ModelNew(nn.Module):
    def forward(self, x):
        for i in range(3):  # a loop outside any kernel is no tiling
            pass
        k[(4,)](x, x.numel(), BLOCK=4096)
"""
    b = describe(persistent)
    assert b.loop == "persistent" and b.block == "large"
    plain = persistent.replace(", tl.num_programs(0)", "").replace("4096", "64")
    assert describe(plain).loop == "tiled" and describe(plain).block == "small"
    outside_only = "@triton.jit\ndef k(x):\n    pass\n\nfor i in range(3):\n    pass\n"
    assert describe(outside_only).loop == "none"
    commented = kernel("good/relu_triton.py").replace("import triton\n",
                                                      "import triton  # tl.dot, BLOCK=8192\n")
    assert describe(commented) == describe(kernel("good/relu_triton.py"))


def test_fitness_orders_speed_then_correctness_then_how_far_it_got():
    order = [fitness("passed", 2.0), fitness("passed", 1.1), fitness("passed", None),
             fitness("incorrect"), fitness("runtime_error"), fitness("rejected"),
             fitness("compile_error")]
    assert order == sorted(order, reverse=True) and len(set(order)) == len(order)
    assert fitness("incorrect", 9.0) == fitness("incorrect")  # a wrong kernel's speed is moot


def cell(kernels: int, block: str = "medium") -> Behaviour:
    return Behaviour(kernels, False, "none", block, "flat", False)


def member(order: int, status: str, behaviour: Behaviour, speed: float | None = None) -> Member:
    return Member(order, fitness(status, speed), behaviour, item=f"#{order}")


def test_archive_keeps_the_fittest_kernel_per_behaviour_and_the_older_on_a_tie():
    archive = Archive()
    assert archive.best() is None and archive.elites() == []
    assert archive.add(member(0, "incorrect", cell(1)))
    assert archive.add(member(1, "compile_error", cell(2)))
    assert not archive.add(member(2, "compile_error", cell(1)))  # worse than the elite
    assert archive.add(member(3, "passed", cell(1)))  # better: takes the cell
    assert not archive.add(member(4, "passed", cell(1)))  # a tie keeps the older
    assert [m.order for m in archive.elites()] == [1, 3] and len(archive) == 2
    assert archive.best().order == 3
    archive.add(member(5, "passed", cell(3), speed=1.5))
    assert archive.best().order == 5


def test_selection_mixes_the_best_and_the_different():
    members = [member(0, "passed", cell(1), 2.0), member(1, "passed", cell(2), 1.0),
               member(2, "passed", cell(3), 1.2), member(3, "compile_error", cell(0))]
    rng = random.Random(0)
    assert arc.tournament(members, rng, size=len(members)).order == 0  # whole pool: the best
    drawn = {arc.tournament(members, rng, size=2).order for _ in range(200)}
    assert 0 in drawn and 3 not in drawn and len(drawn) > 1  # the worst never wins a pair
    picked = [arc.novel(members, rng).order for _ in range(600)]
    # Uniform over the working cells; the broken design is not picked while some work.
    assert set(picked) == {0, 1, 2} and min(picked.count(i) for i in (0, 1, 2)) > 150
    assert arc.novel(members, rng, away_from=cell(1)).behaviour != cell(1)
    assert arc.novel([members[0]], rng, away_from=cell(1)) is None
    assert arc.novel([members[3]], rng).order == 3  # with nothing working, repair what there is


def test_plan_seeds_empty_islands_exploits_slot_0_and_crosses_behaviours_in_odd_slots():
    archive = Archive()
    assert arc.plan(archive, 0, random.Random(0)).op == "seed"
    archive.add(member(0, "compile_error", cell(0)))
    archive.add(member(1, "incorrect", cell(1)))
    first = arc.plan(archive, 0, random.Random(0))
    assert first.op == "mutate" and first.parents[0].order == 1  # the fittest of 2
    cross = arc.plan(archive, 1, random.Random(0))
    assert cross.op == "crossover" and [p.order for p in cross.parents] == [1, 0]  # fitter first
    assert arc.plan(archive, 2, random.Random(0)).op == "mutate"
    lone = Archive()
    lone.add(member(0, "incorrect", cell(1)))
    assert arc.plan(lone, 1, random.Random(0)).op == "mutate"  # one behaviour: nothing to cross
    again = [arc.plan(archive, s, random.Random(f"x:{s}")) for s in range(4)]
    assert again == [arc.plan(archive, s, random.Random(f"x:{s}")) for s in range(4)]


def test_migration_moves_each_island_best_one_step_round_the_ring():
    islands = [Archive(), Archive(), Archive()]
    islands[0].add(member(0, "passed", cell(1), 3.0))
    islands[1].add(member(1, "passed", cell(2), 1.0))
    islands[2].add(member(2, "passed", cell(1), 5.0))  # fitter than island 0's best there
    assert arc.migrate(islands) == 3
    assert islands[1].cells[cell(1)].order == 0  # island 0's best arrived
    assert islands[2].cells[cell(2)].order == 1
    assert islands[0].cells[cell(1)].order == 2  # island 2's fitter one took the cell
    assert arc.migrate([islands[0]]) == 0
    one_hop = [Archive(), Archive(), Archive()]
    one_hop[0].add(member(0, "passed", cell(1)))
    arc.migrate(one_hop)
    assert len(one_hop[2]) == 0  # a kernel moves one island per migration, not round the ring
