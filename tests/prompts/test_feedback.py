"""Trimming logs to what a model needs to fix its kernel."""

from warpsmith.prompts import trim_log

from .conftest import recorded

NVCC_LOG = """\
/tmp/torch_extensions/relu_ext/cuda.cu(7): error: identifier "undefined_fn" is undefined
      out[i] = undefined_fn(x[i]);
               ^

/tmp/torch_extensions/relu_ext/cuda.cu(9): warning #177-D: variable "unused" was declared
1 error detected in the compilation of "/tmp/torch_extensions/relu_ext/cuda.cu".
ninja: build stopped: subcommand failed.
"""

TRITON_COMPILE = """\
Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/triton/compiler/compiler.py", line 1300, in ast_to_ttir
    generator.visit(fn.parse())
  File "/tmp/job/candidate.py", line 30, in forward
    softmax_kernel[grid](x, out, n)
triton.compiler.errors.CompilationError: at 8:8:
def softmax_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * n + tl.arange(0, n))
        ^
ValueError('arange's arguments must be of type tl.constexpr')
"""


def test_runtime_traceback_keeps_the_candidate_and_the_error():
    _, _, verdict = recorded("relu_name_error")
    trimmed = trim_log(verdict.log_tail, verdict.candidate)
    assert trimmed.splitlines()[0] == '  File "relu_name_error.py", line 12, in relu_kernel'
    assert "NameError: name 'undefined_name' is not defined" in trimmed
    assert "worker.py" not in trimmed and "The above exception" not in trimmed
    assert len(trimmed) < len(verdict.log_tail) / 2


def test_triton_compile_error_keeps_the_marked_source():
    trimmed = trim_log(TRITON_COMPILE, "/tmp/job/candidate.py")
    assert "compiler.py" not in trimmed
    assert 'File "candidate.py", line 30, in forward' in trimmed
    assert "    x = tl.load(x_ptr + row * n + tl.arange(0, n))\n        ^" in trimmed
    assert trimmed.endswith("ValueError('arange's arguments must be of type tl.constexpr')")


def test_compiler_log_keeps_errors_and_their_context():
    trimmed = trim_log(NVCC_LOG)
    assert 'error: identifier "undefined_fn" is undefined' in trimmed
    assert "out[i] = undefined_fn(x[i]);" in trimmed
    assert "1 error detected" in trimmed
    assert "warning #177" not in trimmed


def test_other_logs_keep_their_tail_and_long_lines_are_clipped():
    log = "\n".join(f"line {i}" for i in range(100)) + "\n" + "x" * 5000
    trimmed = trim_log(log, max_lines=5)
    assert trimmed.splitlines()[0] == "line 96"
    assert len(trimmed.splitlines()[-1]) < 300


def test_colour_codes_are_removed():
    assert trim_log("\x1b[31merror\x1b[0m: bad thing") == "error: bad thing"


def test_a_timeout_on_the_cpu_interpreter_is_not_blamed_on_the_kernel_alone():
    """The interpreter runs a correct kernel thousands of times slower than a GPU: its
    hint names that first (it told every CPU timeout to look for an endless loop)."""
    from warpsmith.prompts.feedback import render_feedback
    from warpsmith.types import Verdict

    cpu = render_feedback(Verdict("timeout", "level1/relu", "cand.py", "cpu"))
    gpu = render_feedback(Verdict("timeout", "level1/relu", "cand.py", "cuda"))
    assert cpu.startswith("Status: timeout. The candidate did not finish") and "correct" in cpu
    assert "endless loop" in gpu.splitlines()[0]
