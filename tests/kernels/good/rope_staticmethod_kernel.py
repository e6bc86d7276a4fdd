# task: models/rope_rotate_half
# expect: passed
# Honest (round 11): a @staticmethod @triton.jit kernel in the class body launched as self.rope_fwd[grid], read as never launched before.
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    """Rotate-half RoPE for q and k in one launch; cos/sin built in the kernel."""

    def __init__(self, head_dim, max_positions, theta):
        super().__init__()
        inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.max_positions = max_positions
        self.head_dim = head_dim

    @staticmethod
    @triton.jit
    def _rope_fwd(
        q_ptr, k_ptr, pos_ptr, inv_freq_ptr, qo_ptr, ko_ptr,
        H, S,
        sq_b, sq_h, sq_s, sq_d,
        sk_b, sk_h, sk_s, sk_d,
        sp_b, sp_s,
        so_b, so_h, so_s, so_d,
        HALF: tl.constexpr, BLOCK_HALF: tl.constexpr, BLOCK_S: tl.constexpr,
    ):
        pid_bh = tl.program_id(0)
        pid_s = tl.program_id(1)
        b = pid_bh // H
        h = pid_bh % H
        offs_s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
        offs_d = tl.arange(0, BLOCK_HALF)
        s_mask = offs_s < S
        d_mask = offs_d < HALF
        mask = s_mask[:, None] & d_mask[None, :]

        pos = tl.load(pos_ptr + b * sp_b + offs_s * sp_s, mask=s_mask, other=0).to(tl.float32)
        inv_f = tl.load(inv_freq_ptr + offs_d, mask=d_mask, other=0.0)
        freqs = pos[:, None] * inv_f[None, :]
        # the reference rounds cos/sin to the activation dtype before using them
        cos = tl.cos(freqs).to(qo_ptr.dtype.element_ty).to(tl.float32)
        sin = tl.sin(freqs).to(qo_ptr.dtype.element_ty).to(tl.float32)

        # q
        q_base = q_ptr + b * sq_b + h * sq_h + offs_s[:, None] * sq_s
        q1 = tl.load(q_base + offs_d[None, :] * sq_d, mask=mask, other=0.0).to(tl.float32)
        q2 = tl.load(q_base + (offs_d[None, :] + HALF) * sq_d, mask=mask, other=0.0).to(tl.float32)
        o_base = b * so_b + h * so_h + offs_s[:, None] * so_s
        tl.store(qo_ptr + o_base + offs_d[None, :] * so_d,
                 (q1 * cos - q2 * sin).to(qo_ptr.dtype.element_ty), mask=mask)
        tl.store(qo_ptr + o_base + (offs_d[None, :] + HALF) * so_d,
                 (q2 * cos + q1 * sin).to(qo_ptr.dtype.element_ty), mask=mask)
        # k
        k_base = k_ptr + b * sk_b + h * sk_h + offs_s[:, None] * sk_s
        k1 = tl.load(k_base + offs_d[None, :] * sk_d, mask=mask, other=0.0).to(tl.float32)
        k2 = tl.load(k_base + (offs_d[None, :] + HALF) * sk_d, mask=mask, other=0.0).to(tl.float32)
        tl.store(ko_ptr + o_base + offs_d[None, :] * so_d,
                 (k1 * cos - k2 * sin).to(ko_ptr.dtype.element_ty), mask=mask)
        tl.store(ko_ptr + o_base + (offs_d[None, :] + HALF) * so_d,
                 (k2 * cos + k1 * sin).to(ko_ptr.dtype.element_ty), mask=mask)

    def forward(self, q, k, position_ids):
        B, H, S, D = q.shape
        half = D // 2
        q_out = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
        k_out = torch.empty((B, H, S, D), dtype=k.dtype, device=k.device)
        inv_freq = self.inv_freq.contiguous()
        BLOCK_S = 16
        grid = (B * H, triton.cdiv(S, BLOCK_S))
        self._rope_fwd[grid](
            q, k, position_ids, inv_freq, q_out, k_out,
            H, S,
            *q.stride(), *k.stride(), *position_ids.stride(), *q_out.stride(),
            HALF=half, BLOCK_HALF=triton.next_power_of_2(half), BLOCK_S=BLOCK_S,
            num_warps=2,
        )
        return q_out, k_out
