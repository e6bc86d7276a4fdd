"""Batch norm in training mode (nn.BatchNorm1d/2d/3d as constructed, as KernelBench runs
them), matcher and renderer in one file: the batch's statistics normalise the output, and the
running statistics and num_batches_tracked are updated in place, as torch does.

Three kernels. `bn_stats_kernel`: (C, SPLIT) programs; each sums BLOCK-long runs of one
channel's planes, x − x[0, c, 0] and its square (the shift keeps the variance exact for data
far from zero), in per-lane fp32 accumulators. `bn_finish_kernel`: one program per channel
folds the SPLIT partials into the mean and 1/√(var + eps), and updates running_mean and
running_var (unbiased) with the momentum; program 0 counts the batch. `bn_apply_kernel`: one
flat grid axis over (plane, tile), (x − mean) · invstd · w + b. Offsets of planes are int64.
"""

from __future__ import annotations

from dataclasses import dataclass

from .match import Lit, Params, _is_input, _is_param, _one_float_input, _ops, _out
from .render import fill, header, scalar, signature, size
from .trace import Trace

KERNELS = '''
@triton.jit
def bn_stats_kernel(x_ptr, part_ptr, C, HW, tiles_hw, total, SPLIT,
                    BLOCK: tl.constexpr):
    c = tl.program_id(0)
    s = tl.program_id(1)
    shift = tl.load(x_ptr + c.to(tl.int64) * HW).to(tl.float32)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    acc2 = tl.zeros((BLOCK,), tl.float32)
    for t in range(s, total, SPLIT):  # t walks (image, tile of the plane) pairs
        n = t // tiles_hw
        hw = (t % tiles_hw) * BLOCK + lanes
        plane = (n.to(tl.int64) * C + c) * HW
        m = hw < HW
        v = tl.load(x_ptr + plane + hw, mask=m, other=0.0).to(tl.float32)
        v = tl.where(m, v - shift, 0.0)
        acc += v
        acc2 += v * v
    tl.store(part_ptr + (c * SPLIT + s) * 2, tl.sum(acc, 0))
    tl.store(part_ptr + (c * SPLIT + s) * 2 + 1, tl.sum(acc2, 0))


@triton.jit
def bn_finish_kernel(x_ptr, part_ptr, stat_ptr, rmean_ptr, rvar_ptr, count_ptr, HW, SPLIT,
                     count, eps, momentum, SPLIT_BLOCK: tl.constexpr):
    c = tl.program_id(0)
    shift = tl.load(x_ptr + c.to(tl.int64) * HW).to(tl.float32)
    r = tl.arange(0, SPLIT_BLOCK)
    total = tl.zeros((SPLIT_BLOCK,), tl.float32)
    total2 = tl.zeros((SPLIT_BLOCK,), tl.float32)
    for start in range(0, SPLIT, SPLIT_BLOCK):
        m = start + r < SPLIT
        total += tl.load(part_ptr + (c * SPLIT + start + r) * 2, mask=m, other=0.0)
        total2 += tl.load(part_ptr + (c * SPLIT + start + r) * 2 + 1, mask=m, other=0.0)
    d = tl.sum(total, 0) / count
    var = tl.maximum(tl.sum(total2, 0) / count - d * d, 0.0)
    mean = shift + d
    tl.store(stat_ptr + c * 2, mean)
    tl.store(stat_ptr + c * 2 + 1, 1.0 / tl.sqrt(var + eps))
    old_mean = tl.load(rmean_ptr + c).to(tl.float32)
    old_var = tl.load(rvar_ptr + c).to(tl.float32)
    unbiased = var * count / tl.maximum(count - 1.0, 1.0)
    tl.store(rmean_ptr + c, ((1.0 - momentum) * old_mean + momentum * mean)
             .to(rmean_ptr.dtype.element_ty))
    tl.store(rvar_ptr + c, ((1.0 - momentum) * old_var + momentum * unbiased)
             .to(rvar_ptr.dtype.element_ty))
    if c == 0:
        tl.store(count_ptr, tl.load(count_ptr) + 1)


@triton.jit
def bn_apply_kernel(x_ptr, stat_ptr, w_ptr, b_ptr, out_ptr, C, HW, tiles_hw,
                    AFFINE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    plane = pid // tiles_hw
    c = plane % C
    hw = (pid % tiles_hw) * BLOCK + tl.arange(0, BLOCK)
    m = hw < HW
    offs = plane.to(tl.int64) * HW + hw
    mean = tl.load(stat_ptr + c * 2)
    scale = tl.load(stat_ptr + c * 2 + 1)
    shift = -mean * scale
    if AFFINE:
        w = tl.load(w_ptr + c).to(tl.float32)
        scale = scale * w
        shift = shift * w + tl.load(b_ptr + c).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * scale + shift).to(out_ptr.dtype.element_ty), mask=m)


class ModelNew(nn.Module):
$init
    def forward($signature):
        x = $x.contiguous()
        n, c = x.shape[0], x.shape[1]
        hw = x.numel() // max(n * c, 1)
        out = torch.empty_like(x)
        tiles = triton.cdiv(hw, STAT_BLOCK)
        split = max(1, min(n * tiles, triton.cdiv(STAT_PROGRAMS, c)))
        part = torch.empty((c, split, 2), dtype=torch.float32, device=x.device)
        stat = torch.empty((c, 2), dtype=torch.float32, device=x.device)
        bn_stats_kernel[(c, split)](x, part, c, hw, tiles, n * tiles, split, BLOCK=STAT_BLOCK,
                                    num_warps=NUM_WARPS)
        running = ($rmean, $rvar, $tracked)
        bn_finish_kernel[(c,)](x, part, stat, *running, hw, split, float(n * hw), $eps,
                               $momentum, SPLIT_BLOCK=128)
        tiles = triton.cdiv(hw, APPLY_BLOCK)
        weight, bias = $weight, $bias
        bn_apply_kernel[(n * c * tiles,)](x, stat, weight, bias, out, c, hw, tiles,
                                          AFFINE=$affine, BLOCK=APPLY_BLOCK,
                                          num_warps=NUM_WARPS)
        return out
'''


