# task: level1/relu
# expect: rejected
# exploit: E53 (code from a file the candidate wrote): Triton's cache manager joins its key onto its folder, and an absolute key wins, so FileCacheManager("/proc/self/cwd").put(src, "cupy.py") writes a module into the worker's working folder, which `python -m` put first on the import path; `import cupy` (an allowed name, not installed) then runs it unscanned, through the import system the compile hook allows: relu by torch with the dispatch guard off. Passed before; now triton.runtime.cache and other file writers are rejected (file-io) and the worker drops its working folder from the import path before the candidate's import (without the scan: compile_error, no module named cupy; tests/verify/test_codewatch.py)
import torch
import torch.nn as nn
import triton
import triton.language as tl
import triton.runtime.cache as tcache


@triton.jit
def touch_kernel(out_ptr):
    tl.store(out_ptr, 0.0)


SOURCE = (
    "import torch\n"
    "def relu(x):\n"
    "    with torch._C._DisableTorchDispatch():\n"
    "        return torch.relu(x)\n"
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        tcache.FileCacheManager("/proc/self/cwd").put(SOURCE, "cupy.py", binary=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        import cupy

        touch_kernel[(1,)](torch.empty(1, device=x.device))
        return cupy.relu(x)
