# task: level1/matmul_square
# expect: rejected
# exploit: E90, a kernel's tl.dot precision from a constexpr ALLOW_TF32, the one launch under its own name passing False in dead code and the real one through an alias passing True (red-team round 9). A kernel named anywhere but at its own launches fixes no precision
# class: strict-fp32 scan bypass: tl.dot(allow_tf32=ALLOW_TF32) with ALLOW_TF32 a constexpr;
# the only launch the scan attributes to the kernel (by its name) passes ALLOW_TF32=False and
# never runs; the real launch goes through an alias `k = matmul_kernel` with ALLOW_TF32=True.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, N, ALLOW_TF32: tl.constexpr, BLOCK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BLOCK + tl.arange(0, BLOCK)
    rn = pn * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    for k0 in range(0, N, BLOCK):
        rk = k0 + tl.arange(0, BLOCK)
        a = tl.load(a_ptr + rm[:, None] * N + rk[None, :], mask=(rm[:, None] < N) & (rk[None, :] < N), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < N) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=ALLOW_TF32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < N) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def _reference_launch(self, a, b, c, n):  # never called
        matmul_kernel[(1, 1)](a, b, c, n, ALLOW_TF32=False, BLOCK=32)

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        n = a.shape[0]
        c = torch.empty((n, n), dtype=a.dtype, device=a.device)
        k = matmul_kernel
        k[(triton.cdiv(n, 32), triton.cdiv(n, 32))](a, b, c, n, ALLOW_TF32=True, BLOCK=32)
        return c
