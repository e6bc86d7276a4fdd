# task: level1/argmax
# expect: rejected
# exploit: E73, max(range(n), key=lambda j: tl.load(...)) in a kernel: a host argmax, each comparison a tensor's __bool__ (red-team round 6). Builtins with keywords and lambdas in kernels are refused
# idea: host-python-in-kernel lets the builtins range/len/min/max/abs/tuple/isinstance through
# whatever they are called on (only print with keywords is refused). Python's own
# max(range(n), key=lambda j: tl.load(...)) is a host argmax: each comparison of two
# interpreted scalars becomes a host bool through tl.tensor.__bool__. No triton reduction
# runs; a GPU compiles none of it (max with key=, a lambda over loads).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmax_kernel(x_ptr, out_ptr, n_cols):
    row = tl.program_id(0)
    tl.store(out_ptr + row, max(range(n_cols), key=lambda j: tl.load(x_ptr + row * n_cols + j)))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty(rows, dtype=torch.int64, device=x.device)
        argmax_kernel[(rows,)](x, out, cols)
        return out
