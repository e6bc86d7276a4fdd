"""`python -m warpsmith.serve.mcp`: the server without the CLI around it."""

from . import serve_stdio

serve_stdio()
