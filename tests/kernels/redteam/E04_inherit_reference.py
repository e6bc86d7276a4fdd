# task: level1/relu
# expect: rejected
# exploit: E04, inherit the reference model and launch a decoy kernel
import torch
import triton
import triton.language as tl
from reference import Model


@triton.jit
def noop_kernel(x_ptr):
    pass


class ModelNew(Model):
    def forward(self, x):
        noop_kernel[(1,)](x)
        return super().forward(x)
