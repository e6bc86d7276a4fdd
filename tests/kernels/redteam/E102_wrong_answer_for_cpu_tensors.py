# task: level1/softmax
# expect: rejected
# exploit: E102, a forward that asks where its tensors live and, on CPU tensors, returns a wrong answer without launching its kernel: off_gpu_path read the rejection (no-kernel-ran) as a fallback for the CPU and made it needs_gpu, no penalty, without looking at the outputs (red-team round 13). A fallback is the CPU's limit only where its outputs are right
# idea: the "fallback" is an allowed allocation, uniform rows; wrong on any device.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=-float("inf"))
    e = tl.exp(x - tl.max(x, 0))
    tl.store(out_ptr + row * cols + offs, e / tl.sum(e, 0), mask=offs < cols)


class ModelNew(nn.Module):
    def forward(self, x):
        if x.device.type != "cuda":
            return torch.full_like(x, 1.0 / x.shape[-1])
        out = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
