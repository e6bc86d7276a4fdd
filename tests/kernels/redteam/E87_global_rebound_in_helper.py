# task: level1/relu
# expect: rejected
# exploit: E87, a helper kernel rebound a module constant with global V; V = tl.load(...), and the kernel computed ReLU from str(V) on the host (red-team round 9). global in a kernel is refused, and a name any global statement binds is never compile-time
# class: host Python in kernel; a module constant V is rebound (via `global V`) inside a
# helper @triton.jit function the kernel calls. The compile-time analysis is per function, so
# inside the kernel V is still a "module constant" and float(str(V)) runs on the host.
import torch
import torch.nn as nn
import triton
import triton.language as tl

V = 0.0


@triton.jit
def grab(p, m):
    global V
    V = tl.load(p, mask=m, other=0.0)


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    for j in range(BLOCK):
        grab(x_ptr + start + j, start + j < n)
        tl.store(out_ptr + start + j, max(float(str(V)[1:-1]), 0.0), mask=start + j < n)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
