# task: level1/relu
# expect: runtime_error
# layer: runtime
# exploit: E66, the Triton interpreter's own globals (inspect, np) copied into the kernel's module at its first launch; inspect reaches sys and the guard is patched off, torch.relu does the work. Closed at the root (lang/triton_compat.harden_interpreter_rewriter: NameError) and by the scan (undefined-name)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def launch_copy(src):
    out = torch.empty_like(src)
    copy_kernel[(triton.cdiv(src.numel(), 1024),)](src, out, src.numel(), BLOCK=1024)
    return out


def quiet(*args, **kwargs):
    return None


def unguard():
    # `inspect` is one of the names the Triton interpreter copied into this module's
    # namespace at the first launch: no import, no attribute node the scan resolves
    found = dict(inspect.getmembers(inspect))
    mods = dict(inspect.getmembers(found["sys"]))["modules"]
    put = dict(inspect.getmembers(found["builtins"]))["set" + "attr"]
    guard = dict(inspect.getmembers(mods["warpsmith.verify.child.dispatch"]))["OpGuard"]
    put(guard, "check", quiet)
    put(guard, "check_function", quiet)


class ModelNew(nn.Module):
    def forward(self, x):
        y = launch_copy(x)
        unguard()
        return launch_copy(torch.relu(y))
