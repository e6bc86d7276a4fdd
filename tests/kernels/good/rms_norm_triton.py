# task: level1/rms_norm
# expect: passed
import torch
import torch.nn as nn
import triton
import triton.language as tl

MAX_ROW_BLOCK = 8192  # rows up to this width are held in registers (one read of x)


@triton.jit
def rms_norm_row_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride_x, stride_o, eps,
                        BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    r = 1.0 / tl.sqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * r * w
    tl.store(out_ptr + row * stride_o + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rms_norm_loop_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride_x, stride_o, eps,
                         BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    o_row = out_ptr + row * stride_o
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    ms = tl.sum(acc, axis=0) / n_cols
    r = 1.0 / tl.sqrt(ms + eps)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        y = x * r * w
        tl.store(o_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(hidden))
        self.eps = eps

    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        w = self.weight.contiguous()
        block = triton.next_power_of_2(n_cols)
        if block <= MAX_ROW_BLOCK:
            warps = 16 if block >= 8192 else 8 if block >= 2048 else 4
            rms_norm_row_kernel[(n_rows,)](x2, w, out, n_cols, x2.stride(0), out.stride(0),
                                           float(self.eps), BLOCK=block, num_warps=warps)
        else:
            rms_norm_loop_kernel[(n_rows,)](x2, w, out, n_cols, x2.stride(0), out.stride(0),
                                            float(self.eps), BLOCK=4096, num_warps=8)
        return out.view(x.shape)
