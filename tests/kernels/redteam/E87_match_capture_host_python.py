# task: level1/relu
# expect: rejected
# exploit: E87, a module constant rebound in a kernel by a match capture (case V:), which binds the name as a string the compile-time analysis did not read: str(V) and float() computed ReLU on the host (red-team round 9). Statements Triton compiles no form of (match, global, try, import, class) are refused in kernels
# class: host Python in kernel; a module constant rebound by a match capture pattern
# (MatchAs binds by a str, not a Name node) stays "compile-time", so float(str(V)) runs on host
import torch
import torch.nn as nn
import triton
import triton.language as tl

V = 0.0
W = 0.0


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    for j in range(BLOCK):
        match tl.load(x_ptr + start + j, mask=start + j < n, other=0.0):
            case V:
                pass
        match max(float(str(V).strip("[]")), 0.0):
            case W:
                pass
        tl.store(out_ptr + start + j, W, mask=start + j < n)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
