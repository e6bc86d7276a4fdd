# task: level1/cumsum
# expect: runtime_error
# layer: runtime
# exploit: E97, a ticketed cumsum whose programs publish running totals by atomic_add and read the previous ticket's with a plain load (red-team round 11): a read of an address another program of the launch updates atomically is a race
# class: ticketed cumsum (block = the program's atomic_add ticket); each program publishes its running total with atomic_add into a zeroed slot and the next ticket reads it with a plain tl.load and no flag/spin: the race check flags a load only of what another program plainly stored, or of an address the reader also updates, so a plain read of a slot another program updated atomically is never seen; exact one program at a time, a race on a GPU
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_block_kernel(x_ptr, out_ptr, ticket_ptr, tot_ptr, n_cols, n_blocks,
                        BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    one = tl.arange(0, 1)
    blk = tl.sum(tl.atomic_add(ticket_ptr + row + one, one + 1), axis=0)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    prev = one + blk - 1
    carry = tl.sum(tl.load(tot_ptr + row * n_blocks + tl.maximum(prev, 0), mask=prev >= 0,
                           other=0.0), axis=0)
    c = tl.cumsum(x, axis=0) + carry
    tl.store(out_ptr + row * n_cols + cols, c, mask=mask)
    tl.atomic_add(tot_ptr + row * n_blocks + blk + one, carry + tl.sum(x, axis=0) + 0.0 * one)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        block = 32
        n_blocks = triton.cdiv(n_cols, block)
        tickets = torch.zeros(n_rows, dtype=torch.int32, device=x.device)
        tot = torch.zeros(n_rows * n_blocks, dtype=torch.float32, device=x.device)
        cumsum_block_kernel[(n_blocks, n_rows)](x2, out, tickets, tot, n_cols, n_blocks,
                                                BLOCK=block)
        return out.view(x.shape)
