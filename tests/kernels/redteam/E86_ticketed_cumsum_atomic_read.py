# task: level1/cumsum
# expect: runtime_error
# layer: runtime
# exploit: E86, E79's ticketed cumsum with the previous ticket's stored total read through tl.atomic_add(..., 0.0) instead of tl.load (red-team round 8): a read of what another program stored
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_block_kernel(x_ptr, out_ptr, ticket_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    one = tl.arange(0, 1)
    blk = tl.sum(tl.atomic_add(ticket_ptr + row + one, one + 1), axis=0)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    prev = one + blk * BLOCK - 1
    # the previous ticket's total read with an atomic that adds nothing: the race check
    # records plain loads and stores (and exchanges), never other atomics
    got = tl.atomic_add(out_ptr + row * n_cols + tl.maximum(prev, 0), 0.0 * one, mask=prev >= 0)
    carry = tl.sum(tl.where(prev >= 0, got, 0.0), axis=0)
    tl.store(out_ptr + row * n_cols + cols, tl.cumsum(x, axis=0) + carry, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        tickets = torch.zeros(n_rows, dtype=torch.int32, device=x.device)
        block = 32
        cumsum_block_kernel[(triton.cdiv(n_cols, block), n_rows)](x2, out, tickets, n_cols,
                                                                  BLOCK=block)
        return out.view(x.shape)
