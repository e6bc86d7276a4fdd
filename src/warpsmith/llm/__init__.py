"""LLM providers behind one method, `complete(request) -> Response`, chosen by spec string."""

from .base import CallError, Choice, Message, Provider, Request, Response, Usage
from .cache import ResponseCache
from .pricing import Price, PriceTable
from .registry import ProviderSettings, ProviderSpec, make_provider, parse_spec
from .retry import RetryPolicy

__all__ = ["CallError", "Choice", "Message", "Price", "PriceTable", "Provider",
           "ProviderSettings", "ProviderSpec", "Request", "Response", "ResponseCache",
           "RetryPolicy", "Usage", "make_provider", "parse_spec"]
