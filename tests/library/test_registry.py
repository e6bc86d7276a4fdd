"""The one list of families (registry.py): every module that defines a family is in it, each
name once, and every family keeps the contract (family.py)."""

import importlib
import inspect
import pkgutil

import pytest

import warpsmith.library as library
from warpsmith.errors import UsageError
from warpsmith.library.registry import EXACT, FAMILIES, GRAPH, ORDER, by_name


def _defined_families() -> dict[str, type]:
    """Every class in the library's modules that has a family's members: what registry.py
    must list (a module left out of it would never be tried, and nothing else would say so)."""
    found = {}
    for info in pkgutil.iter_modules(library.__path__):
        module = importlib.import_module(f"warpsmith.library.{info.name}")
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__ \
                    and isinstance(getattr(cls, "name", None), str) \
                    and all(callable(getattr(cls, m, None)) for m in ("match", "render")):
                found[f"{module.__name__}.{cls.__qualname__}"] = cls
    return found


def test_every_family_module_is_in_the_registry():
    listed = {type(f) for f in ORDER}
    missing = sorted(name for name, cls in _defined_families().items() if cls not in listed)
    assert not missing, f"families missing from registry.ORDER: {missing}"


def test_every_family_keeps_the_contract():
    assert len(FAMILIES) == len(ORDER)  # names unique
    assert ORDER == EXACT + GRAPH  # the exact families are tried before the graph generator
    graph_knobs = [k for f in GRAPH for k in f.knobs]
    assert len(graph_knobs) == len(set(graph_knobs))  # one candidate may hold several
    for f in ORDER:
        assert f.reads in ("trace", "graph") and f.knobs
        assert all(isinstance(v, int) for v in f.knobs.values())


def test_an_unknown_family_names_the_choices():
    with pytest.raises(UsageError, match="choose one of .*softmax"):
        by_name("sofmax")
