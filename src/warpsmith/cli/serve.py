"""`warpsmith serve reward|mcp`: the long-running services."""

from __future__ import annotations

import click


@click.group("serve")
def serve_group() -> None:
    """Run warpsmith as a service: a reward service for RL, an MCP server for coding agents."""


# --- reward service (warpsmith.serve.reward) ------------------------------------------------


# --- MCP server (warpsmith.serve.mcp) -------------------------------------------------------
