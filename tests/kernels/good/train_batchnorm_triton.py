# task: tests/tasks/fixtures/kb_semantics/33_BatchNorm.py
# expect: passed
# KernelBench runs its BatchNorm task as constructed, in training mode: normalise each channel
# by the batch's own mean and (biased) variance, then the affine. Two passes per channel.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def batchnorm_train_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n, c, hw, eps,
                           BLOCK: tl.constexpr):
    channel = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    count = n * hw
    total = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, count, BLOCK):
        idx = i + offsets
        mask = idx < count
        where = (idx // hw) * c * hw + channel * hw + idx % hw
        total += tl.load(x_ptr + where, mask=mask, other=0.0)
    mean = tl.sum(total, axis=0) / count
    squares = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, count, BLOCK):
        idx = i + offsets
        mask = idx < count
        where = (idx // hw) * c * hw + channel * hw + idx % hw
        d = tl.load(x_ptr + where, mask=mask, other=0.0) - mean
        squares += tl.where(mask, d * d, 0.0)
    inv_std = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / count + eps)
    scale = tl.load(w_ptr + channel) * inv_std
    shift = tl.load(b_ptr + channel) - mean * scale
    for i in range(0, count, BLOCK):
        idx = i + offsets
        mask = idx < count
        where = (idx // hw) * c * hw + channel * hw + idx % hw
        x = tl.load(x_ptr + where, mask=mask, other=0.0)
        tl.store(out_ptr + where, x * scale + shift, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features)  # holds the reference's weight and bias

    def forward(self, x):
        x = x.contiguous()
        n, c = x.shape[0], x.shape[1]
        hw = x[0, 0].numel()
        out = torch.empty_like(x)
        batchnorm_train_kernel[(c,)](x, self.bn.weight, self.bn.bias, out, n, c, hw,
                                     self.bn.eps, BLOCK=256)
        return out
