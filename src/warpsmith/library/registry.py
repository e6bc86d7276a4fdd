"""Every library family, once, in the order they are tried: the one list of families. A
family module not named here is never tried (tests/library/test_registry.py checks every
module that defines a family is). family.py says what a family is.

Exact families first (`reads == "trace"`, exact.py tries them on the whole traced forward):
a narrower pattern before a wider one that would also take its trace. What none of them
takes goes to the graph generator (generator.py), which tries the graph families in this
order on each graph: a convolution or a product first (only the conv and GEMM families place
one, and they hand what follows the stored output back to the others), a pool over a stored
tensor likewise; a top-k stores its values and positions first, an index_add its sums, an
index by positions what it gathers. Then reductions and scans: a graph with none is not their
kind (None), and pointwise refuses both.
"""

from __future__ import annotations

from ..errors import UsageError
from .attention import Attention
from .batch_norm import BatchNorm
from .conv import Conv
from .cross_entropy import CrossEntropy
from .cumsum import Cumsum
from .elementwise import Elementwise
from .embedding import Embedding, EmbeddingBag
from .family import Family
from .gemm import Gemm
from .group_norm import GroupNorm
from .kl_div import KlDiv
from .layer_norm import LayerNorm
from .matmul import Matmul
from .mse_loss import MseLoss
from .pointwise import Pointwise
from .pool2d import Pool2d
from .pool_nd import Pool1d, Pool3d
from .reduce import Reduce
from .rms_norm import RmsNorm
from .row_reduce import RowReduce
from .scan import Scan
from .scatter import Scatter
from .softmax import Softmax
from .take import Take
from .topk import TopK
from .window import WindowFamily

ORDER: tuple[Family, ...] = (
    # exact: one whole forward each
    Elementwise(), Softmax(), LayerNorm(), RmsNorm(), Reduce(), Cumsum(), Matmul(),
    CrossEntropy(), MseLoss(), Embedding(), GroupNorm(), KlDiv(), Pool2d(), Attention(),
    BatchNorm(), Pool3d(), Pool1d(), EmbeddingBag(),
    # graph: parts of a traced graph
    Conv(), Gemm(), WindowFamily(), TopK(), Scatter(), Take(), RowReduce(), Scan(), Pointwise(),
)
FAMILIES: dict[str, Family] = {f.name: f for f in ORDER}
EXACT: tuple[Family, ...] = tuple(f for f in ORDER if f.reads == "trace")
GRAPH: tuple[Family, ...] = tuple(f for f in ORDER if f.reads == "graph")


def by_name(name: str) -> Family:
    if name not in FAMILIES:
        raise UsageError(f"unknown library family {name!r}; choose one of "
                         f"{', '.join(sorted(FAMILIES))}")
    return FAMILIES[name]


def knobs(names: list[str], tune: dict[str, int] | None, label: str) -> dict[str, int]:
    """The knobs of the families a candidate renders, their defaults with `tune` laid over
    them; an unknown knob is a usage error."""
    defaults: dict[str, int] = {}
    for name in names:
        defaults |= by_name(name).knobs
    unknown = sorted(set(tune or {}) - set(defaults))
    if unknown:
        raise UsageError(f"{label} has no knob {', '.join(unknown)} "
                         f"(knobs: {', '.join(defaults)})")
    return defaults | dict(tune or {})
