"""builtin/models: ops written as 2024-26 model code writes them, in plain KernelBench format
(issue 30). Every file loads, its reference runs in eager PyTorch on the CPU in the dtypes the
file gives, and again at the verifier's secret-twin sizes (every module-level size grown)."""

import pytest
import torch
from torch.utils._pytree import tree_leaves

from warpsmith.tasks import load_suite
from warpsmith.tasks.admission import admission_problems
from warpsmith.tasks.loader import import_task_module
from warpsmith.types import Shape
from warpsmith.verify.checks.reference import perturbed, sizes_of

TASKS, ERRORS = load_suite("builtin/models")
EXTRAS = ("DTYPE", "TOLERANCE", "ALLOWED_TORCH", "NONNEGATIVE_INPUTS", "MODE",
          "ALLOW_TF32")
MAX_ELEMENTS = 64 * 1024  # verified on the CPU through the Triton interpreter in CI


def _run(task, values: dict):
    module = import_task_module(task.path)
    for name, value in values.items():
        setattr(module, name, value)
    torch.manual_seed(0)
    model = module.Model(*module.get_init_inputs())
    inputs = module.get_inputs()
    outputs = [t for t in tree_leaves(model(*inputs)) if isinstance(t, torch.Tensor)]
    return module, model, inputs, outputs


def _shapes(run) -> list:
    _, _, inputs, outputs = run
    return [x.shape for x in inputs + outputs if isinstance(x, torch.Tensor)]


def _dtypes(model, inputs) -> set[torch.dtype]:
    tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
    return {t.dtype for t in tensors + list(model.parameters()) + list(model.buffers())}


def test_the_suite_loads_and_is_large_enough():
    assert not ERRORS, "\n".join(str(e) for e in ERRORS)
    assert len(TASKS) >= 30


@pytest.mark.parametrize("task", TASKS, ids=[t.title for t in TASKS])
def test_reference_runs_in_its_own_dtypes(task):
    module, model, inputs, outputs = _run(task, {})
    assert not [n for n in EXTRAS if hasattr(module, n)], "plain KernelBench format only"
    assert [s.name for s in task.shapes] == ["default", "gpu"]  # SHAPES, the one extra
    assert task.shapes[0].values == {k: getattr(module, k) for k in task.shapes[0].values}
    assert outputs and all(torch.isfinite(o.double()).all() for o in outputs)
    assert all(x.numel() < MAX_ELEMENTS for x in inputs if isinstance(x, torch.Tensor))
    assert sum(p.numel() for p in model.parameters()) < MAX_ELEMENTS


@pytest.mark.parametrize("task", TASKS, ids=[t.title for t in TASKS])
def test_reference_runs_at_grown_sizes(task):
    """The secret twin grows every module-level size by 1 to 3; each file's constraints
    (even head sizes, channels a multiple of the groups) hold at any of them."""
    # the sizes of 8 and more, as without SHAPES (sizes_of): smaller ones (head and group
    # counts) the twin leaves alone
    sizes = {k: v for k, v in sizes_of(task, task.shapes[0]).values.items() if v >= 8}
    assert sizes, "no module-level size for the twin to vary"
    base = _shapes(_run(task, {}))
    for grow in (1, 2, 3):
        grown = {k: v + grow if isinstance(v, int) else v for k, v in sizes.items()}
        assert _shapes(_run(task, grown)) != base
    twin = perturbed(Shape("default", sizes))
    assert twin is not None and _run(task, twin.values)[3]


def test_the_suite_covers_model_dtypes_and_several_outputs():
    kinds = {t.title.split("/")[-1]: _run(t, {}) for t in TASKS}
    low = [n for n, (_, m, x, _) in kinds.items()
           if _dtypes(m, x) & {torch.bfloat16, torch.float16}]
    several = [n for n, (*_, out) in kinds.items() if len(out) > 1]
    assert len(low) >= 18 and len(several) >= 6
    mixed = kinds["residual_add_rmsnorm_fp32"]
    assert {torch.bfloat16, torch.float32} <= {x.dtype for x in mixed[2]}
    assert torch.complex64 in _dtypes(*kinds["rope_interleaved_complex"][1:3])


@pytest.mark.parametrize("task", TASKS, ids=[t.title for t in TASKS])
def test_task_is_admissible(task):
    """What the built-in levels pass, less the rules about warpsmith's own extras (a small
    shape, NONNEGATIVE_INPUTS for inputs of one sign): outputs that depend on every input and
    parameter, deterministic, countable."""
    problems = [p for p in admission_problems(task, "default") if "is not mixed-sign" not in p]
    assert not problems, "; ".join(problems)
