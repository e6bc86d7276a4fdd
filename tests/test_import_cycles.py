"""No import cycles in the package (issue 32): the modules' top-level imports, read from
their source, form no cycle. An import inside a function runs when it is called, after every
module has loaded, so it is left out; a module that imports `a.b.c` imports `a` and `a.b`
first, so those edges count (except a module's own parent packages, which Python has started
loading before it). And every import of the package's own names resolves, those inside
functions included.

verify/ (issue 31, item 8), counting imports inside functions too: no cycle; each room imports
only the rooms below it (MAY_IMPORT); child/, the candidate's process, imports of the trusted
side only the leaves both sides share (SHARED), which import nothing else of it, and nothing
outside child/ imports child/; no module reads another's private name across verify/."""

import ast
import os
import subprocess
import sys
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


# verify/'s rooms (issue 31, item 8). Every import counts here, those inside functions too:
# inside verify/ an import is never moved into a function to break a cycle, and the
# candidate's process must not load the trusted side's code late any more than early.
VERIFY = "warpsmith.verify"
# The doors: what passes between the trusted process and the candidate's (frames and the job,
# tensors as bytes, GPU outputs by IPC handle and the driver calls behind them, the worker's
# last frame as a record). The verdict's words: its hints, feedback and text.
DOORS = {"protocol", "wire", "ipc", "cudadriver", "worker_report"}
WORDS = {"feedback", "render"}
# What each room may import of verify/ besides itself (each __init__.py says so in words).
MAY_IMPORT = {
    "doors": set(),
    "words": set(),
    "static": set(),
    "isolation": {"doors"},
    "checks": {"doors", "isolation", "static"},
    "timing": {"doors", "isolation", "checks"},
    "pipeline": {"doors", "words", "static", "isolation", "checks", "timing"},
    "child": set(),  # and SHARED
}
# The trusted side's modules that the candidate's process (child/) loads: leaves that both
# sides run alike. They import nothing else of verify/, and the packages above them import
# nothing at all, so importing one loads no other code of the trusted side.
SHARED = {f"{VERIFY}.{m}" for m in ("protocol", "wire", "cudadriver", "checks.inputs",
                                    "timing.stopwatch")}
# What child/ may import from outside verify/: the task loader, the kernel languages' hooks,
# and the leaves with no code of their own.
CHILD_OUTSIDE = ("warpsmith.lang", "warpsmith.tasks.loader", "warpsmith.types",
                 "warpsmith.config", "warpsmith.errors")


def _modules(src: Path = SRC) -> dict[str, Path]:
    return {_name(p, src): p for p in (src / "warpsmith").rglob("*.py")}


