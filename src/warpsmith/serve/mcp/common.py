"""What the MCP tools share: their argument types (the agent reads their descriptions), the
result shape, and where a candidate's source is kept. Nothing here imports torch: the server
must answer `initialize` before any of the verifier is loaded."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from ... import config

MAX_SOURCE_CHARS = 1_000_000

Task = Annotated[str, Field(min_length=1, description=(
    "A built-in task name such as 'level1/relu' (list_tasks shows them) or the absolute path "
    "of a KernelBench-format task file."))]
Source = Annotated[str, Field(min_length=1, max_length=MAX_SOURCE_CHARS, description=(
    "The whole candidate file as text: imports, kernels and `class ModelNew(nn.Module)`."))]
Device = Annotated[Literal["cpu", "cuda"] | None, Field(description=(
    "cuda when the server has a GPU, else cpu: the Triton interpreter, correctness only."))]
Profile = Annotated[Literal["quick", "thorough"], Field(description=(
    "How many random seeds and input variants to check, and how long to time."))]


def result(text: str, data: dict, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=data, is_error=error)


def candidates_folder() -> Path:
    return config.home().resolve() / "mcp" / "candidates"


def keep_source(task: str, source: str) -> Path:
    """The source under the store's home, named by content, rather than in a temporary file:
    the verdict store records the candidate's path, and find_kernels hands it back later. The
    same source gets the same absolute path every time."""
    if not source.strip():
        raise ToolError("source is empty: pass the whole candidate file as text")
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    folder = candidates_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug(task)}-{digest}.py"
    if not path.exists() or path.read_text() != source:
        path.write_text(source)
    return path


def slug(task: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in Path(task).with_suffix("").as_posix())[-60:]
