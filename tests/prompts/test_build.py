"""First and refine prompts for built-in tasks, with recorded verdicts as the feedback."""

import pytest

from warpsmith.errors import UsageError
from warpsmith.llm import Request
from warpsmith.prompts import (
    example_library,
    first_prompt,
    follow_up,
    pick_examples,
    refine_prompt,
    render_feedback,
)
from warpsmith.tasks import count_cost, load_task, resolve_task, roofline_floor
from warpsmith.types import Timing, Verdict

from .conftest import KERNELS, recorded


def test_first_prompt_has_every_part(softmax):
    prompt = first_prompt(softmax)
    text = prompt.user
    assert softmax.source.strip() in text
    assert "Triton" in prompt.system and "class ModelNew(nn.Module)" in text
    # the rules, as the verifier checks them
    assert "No `try`/`except`" in text and "`torch.relu`" in text
    assert "`triton`" in text and "`os`" not in text
    # the H200 card
    for number in ("132 streaming multiprocessors", "228 KB per SM", "227 KB per block",
                   "L2 cache 60 MB", "4.22 TB/s", "701 TFLOP/s", "989 TFLOP/s"):
        assert number in text
    # the floor at the timed shape
    floor_us = roofline_floor(count_cost(softmax, "gpu"), softmax, "H200").seconds * 1e6
    assert f"{floor_us / 1000:.3g} ms (memory-bound)" in text
    assert "shape `gpu`" in text and "16384×32768 float32" in text
    # one verified example, for another task: never the answer to this one
    assert "relu_kernel" in text and "## Example of an accepted answer (task level1/relu)" in text
    assert "softmax_kernel" not in text
    assert text.rstrip().endswith("leave parts out.")


def test_prompt_as_a_request(softmax):
    request = first_prompt(softmax).request(temperature=0.7, max_tokens=2048, sample=3)
    assert isinstance(request, Request)
    assert [m.role for m in request.messages] == ["system", "user"]
    assert (request.temperature, request.max_tokens, request.sample) == (0.7, 2048, 3)


def test_cuda_prompt_with_a_cuda_example(softmax):
    library = example_library([KERNELS / "good", KERNELS / "gpu"])
    prompt = first_prompt(softmax, language="cuda", examples=None, n_examples=1)
    assert "CUDA C++" in prompt.system and "load_inline" in prompt.user
    assert "@triton.jit" not in prompt.user  # no Triton example for a CUDA prompt
    chosen = pick_examples(softmax, "cuda", 1, library)
    prompt = first_prompt(softmax, language="cuda", examples=chosen)
    assert "__global__" in prompt.user and "# expect:" not in prompt.user


def test_several_examples_and_none(softmax):
    library = example_library([KERNELS / "good"])
    two = first_prompt(softmax, examples=pick_examples(softmax, "triton", 2, library)).user
    assert two.count("## Example of an accepted answer") == 2
    assert "Example" not in first_prompt(softmax, examples=[]).user


def test_other_gpu(softmax):
    assert "108 streaming multiprocessors" in first_prompt(softmax, gpu="a100").user


def test_unknown_language(softmax):
    with pytest.raises(UsageError, match="triton, cuda"):
        first_prompt(softmax, language="mojo")


def test_task_without_a_floor(tmp_path):
    path = tmp_path / "qr.py"
    path.write_text("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
                    "    def forward(self, x):\n        return torch.linalg.qr(x).R\n\n\n"
                    "def get_inputs():\n    return [torch.randn(4, 16, 16)]\n\n\n"
                    "def get_init_inputs():\n    return []\n")
    text = first_prompt(load_task(path)).user
    assert "No roofline floor could be computed" in text and "aten.linalg_qr" in text


def test_refine_prompt_carries_the_trimmed_error():
    task, source, verdict = recorded("relu_name_error")
    text = refine_prompt(resolve_task(task), source, verdict, attempt=1).user
    assert "## Your previous attempt (attempt 1)" in text and source.strip() in text
    assert "Status: runtime_error" in text
    assert "y = tl.maximum(x, 0.0) + undefined_name" in text
    assert "NameError: name 'undefined_name' is not defined" in text
    assert 'File "relu_name_error.py", line 12' in text
    # the verifier's and the libraries' frames are trimmed away
    assert "worker.py" not in text and "site-packages" not in text
    assert "Fix the error above" in text


