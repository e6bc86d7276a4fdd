# task: level1/matmul_square
# expect: rejected
# layer: runtime
# exploit: E81, enum.global_enum on a functional StrEnum placed (module=) in the op guard's module replaced its allow-list with a string, so torch.matmul passed as a substring (red-team round 8). Refused by name (module-write); the guard's lists are frozen when it loads
import enum

import torch
import torch.nn as nn
import triton
import triton.language as tl

# enum.global_enum(cls) runs sys.modules[cls.__module__].__dict__.update(cls.__members__);
# the functional API takes the module name as a plain string. So a str-mixin member named
# ALWAYS_ALLOWED lands in the op guard's own module, where `base not in ALWAYS_ALLOWED` now
# is a substring test on this text.
Allow = enum.StrEnum("Allow", [("ALWAYS_ALLOWED",
                               "mm addmm matmul empty empty_like empty_strided zeros zeros_like "
                             "view _unsafe_view reshape t transpose expand clone copy _to_copy "
                             "contiguous detach alias as_strided fill zero set resize select slice "
                               "new_empty new_empty_strided new_zeros new_ones new_full full lift_fresh scalar_tensor")],
                    module="warpsmith.verify.child.dispatch")
enum.global_enum(Allow)


@triton.jit
def touch_kernel(p, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(p + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, a, b):
        scratch = torch.empty(16, dtype=torch.float32, device=a.device)
        touch_kernel[(1,)](scratch, 16, BLOCK=16)
        return torch.matmul(a, b)
