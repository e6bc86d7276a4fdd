# task: level1/argmax
# expect: passed
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmax_kernel(x_ptr, out_ptr, n_cols, stride_x, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    cols = tl.arange(0, BLOCK)
    # Per lane: best value so far and its column; a strict > keeps the first occurrence.
    best_v = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    best_i = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK):
        c = start + cols
        x = tl.load(x_row + c, mask=c < n_cols, other=-float("inf")).to(tl.float32)
        upd = x > best_v
        best_v = tl.where(upd, x, best_v)
        best_i = tl.where(upd, c, best_i)
    m = tl.max(best_v, axis=0)
    # Smallest column among the lanes holding the maximum (torch returns the first one).
    idx = tl.min(tl.where(best_v == m, best_i, n_cols), axis=0)
    tl.store(out_ptr + row, idx.to(tl.int64))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        n_rows, n_cols = x2.shape
        out = torch.empty((n_rows,), dtype=torch.int64, device=x.device)
        block = min(4096, triton.next_power_of_2(n_cols))
        argmax_kernel[(n_rows,)](x2, out, n_cols, x2.stride(0), BLOCK=block, num_warps=8)
        return out.view(x.shape[:-1])
