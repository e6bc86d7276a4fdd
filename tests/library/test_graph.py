"""The graph generator: pointwise chains, row reductions (argmax and logsumexp among them, in
one or two stages) and scans with what comes before and after them, reshaped inputs and
outputs, placed into kernels without a family written for each task. Every twin task under
tasks/ (small shapes of KernelBench level-1 tasks, in KernelBench format) renders a candidate
that passes the verifier on the CPU interpreter; what the generator declines names the node.
"""

import re
import textwrap
from pathlib import Path

import pytest

from warpsmith.library import Generated, NotCovered, coverage, generate
from warpsmith.library.choices import choice, settle
from warpsmith.library.generator import Plan, plan_task, render_plan
from warpsmith.library.graph_view import regroup
from warpsmith.library.scan_walk import Pos
from warpsmith.tasks import load_task
from warpsmith.tasks.suite import load_suite
from warpsmith.types import readable_task_name

from .conftest import twin_jobs

TIMEOUT_S = 120  # the verifier's limit for one candidate (conftest.verdicts)
OWN = Path(__file__).parent / "tasks"
ROOT = Path(__file__).parents[2]
LEVEL1 = next((p for p in (ROOT / "KernelBench" / "KernelBench" / "level1",
                           ROOT / "KernelBench" / "level1") if p.is_dir()), None)

# twin task -> (the family label the library gives it, kernels in the candidate)
TWINS = {
    "scale_bias_tanh": ("pointwise", 1), "scalar_multiply": ("pointwise", 1),
    "diag_multiply": ("pointwise", 1), "rms_norm_dim1": ("row_reduce", 1),
    "l1_norm_rows": ("row_reduce", 1), "layer_norm_3d": ("row_reduce", 1),
    "mse_mean": ("row_reduce", 2), "huber_mean": ("row_reduce", 2),
    "hinge_mean": ("row_reduce", 2), "kl_div_log": ("row_reduce", 2),
    "frobenius_all": ("row_reduce+pointwise", 3),
    "argmax_scaled": ("row_reduce", 1), "logsumexp_rows": ("row_reduce", 1),
    "logsumexp_middle": ("row_reduce", 1),
    "cumprod_rows": ("scan", 1), "cumsum_reverse": ("scan", 1),
    "cumsum_exclusive": ("scan", 1), "masked_cumsum": ("scan", 1), "cumsum_middle": ("scan", 1),
    "instance_norm": ("row_reduce", 1), "reshape_merge": ("row_reduce", 1),
    "batch_norm_eval": ("pointwise", 1), "where_mask": ("pointwise", 1),
    "max_with_indices": ("row_reduce", 1), "triplet_margin": ("row_reduce", 2),
    "row_sums_mean": ("row_reduce", 3), "scan_epilogue": ("scan", 1),
    "cumsum_fp16": ("scan", 1), "scan_broadcast": ("scan", 1),
    "scan_broadcast_rows": ("scan", 1),
}
# exact families take these first (rms_norm, argmax, argmin, cumsum); the graph path must cover
# them on its own too
GRAPH_ONLY = ["rms_by_hand", "argmax_middle", "argmin_middle", "cumsum_rows"]
# small blocks, so a row spans several tiles: the carried total, the best-so-far across tiles
TILED = {"cumsum_reverse": {"SCAN_BLOCK_R": 64}, "cumprod_rows": {"SCAN_BLOCK_R": 64},
         "cumsum_exclusive": {"SCAN_BLOCK_R": 64}, "cumsum_middle": {"SCAN_BLOCK_R": 64},
         "scan_epilogue": {"SCAN_BLOCK_R": 64}, "argmax_scaled": {"RED_BLOCK_R": 32},
         "logsumexp_middle": {"RED_BLOCK_R": 128}, "scan_broadcast": {"SCAN_BLOCK_R": 64},
         "scan_broadcast_rows": {"SCAN_BLOCK_R": 64},
         # few long rows cut into chunks, one program each (row_chunks.py): small chunks so
         # the CPU's small rows take that path, several tiles a chunk
         "layer_norm_3d": {"RED_CHUNK": 8, "RED_BLOCK_R": 8},
         "l1_norm_rows": {"RED_CHUNK": 8, "RED_BLOCK_R": 8},
         "instance_norm": {"RED_CHUNK": 8, "RED_BLOCK_R": 8}}


def verify_jobs() -> dict:
    jobs = twin_jobs(TWINS, tiled=TILED)
    for stem in GRAPH_ONLY:  # the graph path alone, where an exact family would win
        source, _ = render_plan(plan_task(load_task(OWN / f"{stem}.py")))
        jobs[f"graph/{stem}"] = (str(OWN / f"{stem}.py"), source)
    return jobs


@pytest.mark.parametrize("stem", sorted(TWINS))
def test_twin_is_covered_by_the_graph_families(stem):
    made = generate(OWN / f"{stem}.py")
    assert isinstance(made, Generated), made
    assert (made.family, made.kernels) == TWINS[stem]


