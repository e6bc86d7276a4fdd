# task: level1/sum_last_dim
# expect: runtime_error
# layer: runtime
# exploit: E86, split-row partial sums: each program read the running total with tl.atomic_add(p, 0.0) and wrote old + part back with atomic_max/atomic_min, exact under the one-at-a-time interpreter, lost updates on a GPU (red-team round 8). An atomic that changes nothing is a read; a read and a separate update of an address other programs update is a race
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # split-row partial sums: each program reads the running total with an atomic that
    # adds nothing and writes total+part back with atomic_max (part >= 0) or atomic_min
    # (part < 0). Run one program after another (the interpreter) this is exact; run at
    # once (a GPU) two programs read the same total and one part is lost.
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    part = tl.sum(x, axis=0)
    old = tl.atomic_add(out_ptr + row, 0.0)
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
