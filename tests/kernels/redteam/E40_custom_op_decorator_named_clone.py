# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E40, @torch.library.custom_op("…::clone") defines an op whose short name is an always-allowed copy; its Python body runs relu below the dispatch guard
import torch
import torch.nn as nn
import triton
import triton.language as tl


@torch.library.custom_op("ws_redteam_e40b::clone", mutates_args=())
def fake_clone(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x)


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
        return launch_copy(fake_clone(x))
