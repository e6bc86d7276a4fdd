# task: level1/relu
# expect: rejected
# exploit: E78, a kernel stored its pointers onto a module-level object and called its argument-less run(), which computed ReLU in host Python (red-team round 7). Writes onto and methods of module-level objects are refused in kernels
# idea: a properly decorated kernel hands its values to host Python without a call the
# host-python-in-kernel rule flags: attribute ASSIGNMENTS onto a module-level object of the
# file's class (`H.src = ...`; assignments are not calls) and then a method call with NO
# arguments (`H.run()`: every argument "static", so nothing flagged). The launch check sees
# only arguments; a global object is never handed in.
import torch
import torch.nn as nn
import triton
import triton.language as tl


class Host:
    def run(self):
        m = int(str(self.count).strip("[]"))
        vals = [float(t) for t in str(tl.load(self.src + tl.arange(0, 128), mask=tl.arange(0, 128) < self.count, other=0.0)).strip("[]").split()]
        for j in range(m):
            tl.store(self.dst + j, max(vals[j], 0.0))


H = Host()


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    H.src = x_ptr + start
    H.dst = out_ptr + start
    H.count = tl.minimum(n - start, BLOCK)
    H.run()


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
