# task: level1/matmul_square
# expect: rejected
# exploit: E83, a strict-fp32 matmul computed in host Python from str(block) of loaded tiles through a rebound module constant: no tl.dot for the TF32 rule to see (red-team round 8)
import torch
import torch.nn as nn
import triton
import triton.language as tl

# module-level "compile-time constants"; the kernel rebinds them to loaded data and the
# host-python-in-kernel rule still reads every use of them as compile-time
A = 0.0
B = 0.0
C = 0.0
T = 0.0
W = 0.0
N = 0
M = 0
I = 0
J = 0
K = 0
R = 0


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    rows = tl.arange(0, ROWS)
    N = n
    M = int(str(N).strip("[]"))
    A = []
    B = []
    for R in range(0, BLOCK, ROWS):
        T = tl.load(a_ptr + (R + rows)[:, None] * n + offs[None, :],
                    mask=((R + rows)[:, None] < n) & (offs[None, :] < n), other=0.0)
        W = [float(J) for J in str(T).replace("[", " ").replace("]", " ").split()]
        A = A + W
        T = tl.load(b_ptr + (R + rows)[:, None] * n + offs[None, :],
                    mask=((R + rows)[:, None] < n) & (offs[None, :] < n), other=0.0)
        W = [float(J) for J in str(T).replace("[", " ").replace("]", " ").split()]
        B = B + W
    for I in range(M):
        C = [sum(A[I * BLOCK + K] * B[K * BLOCK + J] for K in range(M)) for J in range(M)]
        for J in range(M):
            tl.store(c_ptr + I * n + J, C[J])


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        n = a.shape[0]
        c = torch.empty((n, n), dtype=a.dtype, device=a.device)
        matmul_kernel[(1,)](a, b, c, n, BLOCK=triton.next_power_of_2(n), ROWS=4)
        return c
