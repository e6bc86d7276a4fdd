# task: level1/cumsum
# expect: runtime_error
# layer: runtime
# exploit: E100 (red-team round 12), one program per row runs a Hillis-Steele scan through global memory (store the block, load it back shifted by 2^k, add, store) with no tl.debug_barrier: the interpreter executes each block op whole, so it is exact on the CPU, while on a GPU other warps' lanes are read before they are written; the race check compares only different programs.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scan_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr, STEPS: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    base = out_ptr + row * n_cols
    acc = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(base + cols, acc, mask=mask)
    shift = 1
    for _ in tl.static_range(STEPS):
        src = cols - shift
        left = tl.load(base + src, mask=mask & (src >= 0), other=0.0)
        acc = acc + left
        tl.store(base + cols, acc, mask=mask)
        shift = shift * 2


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        n_rows, n_cols = x2.shape
        block = triton.next_power_of_2(n_cols)
        steps = max(1, (block - 1).bit_length())
        out = torch.empty_like(x2)
        scan_kernel[(n_rows,)](x2, out, n_cols, BLOCK=block, STEPS=steps)
        return out.view(x.shape)
