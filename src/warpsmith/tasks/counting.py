"""FLOPs and the fewest bytes a task must move, counted on the meta device.

Conventions (docs/tasks.md): products and convolutions cost 2·M·N·K (torch's own flop
registry); attention is counted as its two products, halved when causal; a pointwise ATen op
costs one FLOP per output element, a reduction one per input element, and the fused
normalisations a few per element (table below). Views, copies, gathers and allocation are free.
An op with no rule is reported, never guessed.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.flop_counter import flop_registry

from ..errors import TaskError
from ..types import Cost, Task
from .loader import build, make_inputs

aten = torch.ops.aten

# FLOPs per element of the first input, for fused ops that are neither tagged pointwise nor
# reductions. softmax: max, subtract, exp, sum, divide.
PER_INPUT_ELEMENT = {
    "_softmax": 5, "_log_softmax": 5, "logsumexp": 4,
    "native_layer_norm": 8, "native_group_norm": 8, "_native_batch_norm_legit_no_training": 4,
    "native_batch_norm": 4, "_native_batch_norm_legit": 8, "cumsum": 1, "cumprod": 1,
    "linalg_vector_norm": 2, "norm": 2, "var": 3, "std": 3, "var_mean": 3, "std_mean": 3,
    "nll_loss_forward": 1, "nll_loss2d_forward": 1, "mse_loss": 3, "huber_loss": 4,
    "smooth_l1_loss": 4, "binary_cross_entropy": 6, "kl_div": 4, "_cdist_forward": 3,
    "topk": 1, "sort": 1, "max": 1, "min": 1, "argmax": 1, "argmin": 1, "aminmax": 2,
    # pointwise, but not tagged so in torch 2.11 (found uncounted on the GPU machine)
    "leaky_relu": 1,
    # log-sigmoid, the two products, the pos_weight product, the sum: about six a logit
    "binary_cross_entropy_with_logits": 6,
}
# Accumulating scatters cost one add per element they scatter, the argument at this index
# (index_add(self, dim, index, source), scatter_add(self, dim, index, src)).
SCATTERED = {"index_add": 3, "scatter_add": 3, "scatter_reduce": 3, "index_reduce": 3}
# Pooling costs one FLOP per window element: kernel area times output elements.
POOLING = {"max_pool2d_with_indices", "avg_pool2d", "max_pool1d", "avg_pool1d",
           "max_pool3d_with_indices", "avg_pool3d", "_adaptive_avg_pool2d",
           "adaptive_max_pool2d"}
FREE = {
    "view", "_unsafe_view", "reshape", "permute", "transpose", "t", "expand", "squeeze",
    "unsqueeze", "slice", "select", "as_strided", "alias", "detach", "clone", "contiguous",
    "_to_copy", "copy_", "copy", "empty", "empty_like", "empty_strided", "new_empty",
    "new_empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
    "fill_", "fill", "zero_", "new_zeros", "new_ones", "new_full", "arange", "cat", "stack",
    "split", "split_with_sizes", "chunk", "unbind", "index", "index_select", "gather",
    "embedding", "flip", "roll", "repeat", "tril", "triu", "diagonal", "narrow", "unfold",
    "lift_fresh", "lift_fresh_copy", "scalar_tensor", "_local_scalar_dense", "resize_",
    "constant_pad_nd", "pad", "im2col", "col2im", "linspace", "_reshape_alias", "view_as_real",
    "view_as_complex", "movedim", "flatten", "unflatten", "set_", "masked_select", "one_hot",
    "eye", "_unsafe_index", "scatter", "index_put", "index_put_", "bucketize", "searchsorted",
    "tril_indices", "triu_indices", "polar", "complex",
}
ATTENTION = {F.scaled_dot_product_attention}
NOT_ON_META = "(the reference cannot run on the meta device"


class _Counter(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.matmul = 0
        self.other = 0
        self.uncounted: set[str] = set()
        self.suppressed = 0  # inside an op counted at the torch-function level

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if not self.suppressed:
            self._count(func, args, kwargs, out)
        return out

    def _count(self, func, args, kwargs, out):
        packet = func.overloadpacket
        name = packet.__name__.rstrip("_") if packet.__name__ != "_" else packet.__name__
        if packet in flop_registry:
            self.matmul += int(flop_registry[packet](*args, **kwargs, out_val=out))
        elif torch.Tag.pointwise in _tags(func):
            self.other += _numel(out)
        elif torch.Tag.reduction in _tags(func):
            self.other += _numel(args[0])
        elif name in PER_INPUT_ELEMENT or packet.__name__ in PER_INPUT_ELEMENT:
            key = packet.__name__ if packet.__name__ in PER_INPUT_ELEMENT else name
            self.other += PER_INPUT_ELEMENT[key] * _numel(args[0])
        elif name in SCATTERED:
            self.other += _numel(args[SCATTERED[name]])
        elif name == "_embedding_bag":  # one add per looked-up element: indices × width
            self.other += _numel(args[1]) * args[0].shape[-1]
        elif name in POOLING:
            self.other += _pool_window(args, kwargs) * _numel(out)
        elif name not in FREE and packet.__name__ not in FREE:
            self.uncounted.add(f"aten.{packet.__name__}")


class _Attention(TorchFunctionMode):
    """Counts scaled_dot_product_attention as one op, whatever backend it decomposes into."""

    def __init__(self, counter: _Counter):
        super().__init__()
        self.counter = counter

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func not in ATTENTION or self.counter.suppressed:
            return func(*args, **kwargs)
        self.counter.matmul += attention_flops(args[0], args[1], args[2],
                                               causal=_causal(args, kwargs))
        self.counter.suppressed += 1
        try:
            return func(*args, **kwargs)
        finally:
            self.counter.suppressed -= 1


def attention_flops(q, k, v, causal: bool = False) -> int:
    """Q·Kᵀ and P·V: 2·B·H·Sq·Sk·(Dqk + Dv), halved when causal (only half the scores exist)."""
    batch = math.prod(q.shape[:-2])
    sq, dqk = q.shape[-2], q.shape[-1]
    sk, dv = k.shape[-2], v.shape[-1]
    flops = 2 * batch * sq * sk * (dqk + dv)
    return flops // 2 if causal else flops


def count_cost(task: Task, shape: str) -> Cost:
    """Count one reference call at `shape` without allocating real memory. A reference that
    cannot run on the meta device (it reads a value: `.item()` in `__init__`) is uncountable,
    its reason in uncounted_ops and its inputs' bytes as the bytes."""
    try:
        inst = build(task, shape, device="meta")
        counter = _Counter()
        with torch.no_grad(), _Attention(counter), counter:
            out = inst.model(*inst.inputs)
    except Exception as e:  # the task's own code, run on meta tensors
        return _uncountable(task, shape, e)
    read = _tensors(inst.inputs) + list(inst.model.parameters()) + list(inst.model.buffers())
    return Cost(
        matmul_flops=counter.matmul,
        other_flops=counter.other,
        bytes=_bytes(read) + _bytes(_tensors(out)),
        uncounted_ops=tuple(sorted(counter.uncounted)),
    )


