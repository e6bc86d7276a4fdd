# task: models/contrastive_logits
# expect: passed
# Honest (round 11): the class's own private method (self._normalize) launching a kernel, refused as private-reach before.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l2_normalize_rows_kernel(x_ptr, y_ptr, D, stride_x, stride_y, eps, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    d = tl.arange(0, BLOCK_D)
    m = d < D
    x = tl.load(x_ptr + row * stride_x + d, mask=m, other=0.0).to(tl.float32)
    norm = tl.sqrt_rn(tl.sum(x * x, axis=0))
    y = tl.div_rn(x, tl.maximum(norm, eps))
    tl.store(y_ptr + row * stride_y + d, y.to(y_ptr.dtype.element_ty), mask=m)


@triton.jit
def scaled_nt_matmul_kernel(a_ptr, b_ptr, c_ptr, scale_ptr, M, N, K,
                            stride_am, stride_ak, stride_bn, stride_bk, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rn[None, :] * stride_bn + kk[:, None] * stride_bk,
                    mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc += tl.dot(a, b)
    scale = tl.exp(tl.load(scale_ptr).to(tl.float32))
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn,
             (acc * scale).to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.logit_scale = nn.Parameter(torch.tensor(2.659260036932778, dtype=torch.float16))

    def _normalize(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        D = x.shape[1]
        l2_normalize_rows_kernel[(x.shape[0],)](x, y, D, x.stride(0), y.stride(0), 1e-12,
                                                 BLOCK_D=triton.next_power_of_2(D), num_warps=1)
        return y

    def forward(self, image_features, text_features):
        img = self._normalize(image_features)
        txt = self._normalize(text_features)
        M, K = img.shape
        N = txt.shape[0]
        logits = torch.empty((M, N), device=img.device, dtype=img.dtype)
        BM = BN = 32
        BK = max(16, min(64, triton.next_power_of_2(K)))
        scaled_nt_matmul_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
            img, txt, logits, self.logit_scale, M, N, K,
            img.stride(0), img.stride(1), txt.stride(0), txt.stride(1),
            logits.stride(0), logits.stride(1), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
        # the text-side logits are the same matrix read the other way, as in CLIP
        return logits, logits.T