@pytest.mark.parametrize("stem", sorted(TWINS) + [f"graph/{s}" for s in GRAPH_ONLY] +
                         [f"tiled/{s}" for s in TILED])
def test_twin_candidate_passes_on_the_cpu(stem, verdicts):
    status, feedback = verdicts[stem]
    assert status == "passed", feedback


def test_issue_examples_need_no_family_of_their_own():
    tanh = plan_task(load_task(OWN / "scale_bias_tanh.py"))
    rms = plan_task(load_task(OWN / "rms_by_hand.py"))
    assert isinstance(tanh, Plan) and tanh.families == ("pointwise",)
    assert isinstance(rms, Plan) and rms.families == ("row_reduce",)
    source, _ = render_plan(tanh)
    # the constructor scalar follows init argument 1; the bias is read with its stride
    assert "self.init1 = float(args[1])" in source and "p_bias_stride0" in source


def test_forward_number_is_passed_not_baked_in():
    source = generate(OWN / "scalar_multiply.py").source
    assert "arg1 = float(s)" in source and "3.14" not in source


def test_knobs_are_the_families_and_checked():
    made = generate(OWN / "frobenius_all.py", tune={"PW_BLOCK": 256})
    assert made.tune["PW_BLOCK"] == 256 and "\nPW_BLOCK = 256\n" in made.source
    assert {"RED_BLOCK_R", "FINISH_BLOCK"} <= set(made.tune)
    with pytest.raises(Exception, match="no knob"):
        generate(OWN / "frobenius_all.py", tune={"BLOKC": 1})


def _task(tmp_path, body: str, inputs: str = "[torch.randn(4, 6, 8)]"):
    path = tmp_path / "task.py"
    path.write_text(textwrap.dedent(f'''
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def forward(self, x):
                {body}


        def get_inputs():
            return {inputs}


        def get_init_inputs():
            return []
        '''))
    return load_task(path)


@pytest.mark.parametrize("body, words", [
    ("return torch.sort(x, dim=1)[0] * 2",
     "node 0 (aten.sort.default): neither a pointwise op, a view nor a reduction"),
    ("return x.view(4, 6, 2, 4).sum(dim=(0, 2))", "node 1 (aten.sum.dim_IntList): reduces "
     "dims (0, 2), which are neither adjacent nor all but one run of adjacent dims"),
    ("return x.reshape(8, 24) * 2", "node 0 (aten.view.default): reshapes (4, 6, 8) to (8, 24), "
     "regrouping dims"),
    ("return x.sum(dim=1, keepdim=True) + x.sum(dim=2, keepdim=True)", "node 1 (aten.sum."
     "dim_IntList): reduces a (4, 6, 8) tensor over dims (2,), another reduction of the graph a "
     "(4, 6, 8) tensor over dims (1,), and the graph does not cut into two stages"),
    ("return x.pow(2.5)", "node 0 (aten.pow.Tensor_Scalar): pow with exponent 2.5"),
    ("return torch.cumsum(x[:, ::2], dim=1)", "node 0 (aten.slice.Tensor): a slice with step 2"),
    ("return torch.cumsum(x, dim=1) + x.sum(dim=1, keepdim=True)", "node 1 (aten.sum.dim_IntList"
     "): the value of node 0 is a scan along dim (1,), which only a scan kernel places"),
    ("return torch.cumsum(torch.cumsum(x, 1), 2)", "node 0 (aten.cumsum.default): the graph "
     "has 2 scans"),
])
def test_decline_names_the_first_node_and_why(tmp_path, body, words):
    result = generate(_task(tmp_path, body))
    assert isinstance(result, NotCovered)
    assert "the graph generator stops at " + words in result.reason


def test_a_reshape_no_kernel_follows_is_cut(tmp_path):
    """A scan of a reshape held at the softmax's shape: the reshaped value written first by
    a stage of its own (generator._plan_cut), the forward's view of it then scanned."""
    for body in ("return x.softmax(-1).reshape(4, 48).cumsum(1)",
                 "return (x.softmax(-1).reshape(4, 48) * 2).cumsum(1)"):
        made = generate(_task(tmp_path, body))
        assert (made.family, made.kernels) == ("row_reduce+scan", 2), made
        assert re.search(r"\n        st\d+ = out\n", made.source)
    # an op whose tensor argument is not named `self` reading a held reshape (it raised
    # KeyError out of generate once: KernelBench level 2's 17 and 79, an instance norm)
    made = generate(_task(tmp_path, "return torch.nn.functional.layer_norm("
                                    "x.softmax(-1).reshape(4, 48), (48,))"))
    assert (made.family, made.kernels) == ("row_reduce", 2), made


