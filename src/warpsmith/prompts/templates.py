"""Every text warpsmith sends to a model, in one place. Fields in braces are filled by
build.py, rules.py, hardware.py and feedback.py; change wording here, not there."""

SYSTEM = """\
You are an expert GPU kernel engineer. You rewrite PyTorch reference code as {language_name} \
kernels that produce the same results and run faster on the target GPU. Correctness comes \
first: a fast kernel that is wrong, or that leaves the work to PyTorch, is worthless. Every \
answer is compiled, checked against the reference on fresh random inputs of several sizes, \
and timed against eager PyTorch and torch.compile."""

LANGUAGE_NAMES = {"triton": "Triton", "cuda": "CUDA C++"}

TASK = """\
# Task

Write `class ModelNew(nn.Module)`, a drop-in replacement for the reference `Model` below: \
the same constructor arguments, the same `forward` arguments and outputs, with the compute \
done in {language_name} kernels that you write.

## Reference: {task_name}

```python
{source}
```"""

PRECISION = """\
## Precision and sizes

- dtype: {dtype}; TF32 tensor cores: {tf32}.
- {tolerance}
- Declared sizes (module constants per shape): {shapes}. Your kernel is also checked on \
other sizes and on scaled and shifted inputs, so nothing may depend on these exact values."""

TOLERANCE_DEFAULT = ("Tolerance: the verifier's default for the dtype (fp32 rtol 1e-4, fp16 "
                     "1e-2, bf16 2e-2, with an absolute term scaled to the output).")
TOLERANCE_TASK = "Tolerance set by the task: {tolerance}."

RULES_HEAD = """\
## Rules (checked automatically; breaking one rejects the answer)
"""

RULES_COMMON = [
    "Define a top-level `class ModelNew(nn.Module)` subclassing `nn.Module` only; do not refer "
    "to `Model`, `get_inputs` or `get_init_inputs`.",
    "Parameters and buffers keep the reference's names and shapes: the verifier copies the "
    "reference's weights into ModelNew by name.",
    "Every `forward` call must launch your own kernel(s).",
    "In `forward`, PyTorch may only allocate (`torch.empty`, `zeros`, `*_like`, …), make views "
    "and reshapes (`view`, `reshape`, `permute`, `transpose`, `contiguous`, …) and copy "
    "(`clone`, `.to()`, `cat`, `stack`). Any torch compute op (arithmetic on tensors, "
    "`torch.relu`, `matmul`, `torch.nn.functional.*`, reductions, `.item()`) is rejected"
    "{allowed}.",
    "No `try`/`except`: a fallback would hide a failing kernel.",
    "Imports: only {modules}.",
    "No {calls}; no dunder attributes other than {dunders}; no private APIs (`torch._C`, "
    "`torch._inductor`, …); no assigning to attributes of imported modules.",
    "No `torch.save`/`torch.load`, `.numpy()`, `.tolist()`, `manual_seed`, hooks, threads, "
    "`torch.Tensor` subclasses, or results cached between calls (module-level dicts or lists "
    "draw a warning). Side streams and CUDA graphs are checked more closely.",
    "Return new output tensors that are fully written: do not alias or modify the inputs.",
    "Keep the task's precision: accumulate in fp32 where the reference does; no lower-precision "
    "shortcut on an fp32 task.",
]

RULES_LANGUAGE = {
    "triton": [
        "Write the compute in `@triton.jit` kernels (`import triton`, "
        "`import triton.language as tl`) and launch them from `forward` with "
        "`kernel[grid](...)`.",
        "Inside a kernel call only `@triton.jit` functions and `tl`'s, and read module-level "
        "constants only when bound as `NAME = tl.constexpr(value)` (Triton's compiler refuses "
        "any other global); index tuples only by compile-time values.",
        "Programs must not communicate: no program reads what another stores or updates in "
        "the same launch (use `tl.atomic_add` only to accumulate, its result unused); within "
        "a program, put `tl.debug_barrier()` between storing and loading back other lanes.",
    ],
    "cuda": [
        "Write the compute in CUDA C++ `__global__` kernels held in Python string constants and "
        "built with {cuda_paths}. Launch them from `forward`.",
        "Check sizes and pointer alignment in C++; launch with a grid computed from the sizes.",
    ],
}

