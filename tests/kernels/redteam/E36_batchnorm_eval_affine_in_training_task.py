# task: tests/tasks/fixtures/kb_semantics/33_BatchNorm.py
# expect: incorrect
# exploit: E36, train/eval semantics: KernelBench runs BatchNorm as constructed (training mode, the batch's statistics); this kernel computes the inference-mode per-channel affine from the running statistics, which passed while the verifier switched both models to eval()
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, out_ptr, numel, c, hw, eps,
                  BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < numel
    channel = (offsets // hw) % c
    x = tl.load(x_ptr + offsets, mask=mask)
    mean = tl.load(mean_ptr + channel, mask=mask)
    var = tl.load(var_ptr + channel, mask=mask)
    w = tl.load(w_ptr + channel, mask=mask)
    b = tl.load(b_ptr + channel, mask=mask)
    tl.store(out_ptr + offsets, (x - mean) / tl.sqrt(var + eps) * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features)

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        numel, bn = x.numel(), self.bn
        affine_kernel[(triton.cdiv(numel, 1024),)](
            x, bn.running_mean, bn.running_var, bn.weight, bn.bias, out, numel, x.shape[1],
            x[0, 0].numel(), bn.eps, BLOCK=1024)
        return out