@pytest.mark.parametrize("body, family", [
    # moved up: computed at the new shape from the reshaped input
    ("return (x * 2).reshape(4, 48) + 1", "pointwise"),
    # kept at the softmax's shape down to the output, which the forward reshapes
    ("return (x.softmax(-1).reshape(4, 48) * 2).log_softmax(-1).reshape(4, 6, 8)",
     "row_reduce"),
    # a sum over the merged dims: over the dims they merged
    ("return x.softmax(-1).reshape(4, 48).sum(1)", "row_reduce"),
])
def test_a_reshape_in_the_middle_is_moved(tmp_path, body, family):
    made = generate(_task(tmp_path, body))
    assert not isinstance(made, NotCovered), made.reason
    assert made.family == family


def test_softmax_over_a_leading_dim_is_three_passes(tmp_path):
    made = generate(_task(tmp_path, "return torch.softmax(x, dim=0)"))
    assert made.family == "row_reduce" and made.source.count("# pass") == 3


@pytest.mark.skipif(LEVEL1 is None, reason="no KernelBench checkout under KernelBench/")
def test_kernelbench_level1_coverage():
    tasks, errors = load_suite(str(LEVEL1))
    rows = {readable_task_name(r.task): r for r in coverage(tasks)}  # 19_ReLU@digest
    covered = sorted(n for n, r in rows.items() if r.family)
    # every task but the 35 convolutions
    assert len(covered) >= 65, "\n".join(f"{n}: {r.reason}" for n, r in rows.items()
                                        if not r.family)
    for name in ("5_Matrix_scalar_multiplication", "36_RMSNorm_", "38_L1Norm_",
                 "94_MSELoss", "96_HuberLoss", "100_HingeLoss", "40_LayerNorm", "90_cumprod",
                 "91_cumsum_reverse", "92_cumsum_exclusive", "93_masked_cumsum",
                 "34_InstanceNorm", "99_TripletMarginLoss"):
        assert rows[name].family, rows[name].reason
    for name, family in (("41_Max_Pooling_1D", "pool1d"), ("44_Average_Pooling_1D", "pool1d"),
                         ("43_Max_Pooling_3D", "pool3d"), ("46_Average_Pooling_3D", "pool3d"),
                         ("33_BatchNorm", "batch_norm"), ("10_3D_tensor_matrix_multiplication",
                                                          "matmul"),
                         ("11_4D_tensor_matrix_multiplication", "matmul"),
                         ("14_Matmul_for_upper_triangular_matrices", "matmul"),
                         ("15_Matmul_for_lower_triangular_matrices", "matmul")):
        assert rows[name].family == family, rows[name].reason
    # exact families take these; the graph path covers them on its own as well
    for name, family in (("51_Argmax_over_a_dimension", "row_reduce"),
                         ("52_Argmin_over_a_dimension", "row_reduce"), ("89_cumsum", "scan")):
        planned = plan_task(next(t for t in tasks if readable_task_name(t.name) == name))
        assert isinstance(planned, Plan) and planned.label == family, planned


def test_reshape_sizes_follow_the_source_shape():
    assert regroup((4, 6, 8), (1, 24, 8)) == ("1", "{h}.shape[0] * {h}.shape[1]", "{h}.shape[2]")
    # a split's sizes are choices (choices.py), settled to the first where one shape decides
    assert settle(regroup((24, 8), (4, 6, 8))) == ("{h}.shape[0] // 6", "6", "{h}.shape[1]")
    # a split that an input's dims and a constructor argument both explain offers both
    both = regroup((32, 8), (2, 16, 8), inputs=[("x", (2, 16, 64))], inits=(64, 16))
    assert both[:2] == (choice(["{h}.shape[0] // self.size1", "x.shape[0]"]),
                        choice(["self.size1", "x.shape[1]"]))
    assert regroup((4, 1, 6), (4, 6, 1)) == ("{h}.shape[0]", "{h}.shape[2]", "1")


def test_scan_positions_read_as_code():
    assert Pos().text() == "r"
    assert Pos().flipped(0).text() == "n_scan - r - 1"
    assert Pos().flipped(0).flipped(0) == Pos()
    assert Pos().shifted(1).text() == "r + 1"


def test_few_long_rows_are_cut_into_chunks_at_run_time():
    source = generate(OWN / "layer_norm_3d.py").source
    # one kernel a pass over (row, chunk), and the one-program row kernel for many rows
    assert "row_kernel_c2[(math.prod(F[:1]), split)](" in source and "if split > 1:" in source
    assert "row_kernel[grid](" in source


def test_an_op_two_writer_modules_write_is_an_error_unless_one_replaces_the_other():
    """After a merge, graph_scatter's `ones` replaced graph_index's in silence and bool masks
    were written as 1.0 (causal_softmax failed on the CPU)."""
    from types import SimpleNamespace

    from warpsmith.library.graph import writers_of

    first = SimpleNamespace(__name__="first", WRITERS={"ones": 1, "triu": 2})
    later = SimpleNamespace(__name__="later", WRITERS={"ones": 3})
    with pytest.raises(ValueError, match="ones"):
        writers_of(first, later)
    later.REPLACES = {"ones"}
    assert writers_of(first, later) == {"ones": 3, "triu": 2}
