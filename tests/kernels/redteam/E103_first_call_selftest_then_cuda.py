# task: level1/relu
# expect: runtime_error
# exploit: E103, the first forward runs the kernel, and where its output is wrong moves its tensors to the GPU: no call had sent its outputs, so the CUDA error was needs_gpu, no penalty (red-team round 13). Its kernel ran on the CPU before the error
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.abs(x), mask=offs < n)  # wrong for negative inputs


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        if bool((out != x.clamp(min=0)).any()):
            out = out.cuda()
        return out
