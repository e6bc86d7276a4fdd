"""The forward's launch of a convolution that is not transposed (conv_text._called), a
function a candidate defines once (ops.HELPERS, where a line calls it): the output's size
from the geometry, the tiles capped by the problem, the grid over (tiles, groups); the
depthwise kernel when the weight has one input channel per group. A ResNet's hundred
launches written out one by one ran its candidate past the verifier's source limit.
"""

LAUNCH = '''

def conv_launch(kernel, dw_kernel, x, w, dtype, stride, padding, dilation, groups, extra):
    rank = w.dim() - 2
    g = groups or x.shape[1] // w.shape[1]
    sp = tuple((x.shape[2 + j] + 2 * padding[j] - dilation[j] * (w.shape[2 + j] - 1) - 1)
               // stride[j] + 1 for j in range(rank))
    out = torch.empty((x.shape[0], w.shape[0], *sp), dtype=dtype, device=x.device)
    taps = {f"KS{j}": w.shape[2 + j] for j in range(rank)}
    if w.shape[1] == 1:  # depthwise: its own memory-bound kernel
        dw_kernel[(out.shape[0] * out.shape[1] * triton.cdiv(math.prod(sp), DW_BLOCK),)](
            x, w, out, out.shape[1], out.shape[1] // x.shape[1], math.prod(sp),
            math.prod(w.shape[2:]), *x.shape[2:], *sp, *x.stride(), w.stride(0),
            *w.stride()[2:], *out.stride(), *extra, **taps, BLOCK=DW_BLOCK, num_warps=DW_WARPS)
        return out
    m = out.shape[0] * math.prod(sp)
    ocg, icg = out.shape[1] // g, x.shape[1] // g
    k = icg * math.prod(w.shape[2:])
    dot = ocg >= 16  # else too few channels per group for tl.dot
    bm = max(16, min(CONV_BLOCK_M, triton.next_power_of_2(m)))
    bn = min(CONV_BLOCK_N, triton.next_power_of_2(ocg))
    bk = max(16, min(CONV_BLOCK_K, triton.next_power_of_2(k))) if dot else \\
        max(1, min(triton.next_power_of_2(k), 4096 // (bm * bn)))
    kernel[(triton.cdiv(m, bm) * triton.cdiv(ocg, bn), g)](
        x, w, out, m, ocg, k, icg, *x.shape[2:], *sp, *x.stride(), *w.stride(),
        *out.stride(), *extra, **taps, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        GROUP_M=CONV_GROUP_M, DOT=dot, TF32X3=CONV_TF32X3, num_warps=CONV_WARPS,
        num_stages=CONV_STAGES)
    return out
'''
