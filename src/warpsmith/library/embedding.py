"""Embedding lookup: one program per id copies its table row in BLOCK-wide chunks."""

from __future__ import annotations

from .match import _is_input, _ops, _out, _parameter, matcher
from .registry import register
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


@register("embedding")
class Embedding:
    defaults = {"BLOCK": 4096, "NUM_WARPS": 4}

    def render(self, params: dict, tune: dict[str, int]) -> str:
        weight = params["weight"]
        return header("embedding", tune) + fill(
            KERNELS, init=constructor([weight], {}), signature=signature(params["args"]),
            ids=params["args"][0], weight=weight["name"])


# ---- the matcher: which traces this family implements --------------------

@matcher("embedding")
def match_embedding(trace: Trace) -> dict | None:
    if _ops(trace) != ("embedding.default",) or trace.output != _out(0) \
            or len(trace.inputs) != 1 or trace.inputs[0] is None \
            or trace.inputs[0].dtype not in ("int64", "int32"):
        return None
    node = trace.nodes[0]
    table = _parameter(trace, node.arg("weight"))
    if table is None or len(table["shape"]) != 2 or not _is_input(node.arg("indices"), 0):
        return None
    return {"weight": table}


