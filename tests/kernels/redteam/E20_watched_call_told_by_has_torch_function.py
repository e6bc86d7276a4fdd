# task: level1/relu
# expect: rejected
# timing: on
# exploit: E20 (the watched call told apart): torch.nn.functional.has_torch_function_unary(x) is true only under a torch-function mode, i.e. in checked calls and in each timed block's watched call; everywhere else while timed, torch.relu does the work beside a one-store kernel, and it passed about ten times faster than the honest kernel on the CPU timing path. Now the has_torch_function family is rejected under any public alias (guard-probe)
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


@triton.jit
def touch_kernel(out_ptr):
    tl.store(out_ptr, 0.0)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        # True under the verifier's dispatch guard (checked calls, each block's watched call),
        # False in the other timed calls: there, the library does the work
        if F.has_torch_function_unary(x) or torch.are_deterministic_algorithms_enabled():
            out = torch.empty_like(x)
            n = x.numel()
            relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
            return out
        touch_kernel[(1,)](torch.empty(1, device=x.device))  # "a kernel of its own ran"
        return torch.relu(x)
