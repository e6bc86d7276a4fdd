"""No import cycles in the package (issue 32): the modules' top-level imports, read from
their source, form no cycle. An import inside a function runs when it is called, after every
module has loaded, so it is left out; a module that imports `a.b.c` imports `a` and `a.b`
first, so those edges count (except a module's own parent packages, which Python has started
loading before it)."""

import ast
from pathlib import Path

SRC = Path(__file__).parents[1] / "src"


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_imports(path: Path, package: str, modules: set[str]) -> set[str]:
    found = set()
    stack = list(ast.parse(path.read_text()).body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] \
                if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                child = f"{target}.{alias.name}"
                found.add(child if child in modules else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _graph() -> dict[str, set[str]]:
    paths = {_name(p): p for p in (SRC / "warpsmith").rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = set()
        for target in _top_level_imports(path, package, set(paths)):
            parts = target.split(".")
            for i in range(1, len(parts) + 1):  # importing a.b.c loads a, then a.b
                dep = ".".join(parts[:i])
                if dep in paths and dep != name and not name.startswith(dep + "."):
                    edges.add(dep)
        graph[name] = edges
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state, path = {}, []

    def visit(node):
        state[node] = "open"
        path.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == "open":
                return path[path.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_package_has_no_import_cycle():
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_check_finds_a_cycle_when_there_is_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
