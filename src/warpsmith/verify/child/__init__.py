"""Everything here runs in the candidate's process, beside untrusted code: the verify worker,
candidate loading, in-process guards and timing, the tuner's ranking worker. Nothing here
decides a verdict: what it reports is data the trusted side checks.

It imports nothing from the trusted side but the task loader, the doors (verify/protocol.py,
verify/wire.py) and the leaves both sides run alike: the input maker (verify/checks/inputs.py),
the stopwatch (verify/timing/stopwatch.py), the CUDA driver calls (verify/cudadriver.py); and
the interpreter's patches (lang/), config, types and errors. Importing it loads only this side
(`python -X importtime -c "import warpsmith.verify.child.worker"`;
tests/test_import_cycles.py holds the rule). Nothing outside child/ imports it: its programs
are started by module path.
"""

from ...lang import install_interpreter_autotune
from ...lang.triton_compat import harden_interpreter_rewriter, interpreting

install_interpreter_autotune()  # under TRITON_INTERPRET=1 only; before any candidate's import
if interpreting():
    harden_interpreter_rewriter()  # its globals and its last-def source read closed
