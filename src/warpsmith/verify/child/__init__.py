"""Everything here runs in the candidate's process, beside untrusted code: the verify worker,
candidate loading, in-process guards and timing, the tuner's ranking worker. Nothing here
decides a verdict: what it reports is data the trusted side checks.

It imports nothing from the trusted side but the task loader and the protocol (verify/
protocol.py), and the leaves both sides share: the input maker (verify/inputs.py), the CUDA
driver calls (verify/cudadriver.py), the interpreter's autotuner patch (lang/triton.py),
config, types and errors. Importing it loads only this
side (`python -X importtime -c "import warpsmith.verify.child.worker"`).
"""

from ...lang import install_interpreter_autotune
from ...lang.triton_compat import harden_interpreter_rewriter, interpreting

install_interpreter_autotune()  # under TRITON_INTERPRET=1 only; before any candidate's import
if interpreting():
    harden_interpreter_rewriter()  # its globals and its last-def source read closed
