# task: level1/relu
# expect: runtime_error
# layer: runtime
# exploit: E72, a host function reaching a kernel as a parameter's default value (no launch hands it over, so the scan sees none): under the interpreter it ran as host Python on the loaded values. The worker refuses at launch any callable argument or default that is not a kernel or triton.language's own
import torch
import torch.nn as nn
import triton
import triton.language as tl


class Host:
    def __call__(self, v):
        return float(str(v).strip("[]")) if v.numel == 1 else v


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, F: tl.constexpr = Host()):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, F(tl.where(x > 0, x, 0.0)), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
