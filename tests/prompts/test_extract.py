"""Getting the candidate out of answers written the ways models write them."""

import ast

from warpsmith.prompts import extract

KERNEL = '''\
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0),
             mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
'''
IMPROVED = KERNEL.replace("1024", "4096")


def fenced(code: str, tag: str = "python", fence: str = "```") -> str:
    return f"{fence}{tag}\n{code.rstrip()}\n{fence}"


def test_one_tagged_block_with_prose_around():
    answer = ("Here is an optimized implementation. The kernel fuses the load and the max.\n\n"
              + fenced(KERNEL) + "\n\nThis should be memory-bound and reach ~90% of bandwidth.")
    result = extract(answer)
    assert result.code == KERNEL
    assert (result.blocks, result.truncated, result.reasoning) == (1, False, "")


def test_untagged_block():
    assert extract("Sure!\n" + fenced(KERNEL, tag="") + "\n").code == KERNEL


def test_tag_with_attributes_and_tildes():
    assert extract(fenced(KERNEL, tag="python title=model_new.py")).code == KERNEL
    assert extract(fenced(KERNEL, tag="py", fence="~~~")).code == KERNEL


def test_the_block_defining_modelnew_among_others():
    answer = "\n\n".join([
        "First install Triton:", fenced("pip install triton", "bash"),
        "A helper for the launch grid:", fenced("def grid(n):\n    return (n // 1024,)\n"),
        "The full solution:", fenced(KERNEL),
        "Use it like this:", fenced("model = ModelNew().cuda()\ny = model(x)\n"),
    ])
    result = extract(answer)
    assert result.code == KERNEL and result.blocks == 4


def test_the_last_of_several_versions():
    answer = (f"A first version:\n{fenced(KERNEL)}\nWe can use bigger blocks:\n"
              f"{fenced(IMPROVED)}\nThe second is faster.")
    assert extract(answer).code == IMPROVED


def test_the_last_python_block_when_none_defines_modelnew():
    answer = "\n\n".join([fenced("x = 1\n"), fenced("y = 2\n", "cpp"), fenced("z = 3\n")])
    assert extract(answer).code == "z = 3\n"


def test_no_python_block():
    result = extract("Kernel:\n" + fenced("__global__ void k() {}\n", "cuda"))
    assert result.code is None and "cuda" in result.problem


def test_cut_off_inside_the_block():
    answer = "Here you go:\n```python\n" + KERNEL[:400]
    result = extract(answer)
    assert result.code == KERNEL[:400].rstrip("\n") + "\n"
    assert result.truncated


def test_a_finished_version_before_one_cut_off():
    answer = f"{fenced(KERNEL)}\nNow a faster variant:\n```python\n{IMPROVED[:300]}"
    result = extract(answer)
    assert result.code == KERNEL and not result.truncated


def test_think_tags_are_kept_apart():
    thinking = ("The input is 32768x16384 fp32, so this is memory-bound.\nDraft:\n"
                + fenced("class ModelNew(nn.Module):\n    pass\n") + "\nBetter to use BLOCK=1024.")
    answer = f"<think>\n{thinking}\n</think>\n\nFinal answer:\n{fenced(KERNEL)}"
    result = extract(answer)
    assert result.code == KERNEL  # not the draft inside the reasoning
    assert result.reasoning == thinking


def test_closing_tag_only():
    # DeepSeek-R1-style chat templates put <think> in the prompt: the answer only closes it.
    answer = f"Let me think about tiling...\n</think>\n{fenced(KERNEL)}"
    result = extract(answer)
    assert result.reasoning == "Let me think about tiling..."
    assert result.code == KERNEL


def test_reasoning_never_finished():
    answer = "<think>Okay, the softmax needs a max pass first, then\n```python\nimport torch\n"
    result = extract(answer)
    assert result.code is None and "max_tokens" in result.problem
    assert result.reasoning.startswith("Okay, the softmax")


def test_no_code_at_all():
    result = extract("I'm sorry, but I can't help with that request.")
    assert result.code is None and "no code" in result.problem


def test_unfenced_code_with_trailing_prose():
    answer = (f"Here is the code:\n\n{KERNEL}\nThis kernel launches one program per 1024 "
              "elements and is memory-bound.")
    result = extract(answer)
    assert result.code == KERNEL and result.blocks == 0
    ast.parse(result.code)


def test_block_indented_in_a_list():
    indented = "\n".join(("   " + line) if line else "" for line in KERNEL.splitlines())
    answer = f"1. Write the kernel:\n   ```python\n{indented}\n   ```\n2. Done."
    assert extract(answer).code == KERNEL


def test_markdown_wrapper_with_a_longer_fence():
    answer = f"````markdown\n# Solution\n\n{fenced(KERNEL)}\n````"
    assert extract(answer).code == KERNEL


def test_windows_line_endings():
    assert extract(fenced(KERNEL).replace("\n", "\r\n")).code == KERNEL


def test_cuda_source_inside_the_python_block():
    code = ('import torch\nfrom torch.utils.cpp_extension import load_inline\n\n'
            'src = r"""\n__global__ void k(float* x) { x[0] = 1.f; }\n"""\n\n\n'
            'class ModelNew(torch.nn.Module):\n    pass\n')
    header = fenced("__global__ void k(float* x);\n", "cpp")
    answer = f"CUDA version:\n{header}\n{fenced(code)}"
    assert extract(answer).code == code
