# task: level1/cumsum
# expect: runtime_error
# layer: runtime
# exploit: E98 (red-team round 12), programs take chunks in ticket order and read the previous chunk's running total with `tl.atomic_add(slot, 1.0)` (a non-identity add, so the race check files it as a commuting update, not a read), with no spin: exact only because the interpreter runs programs one at a time; on a GPU the predecessor's total is often not published yet (a race).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def chunk_cumsum_kernel(x_ptr, out_ptr, ticket_ptr, total_ptr, n_cols, n_chunks,
                        BLOCK: tl.constexpr):
    row = tl.program_id(0)
    # ticket = order in which programs of this row start (not the grid index)
    t = tl.atomic_add(ticket_ptr + row, 1)
    cols = t * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    local = tl.cumsum(x, axis=0)
    # running total of the chunks before this one, read by an atomic add of 1.0 (the slot is
    # scratch, read once: the +1 never matters)
    prev_slot = total_ptr + row * (n_chunks + 1) + t
    seen = tl.atomic_add(prev_slot, 1.0)
    prefix = seen
    tl.store(out_ptr + row * n_cols + cols, local + prefix, mask=mask)
    # publish this chunk's inclusive total into the next (zero-initialised) slot
    tl.atomic_add(total_ptr + row * (n_chunks + 1) + t + 1, prefix + tl.sum(x, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        n_rows, n_cols = x2.shape
        block = 16
        n_chunks = triton.cdiv(n_cols, block)
        out = torch.empty_like(x2)
        tickets = torch.zeros(n_rows, dtype=torch.int32)
        totals = torch.zeros(n_rows * (n_chunks + 1), dtype=torch.float32)
        chunk_cumsum_kernel[(n_rows, n_chunks)](x2, out, tickets, totals, n_cols, n_chunks,
                                                BLOCK=block)
        return out.view(x.shape)
