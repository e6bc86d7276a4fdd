"""Long-running services over the Python API: the reward service for RL trainers
(reward.py, FastAPI) and the MCP server for coding agents (mcp.py)."""
