# task: level1/sum_last_dim
# expect: runtime_error
# layer: runtime
# exploit: E79, split-row partial sums: a plain load, an add, then tl.atomic_xchg into an int32 view of the output: exact under the interpreter, lost updates on a GPU (red-team round 7). An exchange counts as a store for the race check
# idea: split-row partial sums combined by a plain load + tl.atomic_xchg of one address from
# several programs (E76 with the store swapped for an atomic exchange, through an int32 view of
# the output since the interpreter exchanges integers only). bounds.py records only plain
# stores for its two-programs-one-address race check (atomics are taken as race-free), and the
# cross-program-rmw warning looks only at `.store`. An exchange is no read-modify-write: on a
# GPU two programs load the same old total and one update is lost.
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
    lane = row + tl.arange(0, 1)
    acc = tl.load(out_ptr + lane)
    total = acc + tl.sum(x, axis=0)
    tl.atomic_xchg(bits_ptr + lane, total.to(tl.int32, bitcast=True))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.zeros(rows, dtype=x.dtype, device=x.device)
        block = 32
        partial_sum_kernel[(rows, triton.cdiv(cols, block))](x, out, out.view(torch.int32), cols,
                                                              BLOCK=block)
        return out
