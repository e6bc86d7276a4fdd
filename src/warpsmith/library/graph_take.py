"""graph.py's writers for indexing by tensors of positions, `z[:, li, lj]` (DLRM's pairwise
products below the diagonal), and for `torch.tril_indices` / `triu_indices`, the positions
such code makes.

The positions are a leaf the forward makes (`torch.tril_indices(n, n, -1)`, n over an
input's run-time size where one shows it, so the candidate follows the verifier's twin).
An index by 1-D tensors of positions along adjacent dims is a "take" value over (source,
*positions), its first indexed dim in `dims`, which only the take family (take.py) places:
a gather kernel storing its result, like a product's stored output.
"""

from __future__ import annotations

from .graph import Val, _Builder
from .graph_parts import _bound
from .ops import Unsupported
from .trace import Node


def _size(b: _Builder, value: int) -> str:
    """_bound, or an input's size plus one (DLRM's dense row joined to its sparse rows)."""
    found = _bound(b, value)
    if found != str(value):
        return found
    for i, meta in enumerate(b.trace.inputs):
        for j, size in enumerate(meta.shape if meta is not None else ()):
            if size + 1 == value:
                return f"{{{i}}}.shape[{j}] + 1"
    return found


def _tri_indices(b: _Builder, index: int, node: Node) -> None:
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "leaf", -1,
              source=("tri_indices", node.name, _size(b, node.arg("row")),
                      _size(b, node.arg("col")), int(node.arg("offset") or 0))))


def take(b: _Builder, index: int, node: Node) -> None:
    """index.Tensor with tensors of positions (graph_parts._index hands them here)."""
    indices = node.arg("indices")
    at = [d for d, t in enumerate(indices) if t is not None]
    src = b.operand(index, "self", node.arg("self"))
    ids = [b.operand(index, f"indices[{d}]", indices[d]) for d in at]
    shapes = {b.vals[i].shape for i in ids}
    if at != list(range(at[0], at[0] + len(at))) or len(shapes) != 1 or \
            len(next(iter(shapes))) != 1 or any(
                b.vals[i].dtype not in ("int64", "int32") for i in ids):
        raise Unsupported("indexes by tensors of positions other than 1-D integer ones of "
                          "one length along adjacent dims")
    meta = node.outs[0]
    b.put(Val(f"v{index}", meta.shape, meta.dtype, "take", index, operands=(src, *ids),
              dims=(at[0],)))


WRITERS = {"tril_indices": _tri_indices, "triu_indices": _tri_indices}
