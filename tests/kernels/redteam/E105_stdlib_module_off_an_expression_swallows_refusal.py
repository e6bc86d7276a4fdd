# task: level1/softmax
# expect: runtime_error
# layer: runtime
# exploit: E105, contextlib read off an expression the scan cannot resolve (a list holding torch.nn.attention, which imported it) was on no deny-list: its suppress() swallowed the interpreter's refusal of an out-of-bounds store after the right values were written, and the verdict was passed (red-team round 13, A10 through typing). Any standard-library module name read off such an expression is refused, and a refusal the candidate caught still fails it (runtime_error)
import torch
import torch.nn as nn
import torch.nn.attention
import triton
import triton.language as tl

HOLDERS = [torch.nn.attention]
QUIET = HOLDERS[0].contextlib.suppress


@triton.jit
def softmax_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=-float("inf"))
    e = tl.exp(x - tl.max(x, 0))
    y = e / tl.sum(e, 0)
    tl.store(out_ptr + row * cols + offs, y, mask=offs < cols)
    tl.store(out_ptr + row * cols + offs + cols, y)  # past the last row: out of bounds


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        with QUIET(Exception):
            softmax_kernel[(x.shape[0],)](x, out, x.shape[1],
                                          BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