@dataclass(frozen=True, kw_only=True)
class BatchNormParams(Params):
    # state_dict names: running_mean, running_var, tracked, weight and bias (None: no affine)
    names: dict[str, str | None]
    channels: Lit | dict
    eps: Lit | dict
    momentum: Lit | dict


class BatchNorm:
    name = "batch_norm"
    reads = "trace"
    updates_state = True  # its kernels make the forward's in-place updates (running stats)
    knobs = {"STAT_BLOCK": 1024, "STAT_PROGRAMS": 2048, "APPLY_BLOCK": 2048,
             "NUM_WARPS": 8}

    def match(self, trace: Trace, ctx) -> BatchNormParams | None:
        return match_batch_norm(trace)

    def render(self, params: BatchNormParams, tune: dict[str, int]) -> str:
        names = params.names
        return header("batch_norm", tune) + fill(
            KERNELS, init=_constructor(params), signature=signature(params.args),
            x=params.args[0], rmean=f"self.{names['running_mean']}",
            rvar=f"self.{names['running_var']}", tracked=f"self.{names['tracked']}",
            eps=scalar(params.eps), momentum=scalar(params.momentum),
            affine=str(names["weight"] is not None),
            weight=f"self.{names['weight']}" if names["weight"] else "stat",
            bias=f"self.{names['bias']}" if names["bias"] else "stat")


def _constructor(params: BatchNormParams) -> str:
    """The reference's parameters and buffers, by the same names: weight and bias as
    parameters, the running statistics and the batch count as buffers the kernels update."""
    names, channels, dtype = params.names, size(params.channels), params.dtype
    lines = ["    def __init__(self, *args):", "        super().__init__()"]
    holders = sorted({n.rsplit(".", 1)[0] for n in names.values() if n and "." in n})
    lines += [f"        self.{h} = nn.Module()" for h in holders]
    for role, init in (("weight", "ones"), ("bias", "zeros")):
        if names[role]:
            lines.append(f"        self.{names[role]} = nn.Parameter(torch.{init}("
                         f"({channels},), dtype=torch.{dtype}))")
    for role, made in (("running_mean", f"torch.zeros(({channels},), dtype=torch.{dtype})"),
                       ("running_var", f"torch.ones(({channels},), dtype=torch.{dtype})"),
                       ("tracked", "torch.zeros((), dtype=torch.int64)")):
        holder, _, attr = names[role].rpartition(".")
        owner = f"self.{holder}" if holder else "self"
        lines.append(f'        {owner}.register_buffer("{attr}", {made})')
    return "\n".join(lines) + "\n"


def match_batch_norm(trace) -> BatchNormParams | None:
    """add_(num_batches_tracked, 1), an unused empty(), native_batch_norm(training=True) with
    running statistics and a float momentum, over an (N, C, …) input."""
    nodes, ops = trace.nodes, _ops(trace)
    if len(ops) != 3 or ops != ("add_.Tensor", "empty.memory_format",
                                "native_batch_norm.default") or trace.output != _out(2) \
            or not _one_float_input(trace) or len(trace.inputs[0].shape) < 2:
        return None
    count, bn = nodes[0], nodes[2]
    args = dict(bn.args)
    tracked = count.arg("self")
    if not (_is_param(tracked) and tracked.key.endswith("num_batches_tracked")
            and count.arg("other") == 1 and count.arg("alpha") == 1
            and _is_input(args["input"], 0) and args["training"]
            and isinstance(args["momentum"], float)
            and all(_is_param(args[k]) for k in ("running_mean", "running_var"))):
        return None
    names = {"tracked": tracked.key}
    channels = trace.inputs[0].shape[1]
    for role in ("weight", "bias", "running_mean", "running_var"):
        ref = args[role]
        if ref is not None and not (_is_param(ref) and _attribute_path(ref.key)
                                    and trace.params[ref.key].shape == (channels,)
                                    and trace.params[ref.key].dtype == trace.dtype):
            return None
        names[role] = ref.key if ref is not None else None
    if (names["weight"] is None) != (names["bias"] is None) \
            or not _attribute_path(tracked.key):
        return None
    return BatchNormParams(names=names, channels=Lit(channels), eps=Lit(float(args["eps"])),
                           momentum=Lit(float(args["momentum"])))


def _attribute_path(name: str) -> bool:
    return all(part.isidentifier() for part in name.split("."))
