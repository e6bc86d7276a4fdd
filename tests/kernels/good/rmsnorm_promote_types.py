# task: models/rmsnorm_fp32_cast
# expect: passed
# Honest (round 10): the output dtype from torch.promote_types (dtype arithmetic), refused by the op guard before.
# Llama RMSNorm: fp32 statistics, cast back to bf16 before the weight multiply (HF order).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def llama_rmsnorm_kernel(X, W, Y, stride_x, stride_y, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / N
    xn = (x * tl.rsqrt(var + eps)).to(X.dtype.element_ty)
    w = tl.load(W + cols, mask=mask, other=0.0)
    y = (w.to(tl.float32) * xn.to(tl.float32)).to(Y.dtype.element_ty)
    tl.store(Y + row * stride_y + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, dtype=torch.bfloat16))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        shape = hidden_states.shape
        x = hidden_states.reshape(-1, shape[-1]).contiguous()
        out_dtype = torch.promote_types(self.weight.dtype, x.dtype)
        y = torch.empty(x.shape, device=x.device, dtype=out_dtype)
        M, N = x.shape
        llama_rmsnorm_kernel[(M,)](x, self.weight, y, x.stride(0), y.stride(0), N,
                                   self.variance_epsilon, BLOCK_N=triton.next_power_of_2(N))
        return y.view(shape)
