# task: level1/sum_last_dim
# expect: runtime_error
# layer: runtime
# exploit: E107 (red-team round 14), one program per row stores the row's first element into its output slot and then every other lane of the row adds its element there with tl.atomic_add, no tl.debug_barrier between: under the interpreter the store lands before any atomic, so the sum is exact on the CPU; on a GPU another warp's atomics can land first and the store then erases them
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.load(x_ptr + row * n_cols))
    slot = out_ptr + row + cols * 0
    tl.atomic_add(slot, x, mask=(cols > 0) & (cols < n_cols))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty(x2.shape[0], device=x.device, dtype=x.dtype)
        sum_kernel[(x2.shape[0],)](x2, out, x2.shape[1],
                                   BLOCK=triton.next_power_of_2(x2.shape[1]))
        return out.view(x.shape[:-1])
