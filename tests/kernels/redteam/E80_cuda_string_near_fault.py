# task: level1/relu
# expect: runtime_error
# exploit: E80, an out-of-bounds load refused by the verifier at a launch passing TARGET="cuda" became needs_gpu (red-team round 7). The verifier's own refusals are never the machine's limit
# idea: offgpu.cuda_required calls a CPU runtime error needs_gpu when the candidate's raising
# line or the two before it match ASKS_CUDA (`["']cuda`): the launch line hands the kernel an
# unused constexpr TARGET="cuda", and the kernel faults (an unmasked load past the end:
# bounds.py's OutOfBounds, re-raised as InterpreterError at the launch line), so the error is
# needs_gpu, never runtime_error, on its first call. It computes nothing of ReLU.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, TARGET: tl.constexpr = "cuda"):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets + n), mask=offsets < n)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024, TARGET="cuda")
        return out
