"""No import cycles in the package (issue 32): the modules' top-level imports, read from
their source, form no cycle. An import inside a function runs when it is called, after every
module has loaded, so it is left out; a module that imports `a.b.c` imports `a` and `a.b`
first, so those edges count (except a module's own parent packages, which Python has started
loading before it). And every import of the package's own names resolves, those inside
functions included."""

import ast
from pathlib import Path

SRC = Path(__file__).parents[1] / "src"


def _name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
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


def _defined(path: Path) -> set[str]:
    """The names a module binds at its top level (under `if` and `try` too)."""
    names, stack = set(), list(ast.parse(path.read_text()).body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            stack.extend(ast.iter_child_nodes(node))
        elif isinstance(node, ast.ExceptHandler):
            stack.extend(node.body)
    return names


def _unresolved(src: Path = SRC) -> list[str]:
    """Every `from warpsmith... import name` in the package, those inside functions
    included (a GPU-only path's import runs only on a GPU, never in CI), whose module or
    name does not exist."""
    paths = {_name(p, src): p for p in (src / "warpsmith").rglob("*.py")}
    folders = {".".join(d.relative_to(src).parts) for d in (src / "warpsmith").rglob("*")
               if d.is_dir() and d.name != "__pycache__"}  # namespace packages too
    found = []
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.module is None and not node.level:
                continue
            base = package.split(".")[:len(package.split(".")) - node.level + 1] \
                if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if not target.startswith("warpsmith"):
                continue
            if target not in paths and target not in folders:
                found.append(f"{name}: no module {target}")
                continue
            defined = _defined(paths[target]) if target in paths else set()
            found += [f"{name}: {target} has no {a.name}" for a in node.names
                      if a.name != "*" and a.name not in defined
                      and f"{target}.{a.name}" not in paths.keys() | folders
                      and "__getattr__" not in defined]
    return found


def test_every_import_of_the_package_resolves_even_inside_functions():
    assert _unresolved() == []


def test_the_check_finds_an_import_that_does_not_resolve(tmp_path):
    (tmp_path / "warpsmith" / "verify").mkdir(parents=True)
    (tmp_path / "warpsmith" / "verify" / "a.py").write_text("X = 1\n")
    (tmp_path / "warpsmith" / "verify" / "b.py").write_text(
        "from .a import X\n\ndef f():\n    from .a import Y\n    from .gone import Z\n")
    assert _unresolved(tmp_path) == ["warpsmith.verify.b: warpsmith.verify.a has no Y",
                                     "warpsmith.verify.b: no module warpsmith.verify.gone"]
