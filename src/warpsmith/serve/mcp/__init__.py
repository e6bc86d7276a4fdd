"""`warpsmith serve mcp`: warpsmith's tools for coding agents (Claude Code, Codex, Cursor), over
the Model Context Protocol on stdio, with the official Python SDK (`mcp` 2.x, `MCPServer`).

Every tool goes through the public Python API and the store at the configured path, returns a
short text for the model to read and the full record as structured content. A bad argument
(unknown task, empty source, bad budget) is a tool error the agent can read and correct; the
server itself never goes down with it. Tool docstrings are what the agent reads: they say when
to call the tool, not how it is built.

Nothing this package imports at start-up loads torch or the verifier (seconds): the tools
import them when first called, so a client's `initialize` is answered at once.

    tasks.py    list_tasks, show_task
    checks.py   verify_kernel, time_kernel
    search.py   optimize
    kernels.py  find_kernels
"""

from __future__ import annotations

import functools
import inspect
import logging

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ... import __version__
from ...errors import WarpsmithError
from .checks import time_kernel, timing_text, verdict_text, verify_kernel
from .kernels import find_kernels
from .search import optimize_kernel
from .tasks import list_tasks, show_task

__all__ = ["TOOLS", "build_server", "serve_stdio", "timing_text", "verdict_text"]

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
warpsmith proves GPU kernels correct against a PyTorch reference task and times them honestly.
A task is a PyTorch `Model` (see show_task); a candidate is a Python file defining
`class ModelNew(nn.Module)` with the same constructor and forward signature, doing its compute in
Triton (@triton.jit) or CUDA C++. Typical loop: list_tasks -> show_task -> write a candidate ->
verify_kernel, fix what its feedback says, repeat until it passes -> time_kernel (needs a GPU).
find_kernels returns kernels already verified for a task; optimize runs a short search.
"""

READ_ONLY = {"list_tasks", "show_task", "find_kernels"}
TOOLS = {"list_tasks": list_tasks, "show_task": show_task, "verify_kernel": verify_kernel,
         "time_kernel": time_kernel, "optimize": optimize_kernel, "find_kernels": find_kernels}


def build_server() -> MCPServer:
    server = MCPServer("warpsmith", instructions=INSTRUCTIONS, version=__version__)
    for name, fn in TOOLS.items():
        # Clients may call read-only tools without asking the user each time.
        hints = ToolAnnotations(read_only_hint=True) if name in READ_ONLY else None
        server.add_tool(_tool(fn), name=name, description=inspect.cleandoc(fn.__doc__),
                        annotations=hints)
    return server


def serve_stdio() -> None:
    build_server().run("stdio")


def _tool(fn):
    """The tool body on a worker thread, so the event loop keeps answering while a candidate is
    verified for seconds or a search runs for minutes; every exception becomes a tool error
    whose text the agent can act on."""

    @functools.wraps(fn)  # the SDK reads the parameters and the docstring through __wrapped__
    async def run(**kwargs):
        try:
            return await anyio.to_thread.run_sync(functools.partial(fn, **kwargs))
        except ToolError:
            raise
        except WarpsmithError as e:
            raise ToolError(str(e)) from e
        except Exception as e:  # a bug of ours: say so, keep serving
            log.exception("tool %s failed", fn.__name__)
            raise ToolError(f"internal error ({type(e).__name__}: {e}); the server is still "
                            "running, other calls work") from e

    return run