def test_refine_prompt_carries_wrong_outputs():
    task, source, verdict = recorded("softmax_wrong_math")
    text = refine_prompt(resolve_task(task), source, verdict).user
    assert "Status: incorrect" in text and "Wrong outputs:" in text
    assert "shape small, base inputs: max abs error" in text
    assert "first at (0, 0)" in text  # where it went wrong
    assert "masks on the edges" in text


@pytest.mark.parametrize("name, expected", [
    ("relu_fallback", "Rules that fired: try-except"),
    ("relu_bad_syntax", "'(' was never closed"),
])
def test_refine_prompt_for_rules_and_syntax(name, expected):
    task, source, verdict = recorded(name)
    assert expected in refine_prompt(resolve_task(task), source, verdict).user


def passed_verdict() -> Verdict:
    timings = (Timing("candidate", 1250.0, 1240.0, 1270.0, 8.0, 100),
               Timing("eager", 2500.0, 2480.0, 2530.0, 15.0, 100),
               Timing("compile", 1500.0, 1490.0, 1520.0, 9.0, 100))
    return Verdict("passed", "level1/softmax", "cand.py", "cuda", correct=True,
                   timing_measured=True, timings=timings, timed_shape="gpu",
                   speedup_vs_eager=2.0, speedup_vs_compile=1.2, floor_us=1017.4,
                   roofline_fraction=0.81)


def test_refine_prompt_after_a_pass_asks_for_speed(softmax):
    text = refine_prompt(softmax, "# the kernel", passed_verdict()).user
    assert "Timing at shape gpu:" in text
    assert "eager: median 2500.0 µs (IQR 15.0); your speedup over it: 2.00×" in text
    assert "compile: median 1500.0 µs (IQR 9.0); your speedup over it: 1.20×" in text
    assert "81% of the roofline floor (1017.4 µs)" in text
    assert "Make it faster" in text


def test_follow_up_turn():
    _, _, verdict = recorded("relu_name_error")
    text = follow_up(verdict)
    assert text.startswith(render_feedback(verdict))
    assert "```python" in text


def test_library_renderings_are_examples_but_never_of_the_tasks_family():
    """The default pool holds one library rendering per family, each exactly the rendering
    CI verifies for its built-in task (tests/library/test_generate.py); a prompt never shows
    one of its own task's family (nor of the family a bf16 task has but the library
    declines), nor two of one family, and the default two examples are one shipped file and
    one rendering."""
    import re

    from warpsmith.library import FAMILIES, generate
    from warpsmith.prompts.examples import _builtin_families, library_examples, task_family

    rendered = library_examples()
    # every family a built-in task has, exact or graph (conv: the built-in convolutions;
    # those with no built-in task, such as 1-D pooling, are rendered for KernelBench tasks
    # only: no built-in rendering to show)
    builtin = set(_builtin_families().values())
    assert sorted(e.family for e in rendered) == sorted(
        f for f in FAMILIES if f in builtin)
    assert rendered
    for e in rendered:
        assert e.source == generate(e.task).source and e.language == "triton" and e.rendered
    assert {e.name for e in example_library()} >= {"relu_triton", "library_matmul"}
    for name in ("level1/sigmoid", "level1/softmax_bf16", "level1/bmm", "level1/conv2d",
                 "level1/matmul_bf16", "level1/sdpa"):
        task = resolve_task(name)
        own = task_family(task)
        chosen = pick_examples(task, "triton", k=len(FAMILIES) + 2)
        families = [e.family for e in chosen]
        assert own not in families and len(set(families)) == len(families)
        assert sum(not e.rendered for e in chosen) == 1  # one shipped file at most
        default = re.findall(r"## Example of an accepted answer \(task (\S+)\)",
                             first_prompt(task).user)
        assert len(default) == 2 and default[0] in ("level1/relu", "level1/softmax")
        assert default[1] not in ("level1/relu", "level1/softmax")
    assert task_family(resolve_task("level1/matmul_bf16")) == "matmul"
    assert task_family(resolve_task("level1/sdpa")) == "attention"
    assert task_family(resolve_task("level1/conv2d")) is None
    # explicit folders: every file may be chosen, as before
    good = example_library([KERNELS / "good"])
    assert len(pick_examples(resolve_task("level1/conv2d"), "triton", 3, good)) == 3
