"""Embedding lookup: one program per id copies its table row in BLOCK-wide chunks."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Params, _is_input, _ops, _out, _parameter
from .render import constructor, fill, header, signature
from .trace import Trace

KERNELS = '''
@triton.jit
def embedding_kernel(ids_ptr, table_ptr, out_ptr, dim, stride_t, BLOCK: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    row = tl.load(ids_ptr + token).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    for start in range(0, dim, BLOCK):
        c = start + cols
        mask = c < dim
        values = tl.load(table_ptr + row * stride_t + c, mask=mask)
        tl.store(out_ptr + token * dim + c, values, mask=mask)


class ModelNew(nn.Module):
$init
    def forward($signature):
        ids = $ids.contiguous()
        table = self.$weight
        dim = table.shape[1]
        out = torch.empty(tuple(ids.shape) + (dim,), dtype=table.dtype, device=table.device)
        block = min(BLOCK, triton.next_power_of_2(dim))
        embedding_kernel[(ids.numel(),)](ids, table, out, dim, table.stride(0), BLOCK=block,
                                         num_warps=NUM_WARPS)
        return out
'''


@dataclass(frozen=True, kw_only=True)
class EmbeddingParams(Params):
    weight: dict  # the table (match._parameter)


class Embedding:
    name = "embedding"
    reads = "trace"
    knobs = {"BLOCK": 4096, "NUM_WARPS": 4}

    def match(self, trace: Trace, ctx) -> EmbeddingParams | None:
        return match_embedding(trace)

    def render(self, params: EmbeddingParams, tune: dict[str, int]) -> str:
        weight = params.weight
        return header("embedding", tune) + fill(
            KERNELS, init=constructor([weight], {}), signature=signature(params.args),
            ids=params.args[0], weight=weight["name"])


# ---- the matcher: which traces this family implements --------------------

def match_embedding(trace: Trace) -> EmbeddingParams | None:
    if _ops(trace) != ("embedding.default",) or trace.output != _out(0) \
            or len(trace.inputs) != 1 or trace.inputs[0] is None \
            or trace.inputs[0].dtype not in ("int64", "int32"):
        return None
    node = trace.nodes[0]
    table = _parameter(trace, node.arg("weight"))
    if table is None or len(table["shape"]) != 2 or not _is_input(node.arg("indices"), 0):
        return None
    return EmbeddingParams(weight=table)




BAG_KERNELS = '''
@triton.jit
def embedding_bag_kernel(ids_ptr, offsets_ptr, table_ptr, out_ptr, n_ids, n_offsets, dim,
                         stride_t, PAD: tl.constexpr, MEAN: tl.constexpr,
                         BLOCK: tl.constexpr):
    bag = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < dim
    start = tl.load(offsets_ptr + bag).to(tl.int64)
    # the last bag runs to the end of the ids unless the offsets close it themselves
    end = tl.load(offsets_ptr + bag + 1, mask=bag + 1 < n_offsets, other=n_ids).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    count = 0.0
    for i in range(start, end):
        row = tl.load(ids_ptr + i).to(tl.int64)
        keep = row != PAD  # padding_idx's entries add nothing and are not counted
        acc += tl.load(table_ptr + row * stride_t + cols, mask=mask & keep,
                       other=0).to(tl.float32)
        count += keep.to(tl.float32)
    if MEAN:
        acc = acc / tl.maximum(count, 1.0)  # an empty bag is zeros, as torch's
    tl.store(out_ptr + bag * dim + cols, acc.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
$init
    def forward($signature):
        bag_ids = $ids.contiguous()
        bag_starts = $offsets.contiguous()
        table = self.$weight
        dim = table.shape[1]
        bags = bag_starts.numel() - $last
        out = torch.empty((bags, dim), dtype=table.dtype, device=table.device)
        block = min(BLOCK, triton.next_power_of_2(dim))
        embedding_bag_kernel[(bags, triton.cdiv(dim, block))](
            bag_ids, bag_starts, table, out, bag_ids.numel(), bag_starts.numel(), dim,
            table.stride(0),
            PAD=$pad, MEAN=$mean, BLOCK=block, num_warps=NUM_WARPS)
        return out
'''

BAG_MODES = {0: "sum", 1: "mean"}  # max bags (2) would need torch's NaN and index rules


@dataclass(frozen=True, kw_only=True)
class EmbeddingBagParams(Params):
    weight: dict  # the table (match._parameter)
    mode: str  # "sum" or "mean"
    include_last_offset: bool
    padding_idx: int  # -1: none


class EmbeddingBag:
    """nn.EmbeddingBag over 1-D ids and their bags' offsets, sum or mean: one program per
    bag and BLOCK columns walks the bag's ids, summing their table rows in fp32."""

    name = "embedding_bag"
    reads = "trace"
    knobs = {"BLOCK": 1024, "NUM_WARPS": 4}

    def match(self, trace: Trace, ctx) -> EmbeddingBagParams | None:
        return match_embedding_bag(trace)

    def render(self, params: EmbeddingBagParams, tune: dict[str, int]) -> str:
        weight = params.weight
        return header("embedding_bag", tune) + fill(
            BAG_KERNELS, init=constructor([weight], {}), signature=signature(params.args),
            ids=params.args[0], offsets=params.args[1], weight=weight["name"],
            last=int(params.include_last_offset), pad=params.padding_idx,
            mean=int(params.mode == "mean"))


def match_embedding_bag(trace: Trace) -> EmbeddingBagParams | None:
    if _ops(trace) != ("_embedding_bag.default",) or trace.output != _out(0) \
            or len(trace.inputs) != 2 or any(
                m is None or m.dtype not in ("int64", "int32") or len(m.shape) != 1
                for m in trace.inputs):
        return None
    node = trace.nodes[0]
    table = _parameter(trace, node.arg("weight"))
    if table is None or len(table["shape"]) != 2 or not _is_input(node.arg("indices"), 0) \
            or not _is_input(node.arg("offsets"), 1) or node.arg("mode") not in BAG_MODES \
            or node.arg("per_sample_weights") is not None:
        return None
    pad = node.arg("padding_idx")
    return EmbeddingBagParams(weight=table, mode=BAG_MODES[node.arg("mode")],
                              include_last_offset=bool(node.arg("include_last_offset")),
                              padding_idx=-1 if pad is None or pad < 0 else pad)
