# task: level1/layer_norm
# expect: passed
# Honest (round 10): tl.math under a module-level alias (tlmath = tl.math), read as a host object before.
# Welford-free two-pass LayerNorm with a module-level alias for triton.language.math.
import torch
import torch.nn as nn
import triton
import triton.language as tl

tlmath = tl.math  # short alias, as many Triton codebases write it


def _num_warps(block: int) -> int:
    if block >= 8192:
        return 16
    if block >= 2048:
        return 8
    return 4


@triton.jit
def layernorm_fwd_kernel(X, W, B, Y, stride_x, stride_y, N, eps,
                         BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = tlmath.rsqrt(var + eps)
    w = tl.load(W + cols, mask=mask, other=1.0)
    b = tl.load(B + cols, mask=mask, other=0.0)
    tl.store(Y + row * stride_y + cols, xc * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.bias = nn.Parameter(torch.zeros(hidden))
        self.eps = eps

    def forward(self, x):
        shape = x.shape
        x2 = x.reshape(-1, shape[-1]).contiguous()
        M, N = x2.shape
        y = torch.empty_like(x2)
        BLOCK_N = triton.next_power_of_2(N)
        layernorm_fwd_kernel[(M,)](x2, self.weight, self.bias, y, x2.stride(0), y.stride(0),
                                   N, self.eps, BLOCK_N=BLOCK_N, num_warps=_num_warps(BLOCK_N))
        return y.view(shape)
