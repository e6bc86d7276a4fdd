"""The reference's parameters reach the candidate's model (verify/child/worker.py): by name
and shape, else by shape in registration order, in the reference's dtype."""

import torch
import torch.nn as nn

from warpsmith.verify.child.models import load_matching


class Reference(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, groups=3, bias=False)
        self.norm = nn.BatchNorm1d(4)


def test_namesakes_are_copied():
    ref = Reference()
    cand = Reference()
    load_matching(cand, ref.state_dict())
    assert all(torch.equal(a, b) for a, b in zip(ref.state_dict().values(),
                                                  cand.state_dict().values(), strict=True))


def test_a_renamed_parameter_gets_the_reference_value_of_its_shape_in_order():
    class Renamed(nn.Module):  # as LLM kernels hold them: self.weight for conv.weight
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(3, 1, 3, 3))
            self.scale = nn.Parameter(torch.randn(4))
            self.shift = nn.Parameter(torch.randn(4))

    ref, cand = Reference(), Renamed()
    load_matching(cand, ref.state_dict())
    assert torch.equal(cand.weight, ref.conv.weight)
    assert torch.equal(cand.scale, ref.norm.weight)  # the first (4,) entry, then the next
    assert torch.equal(cand.shift, ref.norm.bias)


def test_an_integer_buffer_is_never_paired_with_a_float_parameter():
    class Scalar(nn.Module):
        def __init__(self):
            super().__init__()
            self.step = nn.Parameter(torch.tensor(0.5))  # shape (), like num_batches_tracked

    cand = Scalar()
    load_matching(cand, {"norm.num_batches_tracked": torch.tensor(7)})
    assert cand.step.item() == 0.5


def test_a_namesake_of_another_shape_is_left_alone_and_not_paired_elsewhere():
    class Own(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.zeros(2))
            self.other = nn.Parameter(torch.zeros(5))

    cand = Own()
    load_matching(cand, {"weight": torch.ones(5)})
    assert cand.weight.sum() == 0 and cand.other.sum() == 0


def test_the_reference_dtype_wins():
    ref = nn.Linear(4, 4).half()
    cand = nn.Linear(4, 4)
    load_matching(cand, ref.state_dict())
    assert cand.weight.dtype == torch.float16 and torch.equal(cand.weight, ref.weight)


def test_constant_parameters_and_running_statistics_get_secret_values():
    """E14: a kernel that drops LayerNorm's default affine (weight 1, bias 0) or BatchNorm's
    default running statistics passed on KernelBench tasks, which never set them."""
    from warpsmith.verify.checks.reference import vary_constants

    class Defaults(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(8)
            self.bn = nn.BatchNorm1d(8)
            self.scale = nn.Parameter(torch.ones(4) * 3.0)
            self.given = nn.Parameter(torch.tensor(0.5))  # from a constructor argument
            self.linear = nn.Linear(8, 8)
            self.register_buffer("mask", torch.ones(8))  # not a parameter: left alone

    model = Defaults()
    linear = model.linear.weight.clone()
    varied = vary_constants(model)
    assert set(varied) == {"ln.weight", "ln.bias", "bn.weight", "bn.bias", "bn.running_mean",
                           "bn.running_var", "scale"}
    for t in (model.ln.weight, model.ln.bias, model.bn.running_mean, model.scale):
        assert t.min() < t.max()
    assert (model.bn.running_var > 0).all() and (model.scale > 0).all()  # signs kept
    assert model.given.item() == 0.5 and torch.equal(model.mask, torch.ones(8))
    assert torch.equal(model.linear.weight, linear)


def test_a_torch_nn_layers_one_element_default_is_varied_too():
    from warpsmith.verify.checks.reference import vary_constants

    class Act(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.PReLU()  # weight 0.25, one element
            self.scale = nn.Parameter(torch.tensor(2.0))  # the task's own: left alone

    model = Act()
    assert vary_constants(model) == ["act.weight"]
    assert model.act.weight.item() != 0.25 and model.scale.item() == 2.0


class _Rope(nn.Module):
    def __init__(self, n: int, theta: float):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / theta ** (torch.arange(n) / n), persistent=False)


def test_a_non_persistent_buffer_reaches_its_namesake_only():
    """RoPE's inv_freq is in no state_dict: handed to a candidate entry of the same name and
    shape (a parameter or a buffer, saved or not), never to another entry of its shape."""
    from warpsmith.verify.child.models import make_model, spec_of

    class Candidate(nn.Module):
        def __init__(self, n, theta):
            super().__init__()
            self.inv_freq = nn.Parameter(torch.zeros(n))
            self.other = nn.Parameter(torch.zeros(n))

    class Module:  # what make_model reads of the candidate's module
        ModelNew = Candidate

    ref = _Rope(8, 10000.0)
    spec = spec_of(ref, [8, 10000.0], None)
    assert "inv_freq" not in spec["state_dict"] and "inv_freq" in spec["buffers"]
    cand = make_model(Module, spec, torch.device("cpu"))
    assert torch.equal(cand.inv_freq.data, ref.inv_freq)
    assert torch.equal(cand.other.data, torch.zeros(8))  # never matched by shape alone


def test_a_namesake_of_another_shape_keeps_its_own_values():
    from warpsmith.verify.child.models import make_model, spec_of

    class Candidate(nn.Module):
        def __init__(self, n, theta):
            super().__init__()
            self.register_buffer("inv_freq", torch.zeros(n + 1), persistent=False)

    class Module:
        ModelNew = Candidate

    cand = make_model(Module, spec_of(_Rope(8, 10000.0), [8, 10000.0], None),
                      torch.device("cpu"))
    assert torch.equal(cand.inv_freq, torch.zeros(9))
