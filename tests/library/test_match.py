"""The matcher: which family a traced reference gets, the numbers it binds to the constructor,
and the tasks it refuses (with a reason) because their ops are not exactly a known pattern."""

import textwrap
from pathlib import Path

import pytest

from warpsmith.errors import UsageError
from warpsmith.library import FAMILIES, NotCovered, generate
from warpsmith.library.elementwise import FORMULAS, ElementwiseParams, Step
from warpsmith.library.exact import match_task
from warpsmith.library.match import POINTWISE_FORMS, Lit, Match, NoMatch, unify
from warpsmith.tasks import load_task, resolve_task

KB = Path(__file__).parent.parent / "tasks" / "fixtures" / "kb_level1"


def _task(tmp_path, body: str, shapes: str = '{"a": {"ROWS": 4}, "b": {"ROWS": 9}}',
          extra: str = "", init: str = "[]"):
    source = textwrap.dedent('''
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        ROWS = 4
        {extra}
        SHAPES = {shapes}


        class Model(nn.Module):
            def __init__(self, *args):
                super().__init__()
                self.args = args

            def forward(self, x):
        {body}


        def get_inputs():
            return [torch.randn(ROWS, 16)]


        def get_init_inputs():
            return {init}
        ''').format(extra=extra, shapes=shapes, init=init,
                    body=textwrap.indent(textwrap.dedent(body).strip(), " " * 8))
    path = tmp_path / "task.py"
    path.write_text(source)
    return load_task(path)


def test_builtin_relu_is_one_elementwise_step():
    m = match_task(resolve_task("level1/relu"))
    assert m == Match("elementwise", ElementwiseParams(
        args=("x",), dtype="float32", output="v0", steps=(Step("relu", ("a0",), ()),)))


def test_leaky_relu_slope_follows_the_constructor_argument():
    m = match_task(resolve_task("level1/leaky_relu"))
    assert m.params.steps[0].scalars == ({"init": 0},)


def test_layer_norm_declares_the_reference_parameters_sized_by_init_args():
    m = match_task(resolve_task("level1/layer_norm"))
    assert m.family == "layer_norm"
    assert m.params.weight == {"name": "weight", "shape": [{"init": 0}], "dtype": "float32"}
    assert m.params.bias["name"] == "bias"
    assert m.params.eps == {"value": 1e-5}


def test_rms_norm_written_out_and_reductions_over_inner_dims():
    assert match_task(resolve_task("level1/rms_norm")).params.kind == "rms"
    max_dim = match_task(resolve_task("level1/max_dim")).params
    assert (max_dim.op, max_dim.first, max_dim.last) == ("max", -2, -2)
    fro = match_task(resolve_task("level1/frobenius_norm")).params
    assert (fro.op, fro.first, fro.last) == ("norm2", -2, -1)


def test_transposed_operand_and_linear():
    params = match_task(resolve_task("level1/matmul_transposed_a")).params
    assert params.a["transpose"] and not params.b["transpose"]
    linear = match_task(resolve_task("level1/linear_fp16")).params
    assert linear.b["param"]["name"] == "linear.weight" and linear.b["transpose"]
    assert linear.bias["name"] == "linear.bias"


def test_kernelbench_file_is_matched():
    assert match_task(load_task(KB / "23_Softmax.py")).family == "softmax"


@pytest.mark.parametrize("name, words", [
    # the nibbles are unpacked (bitwise ops, stack); the interleave held at (out, in/2, 2)
    # is written first (generator._plan_cut), so its per-group view is one of a tensor; the
    # plans of its two shapes then declare a weight dim no constructor argument gives
    ("models/dequant_int4_linear", "follows none of the constructor's arguments"),
])
def test_builtin_tasks_not_covered_say_why(name, words):
    result = generate(name)
    assert isinstance(result, NotCovered)
    assert words in result.reason


def test_chain_of_pointwise_ops_is_fused(tmp_path):
    m = match_task(_task(tmp_path, "return torch.relu(x) * 2 + 1"))
    assert [s.form for s in m.params.steps] == ["relu", "mul_scalar", "add_scalar"]
    assert m.params.steps[1].scalars == ({"value": 2.0},)


