"""library/shared.py: kernels that differ only in their names are written once, and the
launches of the others call the one kept."""

from pathlib import Path

from warpsmith.library import generate
from warpsmith.library.family import Piece
from warpsmith.library.shared import share

OWN = Path(__file__).parent / "tasks"

ROW = '''
@triton.jit
def {name}({w}_ptr, {x}_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # pass 1: {v}mean
    {v} = tl.load({x}_ptr + tl.arange(0, BLOCK), mask=tl.arange(0, BLOCK) < n, other={c})
    {w} = tl.load({w}_ptr)
    tl.store(out_ptr + tl.arange(0, BLOCK), {f}({v}) * {w}, mask=tl.arange(0, BLOCK) < n)
'''


def _piece(name, w="p_bn1_weight", x="cv0", v="v9", c="0", f="tl.abs") -> Piece:
    return Piece(ROW.format(name=name, w=w, x=x, v=v, c=c, f=f),
                 (f"{name}[(1,)](self.{w}, {x}, out, {x}.numel(), BLOCK=1024)",))


def test_renamed_parameters_and_locals_share_one_kernel():
    shared = share([_piece("row_kernel_pro1"),
                    _piece("row_kernel_pro4", w="p_layer1_bn2_weight", x="cv3", v="v14")])
    assert shared.kernels.count("@triton.jit") == 1
    assert shared.launch[1].startswith("row_kernel_pro1[(1,)](self.p_layer1_bn2_weight, cv3,")


def test_a_different_constant_or_function_is_another_kernel():
    assert share([_piece("a"), _piece("b", c="1")]).kernels.count("@triton.jit") == 2
    assert share([_piece("a"), _piece("b", f="tl.sqrt")]).kernels.count("@triton.jit") == 2


def test_a_model_writes_each_distinct_kernel_once():
    """A DenseNet block's three BatchNorm → ReLU → conv layers: one 3x3 convolution kernel
    (and its depthwise twin) for all three, every launch through conv_launch."""
    made = generate(OWN / "dense_block_cat_bn.py")
    assert made.source.count("def conv_kernel") == 2  # the GEMM one and the depthwise one
    assert made.source.count("= conv_launch(conv_kernel_2, conv_kernel_2_depthwise,") == 3
