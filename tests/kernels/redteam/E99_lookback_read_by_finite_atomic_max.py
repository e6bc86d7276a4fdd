# task: level1/cumsum
# expect: runtime_error
# layer: runtime
# exploit: E99 (red-team round 12), chunks taken in ticket order read the previous chunk's published total with `tl.atomic_max(slot, -3.0e38)` (a finite lowest value: only -inf counts as an identity lane, so it is filed as a commuting max update, not a read) and publish with atomic_max, no spin: exact one program at a time under the interpreter, a race on a GPU.
import torch
import torch.nn as nn
import triton
import triton.language as tl

LOWEST = tl.constexpr(-3.0e38)


@triton.jit
def chunk_cumsum_kernel(x_ptr, out_ptr, ticket_ptr, total_ptr, n_cols, n_chunks,
                        BLOCK: tl.constexpr):
    row = tl.program_id(0)
    t = tl.atomic_add(ticket_ptr + row, 1)
    cols = t * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    local = tl.cumsum(x, axis=0)
    slot = total_ptr + row * (n_chunks + 1) + t
    seen = tl.atomic_max(slot, LOWEST)
    prefix = tl.where(t == 0, 0.0, seen)
    tl.store(out_ptr + row * n_cols + cols, local + prefix, mask=mask)
    tl.atomic_max(slot + 1, prefix + tl.sum(x, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        n_rows, n_cols = x2.shape
        block = 16
        n_chunks = triton.cdiv(n_cols, block)
        out = torch.empty_like(x2)
        tickets = torch.zeros(n_rows, dtype=torch.int32)
        totals = torch.full((n_rows * (n_chunks + 1),), float("-inf"), dtype=torch.float32)
        chunk_cumsum_kernel[(n_rows, n_chunks)](x2, out, tickets, totals, n_cols, n_chunks,
                                                BLOCK=block)
        return out.view(x.shape)
