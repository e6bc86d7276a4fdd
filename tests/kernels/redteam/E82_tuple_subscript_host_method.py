# task: level1/relu
# expect: rejected
# exploit: E82, a kernel called (H,)[0].store(...), a method of a module-level object reached through a tuple, which computed ReLU in host Python (red-team round 8). Every name a receiver reads is checked, not only its root
import torch
import torch.nn as nn
import triton
import triton.language as tl


class Host:
    def store(self, src, dst, count):
        # host Python: the kernel's values read as text, ReLU computed in Python
        m = int(str(count).strip("[]"))
        offs = tl.arange(0, 128)
        vals = [float(t) for t in str(tl.load(src + offs, mask=offs < m, other=0.0)).strip("[]").split()]
        for j in range(m):
            tl.store(dst + j, max(vals[j], 0.0))


H = Host()


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    (H,)[0].store(x_ptr + start, out_ptr + start, tl.minimum(n - start, BLOCK))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