def _imports(path: Path, name: str, modules: dict[str, Path]):
    """(node, module, name) for every import of the package's own code in `path`, those
    inside functions too: `from m import x` gives (m.x, None) where m.x is a module, else
    (m, "x"); a module's import of its own package counts only where it reads a name of it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((node, a.name, None) for a in node.names
                        if a.name.startswith("warpsmith"))
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] \
                if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if not target.startswith("warpsmith"):
                continue
            for a in node.names:
                child = f"{target}.{a.name}"
                yield (node, child, None) if child in modules else (node, target, a.name)


def _verify_graph(src: Path = SRC) -> dict[str, set[str]]:
    modules = _modules(src)
    return {name: {target for _, target, _ in _imports(path, name, modules)
                   if target.startswith(VERIFY) and target in modules and target != name}
            for name, path in modules.items() if name.startswith(VERIFY)}


def _room(module: str) -> str:
    head = module.removeprefix(VERIFY).lstrip(".").split(".")[0]
    return "doors" if head in DOORS else "words" if head in WORDS else head


def test_verify_has_no_import_cycle_even_through_imports_inside_functions():
    cycle = _cycle(_verify_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_every_module_of_verify_is_in_a_room():
    rooms = {_room(m) for m in _verify_graph()} - {""}  # "": verify/__init__.py
    assert rooms <= set(MAY_IMPORT), f"modules in no room: {rooms - set(MAY_IMPORT)}"


def test_each_room_of_verify_imports_only_the_rooms_below_it():
    wrong = [f"{m} imports {t}" for m, targets in _verify_graph().items() for t in targets
             if _room(m) not in ("", "child") and _room(t) not in ("", _room(m))
             and _room(t) not in MAY_IMPORT[_room(m)]]
    assert wrong == []


def test_the_candidates_process_imports_only_the_shared_leaves_of_the_trusted_side():
    modules = _modules()
    graph = _verify_graph()
    child = f"{VERIFY}.child"
    from_child = {f"{m} imports {t}" for m, targets in graph.items() if m.startswith(child)
                  for t in targets if not t.startswith(child) and t not in SHARED}
    from_shared = {f"{m} imports {t}" for m in SHARED for t in graph[m] if t not in SHARED}
    outside = {f"{m} imports {t}" for m, path in modules.items() if m.startswith(child)
               for _, t, _ in _imports(path, m, modules) if not t.startswith(VERIFY)
               and not any(t == o or t.startswith(o + ".") for o in CHILD_OUTSIDE)}
    assert from_child | from_shared | outside == set()
    # the packages above a shared module are loaded with it: they import nothing
    packages = {m.rsplit(".", i)[0] for m in SHARED for i in range(1, m.count("."))}
    assert {p: [t for _, t, _ in _imports(modules[p], p, modules)] for p in packages} == \
        {p: [] for p in packages}


def test_nothing_outside_child_imports_it():
    """The candidate's process is started by its module's path (`python -m`), never
    imported by the trusted side or the rest of the package."""
    modules = _modules()
    child = f"{VERIFY}.child"
    found = [f"{m} imports {t}" for m, path in modules.items() if not m.startswith(child)
             for _, t, _ in _imports(path, m, modules) if t.startswith(child)]
    assert found == []


CHILD_IMPORTS = """
import sys
import warpsmith.verify.child.once, warpsmith.verify.child.rank
import warpsmith.verify.child.reference_worker, warpsmith.verify.child.worker
print(" ".join(sorted(m for m in sys.modules if m.startswith("warpsmith.verify"))))
"""


def test_importing_the_candidates_process_loads_none_of_the_trusted_side():
    """What test_the_candidates_process_imports_only_the_shared_leaves_of_the_trusted_side
    reads from the source, in a fresh interpreter: through every module it imports."""
    done = subprocess.run([sys.executable, "-c", CHILD_IMPORTS], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": str(SRC)})
    loaded = set(done.stdout.split())
    packages = {m.rsplit(".", i)[0] for m in SHARED for i in range(1, m.count("."))}
    assert f"{VERIFY}.child.worker" in loaded
    assert {m for m in loaded if not m.startswith(f"{VERIFY}.child")} <= SHARED | packages


def _private_imports(src: Path = SRC) -> list[str]:
    """Every read of another module's private name (`_x`) where either module is in verify/:
    `from m import _x`, or `m._x` where m was imported as a module."""
    modules = _modules(src)
    found = []
    for name, path in modules.items():
        bound = {}
        for node, target, imported in _imports(path, name, modules):
            if imported is None:  # a module, bound under its alias or last name
                alias = next(a for a in node.names if target.endswith(a.name.split(".")[-1]))
                bound[alias.asname or alias.name.split(".")[-1]] = target
            elif imported.startswith("_") and not imported.startswith("__") and \
                    VERIFY in (name[:len(VERIFY)], target[:len(VERIFY)]) and target != name:
                found.append(f"{name}: from {target} import {imported}")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id in bound and node.attr.startswith("_") and \
                    not node.attr.startswith("__") and \
                    VERIFY in (name[:len(VERIFY)], bound[node.value.id][:len(VERIFY)]):
                found.append(f"{name}: {bound[node.value.id]}.{node.attr}")
    return sorted(set(found))


def test_no_module_reads_a_private_name_of_another_across_verify():
    assert _private_imports() == []


def test_the_check_finds_a_private_name_read_from_another_module(tmp_path):
    (tmp_path / "warpsmith" / "verify").mkdir(parents=True)
    (tmp_path / "warpsmith" / "verify" / "a.py").write_text("_X = 1\n")
    (tmp_path / "warpsmith" / "verify" / "b.py").write_text(
        "from . import a\nfrom .a import _X\n\ndef f():\n    return a._X\n")
    assert _private_imports(tmp_path) == ["warpsmith.verify.b: from warpsmith.verify.a import _X",
                                          "warpsmith.verify.b: warpsmith.verify.a._X"]
