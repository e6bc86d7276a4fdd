# task: level1/sigmoid
# expect: rejected
# exploit: E106, a plain PyTorch model whose docstring says `__global__` and `RawKernel`: the scan called any file with those words CUDA C++, which is never run on the CPU, so a wrong answer got needs_gpu, no penalty (red-team round 13, A05). A file is CUDA only where it calls a CUDA builder
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Port of our __global__ void sigmoid(float*) kernel, built with cupy.RawKernel on the
    cluster; this file is the portable fallback."""

    def forward(self, x):
        return torch.zeros_like(x) + 0.5
