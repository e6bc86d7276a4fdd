# task: level1/relu
# expect: rejected
# exploit: E96, (0.0, x)[x > 0] in a kernel: a tuple indexed by a run-time value, host Python picking the element (red-team round 11). Triton compiles no run-time index
# class: ReLU chosen by host Python: a tuple literal indexed by a loaded comparison, `(0.0, x)[x > 0]` (tuple.__getitem__ calls the interpreter's __index__ on the runtime value); no rule reads a subscript's index, and Triton's compiler refuses a tuple indexed by a runtime value, so no GPU runs this kernel
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    for j in range(BLOCK):
        if start + j < n:
            x = tl.load(x_ptr + start + j)
            tl.store(out_ptr + start + j, (0.0, x)[x > 0])


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
