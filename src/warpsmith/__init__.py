"""warpsmith: turn PyTorch reference code into verified, faster GPU kernels."""

__version__ = "0.1.0"

from .errors import TaskError, UsageError, WarpsmithError  # noqa: E402
from .types import Cost, Task, Verdict  # noqa: E402

# Bound after the subpackage is imported, so `warpsmith.verify` stays this function: importing
# warpsmith.verify.* later does not rebind the attribute (only the first import does).
from .verify.pipeline import verify  # noqa: E402

__all__ = ["Cost", "Task", "TaskError", "UsageError", "Verdict", "WarpsmithError",
           "__version__", "verify"]