CUDA_PATH_LOAD_INLINE = "`torch.utils.cpp_extension.load_inline(..., cuda_sources=...)`"
CUDA_PATH_NVRTC = "`torch.cuda._compile_kernel` (NVRTC: compiles in well under a second)"
CUDA_PATH_CUPY = "`cupy.RawKernel`"

ALLOWED_NONE = ""
ALLOWED_SOME = ", except these the task allows: {names}"

HARDWARE = """\
## Target hardware: NVIDIA {name} ({arch})

- {sms} streaming multiprocessors; shared memory {smem_sm} per SM, at most {smem_block} per \
block (more than 48 KB needs an explicit opt-in); L2 cache {l2}.
- Memory: {memory} at {bandwidth}.
- Dense tensor-core rates: {matrix}. Without tensor cores (strict fp32): {vector}."""

HARDWARE_MEASURED = """\
- "Measured" rates are what a plain copy and cuBLAS reach on this GPU; a very good kernel can \
beat them, never the datasheet peaks."""

FLOOR = """\
## Performance target

Timed at shape `{shape}` (inputs: {inputs}): the reference moves at least {bytes} and does \
{flops}. On the {gpu}, no kernel can take less than {floor} ({bound}-bound). On \
memory-bound work torch.compile often comes close to this floor, so a winning kernel must too; \
your time is reported as a fraction of it."""

FLOOR_UNKNOWN = """\
## Performance target

Timed at shape `{shape}` (inputs: {inputs}). No roofline floor could be computed for this \
task ({why}); aim to beat eager PyTorch and torch.compile."""

EXAMPLE = """\
## Example of an accepted answer (task {task})

Reference:

```python
{reference}
```

Answer:

```python
{answer}
```"""

EXAMPLE_NO_REFERENCE = """\
## Example of an accepted answer

```python
{answer}
```"""

ANSWER_FORMAT = """\
## Answer format

Think as long as you need, then give the complete file in one ```python block: imports, \
kernels and `class ModelNew`. Only the last block that defines `ModelNew` is used, so do not \
split the file or leave parts out."""

PREVIOUS = """\
## Your previous attempt{label}

```python
{source}
```

## What the verifier found

{feedback}

## What to do now

{next_step}"""

# What to do next, by verdict status.
NEXT_STEP = {
    "compile_error": "Fix the error above and send the whole corrected file. Keep what was "
                     "right; change only what the error points at unless the design was wrong.",
    "runtime_error": "Fix the error above (often a shape, stride, grid or dtype mistake) and "
                     "send the whole corrected file.",
    "crashed": "The process died: look for out-of-bounds memory accesses (missing masks or "
               "bounds checks), a wrong grid, or wrong pointer arithmetic.",
    "timeout": "The run did not finish: look for a loop that never ends or a grid far too "
               "large.",
    "incorrect": "Find why the outputs differ: masks on the edges, strides of non-contiguous "
                 "inputs, reductions split across blocks, accumulator dtype, sizes that are not "
                 "multiples of the block. Make it correct for every size before making it "
                 "faster.",
    "rejected": "Rewrite it so no rule fires; the rules are listed above. Do the work in your "
                "own kernels.",
    "suspect": "The result is implausibly fast: make sure every call computes the full output "
               "from the current inputs, with nothing skipped or reused.",
    "passed": "It is correct. Make it faster while keeping it correct: fuse more, move fewer "
              "bytes, tune block sizes, warps and stages, and get closer to the roofline floor.",
    "needs_gpu": "It could not be run here; check it carefully by reading and send it again.",
    "too_large": "The task did not fit this machine's memory, so the candidate was not run; "
                 "check it carefully by reading and send it again.",
}

FOLLOW_UP = """\
{feedback}

{next_step} Reply with the complete file in one ```python block."""
