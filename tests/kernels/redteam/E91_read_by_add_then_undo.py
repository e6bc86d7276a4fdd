# task: level1/sum_last_dim
# expect: runtime_error
# layer: runtime
# exploit: E91, split-row partial sums whose running total each program reads by an atomic_add of 1 it then undoes with one of -1, and writes back by float atomic_max/min (red-team round 10): no load, so the read-then-update rule never fired. Updates of kinds that do not commute (add, max, min) at one address from two programs are a race
# class: split-row partial sums where each program reads the running total with a real update it then undoes (old = atomic_add(int32 view, 1); atomic_add(int32 view, -1)) and writes old+part back with float atomic_max/min: every access is a non-identity atomic update, none a load or store, so the read-then-update rule (which needs a load) never fires; exact one program at a time, lost updates on a GPU
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, out_ptr, bits_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    part = tl.sum(x, axis=0)
    raw = tl.atomic_add(bits_ptr + row, 1)
    tl.atomic_add(bits_ptr + row, -1)
    new = raw.to(tl.float32, bitcast=True) + part
    tl.atomic_max(out_ptr + row, new, mask=part >= 0)
    tl.atomic_min(out_ptr + row, new, mask=part < 0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.zeros(rows, dtype=x.dtype, device=x.device)
        block = 32
        partial_sum_kernel[(rows, triton.cdiv(cols, block))](x, out, out.view(torch.int32),
                                                             cols, BLOCK=block)
        return out
