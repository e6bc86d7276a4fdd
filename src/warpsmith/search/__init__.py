"""Search: strategies that ask a model for kernels, verify them and keep the best."""

from .budget import Budget, Spend, parse_budget
from .context import RunContext, Settings
from .optimize import OptimizeResult, optimize, resume
from .registry import STRATEGIES, strategy

__all__ = ["STRATEGIES", "Budget", "OptimizeResult", "RunContext", "Settings", "Spend",
           "optimize", "parse_budget", "resume", "strategy"]
