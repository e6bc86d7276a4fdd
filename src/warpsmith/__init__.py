"""warpsmith: turn PyTorch reference code into verified, faster GPU kernels."""

__version__ = "0.1.0"

from .errors import TaskError, UsageError, WarpsmithError  # noqa: E402
from .types import Cost, Task, Verdict  # noqa: E402

__all__ = ["Cost", "Task", "TaskError", "UsageError", "Verdict", "WarpsmithError",
           "__version__", "verify"]


def verify(task, candidate, **kwargs) -> Verdict:
    """Verify a candidate file against a task; see warpsmith.verify.pipeline.verify."""
    from .verify.pipeline import verify as run

    return run(task, candidate, **kwargs)
