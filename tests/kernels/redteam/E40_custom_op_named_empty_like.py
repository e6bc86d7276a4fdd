# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E40 (computing in a custom op: torch.library registrations run inside the dispatcher, where the guard's mode is off, and a custom op named like an allowed op passed a guard that compared short names), here mylib::empty_like computes relu
import torch
import torch.nn as nn
import triton
import triton.language as tl

lib = torch.library.Library("ws_redteam_e40a", "DEF")
lib.define("empty_like(Tensor x) -> Tensor")
lib.impl("empty_like", lambda x: torch.relu(x), "CompositeExplicitAutograd")


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
        return launch_copy(torch.ops.ws_redteam_e40a.empty_like(x))
