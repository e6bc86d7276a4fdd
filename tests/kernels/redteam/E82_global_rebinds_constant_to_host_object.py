# task: level1/relu
# expect: rejected
# exploit: E82, H = 0 at module level and global H; H = Host() in __init__, then H.store(...) in the kernel: host Python (red-team round 8). Names bound through global are module-level objects
import torch
import torch.nn as nn
import triton
import triton.language as tl

# bound at module level to a constant: neither a "module-level object" nor data to the
# kernel rules; rebound to a host object by `global` in the constructor
H = 0


class Host:
    def store(self, src, dst, count):
        m = int(str(count).strip("[]"))
        offs = tl.arange(0, 128)
        vals = [float(t) for t in str(tl.load(src + offs, mask=offs < m, other=0.0)).strip("[]").split()]
        for j in range(m):
            tl.store(dst + j, max(vals[j], 0.0))


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    H.store(x_ptr + start, out_ptr + start, tl.minimum(n - start, BLOCK))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        global H
        H = Host()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