def test_functional_rms_norm_and_normalize(tmp_path):
    m = match_task(_task(tmp_path, "return F.rms_norm(x, (16,), eps=1e-6)"))
    assert m.family == "rms_norm" and m.params.weight is None
    m = match_task(_task(tmp_path, "return F.normalize(x, dim=-1)"))
    assert (m.family, m.params.kind, m.params.eps) == ("rms_norm", "l2", {"value": 1e-12})


def test_scalar_following_an_init_argument_is_bound_to_it(tmp_path):
    task = _task(tmp_path, "return F.leaky_relu(x, self.args[0])", extra="SLOPE = 0.1",
                 shapes='{"a": {"SLOPE": 0.1}, "b": {"SLOPE": 0.3}}', init="[SLOPE]")
    assert match_task(task).params.steps[0].scalars == ({"init": 0},)


@pytest.mark.parametrize("body, extra, shapes, reason", [
    # a number that changes between shapes and is no constructor argument
    ("return F.leaky_relu(x, SLOPE)", "SLOPE = 0.1",
     '{"a": {"SLOPE": 0.1}, "b": {"SLOPE": 0.3}}', "follows none of the constructor"),
    # the reduced dim changes between shapes: no one kernel structure
    ("return x.sum(dim=DIM)", "DIM = -1", '{"a": {"DIM": -1}, "b": {"DIM": 0}}',
     "differs between shapes"),
    # an extra op beside a known pattern is not silently dropped
    ("return torch.relu(x) + x.cumsum(0)", "", '{"a": {"ROWS": 4}}', "no library family"),
    ("return torch.cumprod(x, dim=0)", "", '{"a": {"ROWS": 4}}', "no library family"),
    ("x.relu_()\nreturn x * 2", "", '{"a": {"ROWS": 4}}', "in place"),
    ("return x.sum(), x.max()", "", '{"a": {"ROWS": 4}}', "exactly one tensor"),
])
def test_not_exactly_a_pattern_is_not_covered(tmp_path, body, extra, shapes, reason):
    result = match_task(_task(tmp_path, body, shapes=shapes, extra=extra))
    assert isinstance(result, NoMatch)
    assert reason in result.reason


def test_unify_prefers_the_init_argument_then_a_constant():
    params = [{"s": Lit(2.0), "k": Lit(1e-5), "n": 3}, {"s": Lit(4.0), "k": Lit(1e-5), "n": 3}]
    assert unify(params, [(2.0,), (4.0,)]) == {"s": {"init": 0}, "k": {"value": 1e-5}, "n": 3}
    assert isinstance(unify([{"n": 3}, {"n": 4}], [(), ()]), NoMatch)


def test_every_pointwise_form_has_an_expression():
    assert set(POINTWISE_FORMS) == set(FORMULAS)


def test_knobs_are_declared_rendered_and_checked():
    for family in FAMILIES.values():
        assert family.knobs and all(isinstance(v, int) for v in family.knobs.values())
    generated = generate("level1/softmax", tune={"BLOCK": 1024})
    assert generated.tune["BLOCK"] == 1024 and "\nBLOCK = 1024\n" in generated.source
    with pytest.raises(UsageError, match="no knob"):
        generate("level1/softmax", tune={"BLOKC": 1024})


def test_pooling_with_ceil_mode_is_not_covered(tmp_path):
    source = (Path(__file__).parent / "tasks" / "max_pool_dilated.py").read_text()
    path = tmp_path / "ceil.py"
    path.write_text(source.replace("dilation=2)", "dilation=2, ceil_mode=True)"))
    assert isinstance(match_task(load_task(path)), NoMatch)
    m = match_task(load_task(Path(__file__).parent / "tasks" / "avg_pool_uncounted.py"))
    assert (m.params.kernel, m.params.stride, m.params.count_include_pad) == \
        ((2, 3), (2, 3), False)


@pytest.mark.parametrize("call", [
    "F.scaled_dot_product_attention(q, k, v, scale=0.3)",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=q[0, 0, :, :1] > 0)",
    "torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v",
])
def test_attention_needs_sdpa_default_scale_and_no_mask(tmp_path, call):
    source = (Path(__file__).parent / "tasks" / "attention_fp32.py").read_text()
    path = tmp_path / "attention.py"
    path.write_text(source.replace("F.scaled_dot_product_attention(q, k, v)", call))
    assert isinstance(match_task(load_task(path)), NoMatch)
