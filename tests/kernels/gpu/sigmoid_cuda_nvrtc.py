# task: level1/sigmoid
# expect: passed
# An honest CUDA C++ candidate on the fast path: NVRTC through torch.cuda._compile_kernel,
# compiled in well under a second where load_inline takes tens of seconds.
import torch
import torch.nn as nn

SOURCE = r"""
extern "C" __global__ void sigmoid_kernel(const float* x, float* out, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.f / (1.f + __expf(-x[i]));
}
"""
_kernel = None


def _compiled():
    global _kernel
    if _kernel is None:
        _kernel = torch.cuda._compile_kernel(SOURCE, "sigmoid_kernel")
    return _kernel


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        _compiled()(grid=((n + 255) // 256, 1, 1), block=(256, 1, 1), args=[x, out, n])
        return out
