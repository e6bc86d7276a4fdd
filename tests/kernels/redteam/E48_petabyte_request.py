# task: level1/relu
# expect: runtime_error
# exploit: E48, a real out-of-memory caused on purpose: one request of a petabyte on the
#   inputs' device, which fails at once and so leaves the candidate's peak inside its share of
#   the memory plan; on a GPU that was too_large. Now the failed request counts: one beyond
#   the share is the candidate's (runtime_error). On the CPU the allocator refuses it as a
#   RuntimeError.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def relu(x):
    out = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        out = relu(x)
        torch.empty(1 << 50, dtype=torch.uint8, device=x.device)
        return out
