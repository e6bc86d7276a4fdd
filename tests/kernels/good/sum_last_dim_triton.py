# task: level1/sum_last_dim
# expect: passed
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_x, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)  # one partial sum per lane, reduced at the end
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        acc += tl.load(x_row + c, mask=c < n_cols, other=0.0).to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, total.to(out_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        n_rows, n_cols = x2.shape
        out = torch.empty((n_rows,), dtype=x.dtype, device=x.device)
        block = min(4096, triton.next_power_of_2(n_cols))
        row_sum_kernel[(n_rows,)](x2, out, n_cols, x2.stride(0), BLOCK=block, num_warps=8)
        return out.view(x.shape[:-1])
