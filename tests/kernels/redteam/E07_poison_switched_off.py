# task: level1/relu
# expect: incorrect
# layer: runtime
# exploit: E07, switch off the worker's NaN fill of fresh memory with a plain call (torch.use_deterministic_algorithms(False); no attribute assignment), then store only the positive elements and rely on never-written memory reading as zero (a fresh mmap-backed allocation)
import torch
import torch.nn as nn
import triton
import triton.language as tl

torch.use_deterministic_algorithms(False)


@triton.jit
def relu_positive_only_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x, mask=mask & (x > 0))  # negatives left unwritten


class ModelNew(nn.Module):
    def forward(self, x):
        # 64 MiB is above glibc's largest mmap threshold: the pages come from the OS
        buf = torch.empty(16 << 20, dtype=x.dtype)
        out = buf[: x.numel()].view(x.shape)
        relu_positive_only_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out.clone()
