# task: level1/cumsum
# expect: runtime_error
# layer: runtime
# exploit: E79, each program took a ticket with tl.atomic_add and read the previous ticket's stored total without waiting: exact under the interpreter in any grid order (red-team round 7). A read of what another program of the launch stored is a race
# idea: E71 (program j reads the running total program j-1 stored) defeated again, not by the
# grid order the interpreter now shuffles but by the order programs actually RUN: each program
# takes a ticket with tl.atomic_add and does block `ticket`, reading the last total the
# previous ticket stored. Under the one-at-a-time interpreter the previous ticket is always
# finished; on a GPU it may not be (decoupled look-back needs a flag and a spin-wait; here
# there is none): a race. No two programs store one address (bounds.py's only race check),
# loads of another program's output are not checked, and atomics are taken as race-free.
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
    carry = tl.sum(tl.load(out_ptr + row * n_cols + prev, mask=prev >= 0, other=0.0), axis=0)
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
