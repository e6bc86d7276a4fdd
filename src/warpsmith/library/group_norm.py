"""GroupNorm over (N, C, *) tensors: one program per (sample, group), whose C/G channels are
one contiguous run; shifted sums in one pass, then normalise with the per-channel affine."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Lit, Params, _is_input, _one_float_input, _ops, _out, _parameter
from .render import constructor, fill, header, signature
from .trace import Trace

KERNELS = '''
@triton.jit
def group_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, group_size, spatial, channels_per_group,
                      channels, eps, HAS_WEIGHT: tl.constexpr, HAS_BIAS: tl.constexpr,
                      BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)  # sample * groups + group
    base = pid * group_size
    first_channel = (pid * channels_per_group) % channels
    offs = tl.arange(0, BLOCK)
    # Sums of x - pivot (the group's first element) keep the variance free of cancellation.
    pivot = tl.load(x_ptr + base).to(tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, group_size, BLOCK):
        i = start + offs
        mask = i < group_size
        d = tl.where(mask, tl.load(x_ptr + base + i, mask=mask, other=0.0).to(tl.float32)
                     - pivot, 0.0)
        acc += d
        acc2 += d * d
    mean_d = tl.sum(acc, axis=0) / group_size
    var = tl.maximum(tl.sum(acc2, axis=0) / group_size - mean_d * mean_d, 0.0)
    mean = pivot + mean_d
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, group_size, BLOCK):
        i = start + offs
        mask = i < group_size
        y = (tl.load(x_ptr + base + i, mask=mask, other=0.0).to(tl.float32) - mean) * rstd
        channel = first_channel + i // spatial
        if HAS_WEIGHT:
            y = y * tl.load(w_ptr + channel, mask=mask, other=0.0).to(tl.float32)
        if HAS_BIAS:
            y = y + tl.load(b_ptr + channel, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + base + i, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
$init
    def forward($signature):
        x = $x.contiguous()
        out = torch.empty_like(x)
        samples, channels = x.shape[0], x.shape[1]
        spatial = math.prod(x.shape[2:])
        per_group = channels // self.groups
        group_size = per_group * spatial
        block = min(BLOCK, triton.next_power_of_2(group_size))
        group_norm_kernel[(samples * self.groups,)](
            x, $weight, $bias, out, group_size, spatial, per_group, channels, self.eps,
            HAS_WEIGHT=$has_weight, HAS_BIAS=$has_bias, BLOCK=block, num_warps=NUM_WARPS)
        return out
'''


@dataclass(frozen=True, kw_only=True)
class GroupNormParams(Params):
    groups: Lit | dict
    eps: Lit | dict
    weight: dict | None  # a parameter (match._parameter), None without affine
    bias: dict | None


class GroupNorm:
    name = "group_norm"
    reads = "trace"
    knobs = {"BLOCK": 4096, "NUM_WARPS": 8}

    def match(self, trace: Trace, ctx) -> GroupNormParams | None:
        return match_group_norm(trace)

    def render(self, params: GroupNormParams, tune: dict[str, int]) -> str:
        weight, bias = params.weight, params.bias
        return header("group_norm", tune) + fill(
            KERNELS,
            init=constructor([p for p in (weight, bias) if p], {"eps": params.eps},
                             {"groups": params.groups}),
            signature=signature(params.args), x=params.args[0],
            weight=f"self.{weight['name']}" if weight else "x",
            bias=f"self.{bias['name']}" if bias else "x",
            has_weight=str(weight is not None), has_bias=str(bias is not None))


# ---- the matcher: which traces this family implements --------------------

def match_group_norm(trace: Trace) -> GroupNormParams | None:
    if _ops(trace) != ("native_group_norm.default",) or not _one_float_input(trace) \
            or trace.output != _out(0):
        return None
    node = trace.nodes[0]
    shape = trace.inputs[0].shape
    if len(shape) < 2 or not _is_input(node.arg("input"), 0):
        return None
    hxw = 1
    for d in shape[2:]:
        hxw *= d
    if (node.arg("N"), node.arg("C"), node.arg("HxW")) != (shape[0], shape[1], hxw) \
            or shape[1] % node.arg("group"):
        return None
    affine = {}
    for role in ("weight", "bias"):
        ref = node.arg(role)
        param = _parameter(trace, ref) if ref is not None else None
        if ref is not None and (param is None or trace.params[ref.key].shape != shape[1:2]):
            return None
        affine[role] = param
    return GroupNormParams(groups=Lit(int(node.arg("group"))), eps=Lit(float(node.arg("eps"))),
                           **affine)


