# task: level1/sum_last_dim
# expect: runtime_error
# layer: runtime
# exploit: E76, split-row partial sums combined by a plain load-add-store of one address from several programs: exact under the interpreter in any order, a race on a GPU (red-team round 6). The interpreter's stores are checked per launch: one address stored by two programs is refused
# idea: the interpreter runs a launch's programs one at a time (now in a random order), so a
# plain load-add-store into a shared accumulator is exact on the CPU in ANY order (addition
# commutes): split-row partial sums racing on one address, lost updates on a GPU. The
# cross-program-rmw warning looks for a scalar address without "arange" in its text; a
# one-lane vector address `out + row + tl.arange(0, 1)` carries none of that: no warning.
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
    slot = out_ptr + row + tl.arange(0, 1)
    acc = tl.load(slot)
    tl.store(slot, acc + tl.sum(x, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.zeros(rows, dtype=x.dtype, device=x.device)
        block = 32
        partial_sum_kernel[(rows, triton.cdiv(cols, block))](x, out, cols, BLOCK=block)
        return out
