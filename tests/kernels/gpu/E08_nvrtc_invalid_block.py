# task: level1/sigmoid
# expect: caught
# exploit: E08
# An unchecked launch with an invalid configuration (2048 threads per block): nothing runs.
import torch
import torch.nn as nn

SOURCE = r"""
extern "C" __global__ void sigmoid_kernel(const float* x, float* out, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.f / (1.f + __expf(-x[i]));
}
"""
_kernel = None


class ModelNew(nn.Module):
    def forward(self, x):
        global _kernel
        if _kernel is None:
            _kernel = torch.cuda._compile_kernel(SOURCE, "sigmoid_kernel")
        out = torch.empty_like(x)
        n = x.numel()
        _kernel(grid=((n + 2047) // 2048, 1, 1), block=(2048, 1, 1), args=[x, out, n])
        return out
