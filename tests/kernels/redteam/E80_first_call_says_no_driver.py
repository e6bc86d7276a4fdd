# task: level1/relu
# expect: runtime_error
# exploit: E80, forward raised "Found no NVIDIA driver" itself, with no line asking for CUDA: needs_gpu, no penalty (red-team round 7). needs_gpu only where the source asks for CUDA
# idea: offgpu.cuda_required turns a CPU runtime error into needs_gpu (no penalty) when its
# message names a missing CUDA driver and no call had finished: a candidate that does not
# compute the task raises that message from its first forward.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        if out.numel() > 0:
            raise RuntimeError("Found no NVIDIA driver on your system")
        return out