def _uncountable(task: Task, shape: str, error: Exception) -> Cost:
    message = error.message if isinstance(error, TaskError) else f"{type(error).__name__}: {error}"
    try:
        read = _bytes(_tensors(make_inputs(task, shape, device="meta")))
    except TaskError:
        read = 0
    why = f"{NOT_ON_META}: {message.splitlines()[0][:200]})"
    return Cost(matmul_flops=0, other_flops=0, bytes=read, uncounted_ops=(why,))


def ran_on_meta(cost: Cost) -> bool:
    return not any(op.startswith(NOT_ON_META) for op in cost.uncounted_ops)


def _tags(func) -> set:
    """An in-place op's tags, with its out-of-place twin's (masked_fill_ lacks 'pointwise')."""
    tags = set(func.tags)
    base = func.overloadpacket.__name__
    twin = getattr(aten, base.rstrip("_"), None) if base.endswith("_") else None
    overload = getattr(twin, func._overloadname, None) if twin is not None else None
    return tags | set(overload.tags) if overload is not None else tags


def _causal(args, kwargs) -> bool:
    return bool(kwargs.get("is_causal", args[5] if len(args) > 5 else False))


def _tensors(tree) -> list[torch.Tensor]:
    return [x for x in tree_leaves(tree) if isinstance(x, torch.Tensor)]


def _bytes(tensors) -> int:
    seen, total = set(), 0
    for t in tensors:
        if id(t) not in seen:
            seen.add(id(t))
            total += t.numel() * t.element_size()
    return total


def _numel(x) -> int:
    return sum(t.numel() for t in _tensors(x))


def _pool_window(args, kwargs) -> int:
    kernel = kwargs.get("kernel_size", args[1] if len(args) > 1 else 1)
    if isinstance(kernel, int):
        kernel = [kernel] * max(1, args[0].dim() - 2)
    return math.prod(kernel) or 1
