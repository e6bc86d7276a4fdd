# task: level1/relu
# expect: rejected
# exploit: E01, host compute in native code: torch.utils.cpp_extension.load_inline builds a C++ function (no __global__ kernel, so the candidate counts as Triton and runs on the CPU) that loops over the raw data, where no dispatch guard sees it; a copy kernel as cover
import torch
import torch.nn as nn
import triton
import triton.language as tl

from torch.utils.cpp_extension import load_inline

_SRC = """
#include <torch/extension.h>
torch::Tensor host_relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const float* a = x.data_ptr<float>();
    float* b = y.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) b[i] = a[i] > 0 ? a[i] : 0.0f;
    return y;
}
"""
_ext = load_inline(name="host_relu_ext", cpp_sources=_SRC, functions=["host_relu"], verbose=False)

@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        return launch_copy(_ext.host_relu(x.contiguous()))
