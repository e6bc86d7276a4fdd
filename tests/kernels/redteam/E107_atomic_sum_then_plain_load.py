# task: level1/softmax
# expect: runtime_error
# layer: runtime
# exploit: E107 (red-team round 14), one program per row adds every lane's exp into a zeroed slot of a scratch tensor with tl.atomic_add and then loads the slot back as the denominator, no tl.debug_barrier between: under the interpreter every lane's atomic has landed before the load, so the softmax is exact on the CPU; on a GPU a warp that finishes first reads a partial sum
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, den_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.atomic_add(den_ptr + row + cols * 0, e, mask=mask)
    den = tl.load(den_ptr + row)
    tl.store(out_ptr + row * n_cols + cols, e / den, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        den = torch.zeros(x2.shape[0], device=x.device, dtype=torch.float32)
        softmax_kernel[(x2.shape[0],)](x2, out, den, x2.shape[1],
                                       BLOCK=triton.next_power_of_2(x2.shape[1]))
        return out.view(x.shape)
