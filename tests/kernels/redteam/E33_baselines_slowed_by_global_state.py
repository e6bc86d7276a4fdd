# task: level1/relu
# expect: rejected
# layer: runtime
# exploit: E33, weak baselines made weaker: eager PyTorch and torch.compile are timed in the candidate's process, and process-wide torch state set by plain public calls (cuDNN off, TF32 off, flash attention off, the NaN fill of every fresh allocation back on) slows them and inflates the candidate's speedup; the kernel itself is honest. Caught statically (global-state) and, without the scan, as harness-tampered (the state is compared after the checked calls and around every timed call)
import torch
import torch.nn as nn
import triton
import triton.language as tl

torch.backends.cudnn.set_flags(False)
torch.backends.cuda.enable_flash_sdp(False)
torch.set_float32_matmul_precision("highest")


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        torch.set_deterministic_debug_mode("warn")  # the baselines' allocations get NaN-filled
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
