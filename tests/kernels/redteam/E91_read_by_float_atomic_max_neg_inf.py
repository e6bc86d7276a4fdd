# task: level1/sum_last_dim
# expect: runtime_error
# layer: runtime
# exploit: E91, split-row partial sums whose running total each program reads by tl.atomic_max(p, -inf), written back by atomic_max/min (red-team round 10): Triton lowers a float max to integer MAX/UMIN on the bits, so the read was not seen as one. A UMIN with -inf's bits (a MIN with +inf's) changes nothing: a read
# class: split-row partial sums: each program reads the running total with tl.atomic_max(p, -inf) (Triton lowers a float max to int MAX/UMIN, so the "changes nothing" test never sees -inf: counted as an update, not a read) and writes old+part back with atomic_max/atomic_min: exact one program at a time, lost updates on a GPU
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    part = tl.sum(x, axis=0)
    old = tl.atomic_max(out_ptr + row, float("-inf"))
    new = old + part
    tl.atomic_max(out_ptr + row, new, mask=part >= 0)
    tl.atomic_min(out_ptr + row, new, mask=part < 0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.zeros(rows, dtype=x.dtype, device=x.device)
        block = 32
        partial_sum_kernel[(rows, triton.cdiv(cols, block))](x, out, cols, BLOCK=block)
        return out
