# task: level1/relu
# expect: compile_error
# layer: runtime
import torch.nn as nn
import triton
import triton.language as tl
import fast_relu_extension  # noqa: F401  (does not exist)


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        relu_kernel[(1,)](x, x, 1, BLOCK=16)
        return x
