# task: level1/layer_norm
# expect: passed
import torch
import torch.nn as nn
import triton
import triton.language as tl

MAX_ROW_BLOCK = 8192  # rows up to this width are held in registers (one read of x)


@triton.jit
def layer_norm_row_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_x, stride_o, eps,
                          BLOCK: tl.constexpr):
    """Whole row in one block: exact two-pass mean/variance on registers."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = d * rstd * w + b
    tl.store(out_ptr + row * stride_o + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm_loop_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_x, stride_o, eps,
                           BLOCK: tl.constexpr):
    """Wide rows: one pass of shifted sums (shift = the row's first element, which keeps the
    variance free of cancellation), then one pass to normalise."""
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    o_row = out_ptr + row * stride_o
    cols = tl.arange(0, BLOCK)
    pivot = tl.load(x_row).to(tl.float32)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    acc2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - pivot, 0.0)
        acc += d
        acc2 += d * d
    s = tl.sum(acc, axis=0)
    s2 = tl.sum(acc2, axis=0)
    mean_d = s / n_cols
    var = tl.maximum(s2 / n_cols - mean_d * mean_d, 0.0)
    mean = pivot + mean_d
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        mask = c < n_cols
        x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(o_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(hidden))
        self.bias = nn.Parameter(torch.empty(hidden))
        self.eps = eps

    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        w, b = self.weight.contiguous(), self.bias.contiguous()
        block = triton.next_power_of_2(n_cols)
        if block <= MAX_ROW_BLOCK:
            warps = 16 if block >= 8192 else 8 if block >= 2048 else 4
            layer_norm_row_kernel[(n_rows,)](x2, w, b, out, n_cols, x2.stride(0), out.stride(0),
                                             float(self.eps), BLOCK=block, num_warps=warps)
        else:
            layer_norm_loop_kernel[(n_rows,)](x2, w, b, out, n_cols, x2.stride(0),
                                              out.stride(0), float(self.eps), BLOCK=4096,
                                              num_warps=8)
        return out.view(x.shape)
