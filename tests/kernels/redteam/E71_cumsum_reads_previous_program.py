# task: level1/cumsum
# expect: runtime_error
# layer: runtime
# exploit: E71, program j of a cumsum read the running total program j-1 had stored: exact when the interpreter ran programs in grid order, a race on a GPU (red-team round 3). The interpreter now runs each launch's programs in a random order; since round 7 a read of what another program of the launch stored is refused at the launch (runtime_error, E79)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_block_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    blk = tl.program_id(0)
    row = tl.program_id(1).to(tl.int64)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    # the running total so far: the last element the block before this one stored
    # (programs on axis 0 run in order under the interpreter; on a GPU they run at once)
    prev = tl.arange(0, 1) + blk * BLOCK - 1
    carry = tl.sum(tl.load(out_ptr + row * n_cols + prev, mask=prev >= 0, other=0.0), axis=0)
    tl.store(out_ptr + row * n_cols + cols, tl.cumsum(x, axis=0) + carry, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        block = 32
        cumsum_block_kernel[(triton.cdiv(n_cols, block), n_rows)](x2, out, n_cols, BLOCK=block)
        return out.view(x.shape)
