# task: level1/cumsum
# expect: runtime_error
# layer: runtime
# exploit: E107 (red-team round 14), E100's Hillis-Steele scan through global memory with a tl.debug_barrier before each shifted load but none between the load and the store that overwrites what other lanes still have to read (write-after-read): the interpreter runs each block op whole, so it is exact on the CPU; on a GPU a warp that runs ahead overwrites a value another warp has not loaded yet
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
        tl.debug_barrier()
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
