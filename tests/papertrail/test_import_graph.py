"""No import hides inside a function, and no module imports itself round a
circle, in any app, the project package or the benchmarks.

An import inside a function is the usual hiding place of a circle (the
import runs late, so the circle does not fail at start) and of a dependency
nobody sees at the top of the module. Two places are meant to defer: a
`TYPE_CHECKING` block (never run) and `AppConfig.ready` (runs once the app
registry is loaded, where signal handlers are connected)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

PACKAGES = ("harvest", "digests", "accounts", "portal", "papertrail", "bench")
SCRIPTS = ("manage.py",)
# Known circles still being taken apart, each a sorted tuple of its modules
# (none now: digests' services -> tasks -> batches -> services became the
# readings_pending signal).
ALLOWED_CIRCLES: set[tuple[str, ...]] = set()
ALLOWED_TUCKED: set[tuple[str, str]] = set()


def module_files() -> dict[str, Path]:
    """Every module of the packages (migrations aside: Django loads them by name), by dotted name."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(PROJECT_ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _is_ready(node: ast.AST, parent: ast.AST | None) -> bool:
    return isinstance(node, ast.FunctionDef) and node.name == "ready" and isinstance(parent, ast.ClassDef)


def tucked_imports(source: str) -> list[str]:
    """Every import statement inside a function (TYPE_CHECKING and AppConfig.ready aside), as written."""
    found: list[str] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child) or _is_ready(child, node):
                continue
            if in_function and isinstance(child, ast.Import | ast.ImportFrom):
                found.append(ast.unparse(child))
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    visit(ast.parse(source), in_function=False)
    return found


def imported_project_modules(source: str, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of `known` that the module `name` imports, wherever the import stands
    (a circle held by an import inside a function is still a circle); TYPE_CHECKING aside."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                continue
            if isinstance(child, ast.Import):
                names.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    module = ".".join([*base, *([child.module] if child.module else [])])
                else:
                    module = child.module or ""
                for alias in child.names:
                    submodule = f"{module}.{alias.name}"
                    names.add(submodule if submodule in known else module)
            visit(child)

    visit(ast.parse(source))
    found = set()
    for imported in names:
        while imported and imported not in known:
            imported = imported.rpartition(".")[0]
        if imported and imported != name:
            found.add(imported)
    return found


def circles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[tuple[str, ...]] = set()

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.add(tuple(sorted(group)))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    known = set(modules)
    return {
        name: imported_project_modules(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", known)
        for name, path in modules.items()
    }


def test_no_module_imports_inside_a_function():
    paths = [*module_files().values(), *(PROJECT_ROOT / script for script in SCRIPTS)]
    wrong = {}
    for path in paths:
        relative = str(path.relative_to(PROJECT_ROOT))
        found = [
            statement
            for statement in tucked_imports(path.read_text(encoding="utf-8"))
            if (relative, statement) not in ALLOWED_TUCKED
        ]
        if found:
            wrong[relative] = found
    assert wrong == {}


def test_no_import_circle_among_the_modules():
    graph = import_graph()
    assert {"bench.portal", "digests.services", "accounts.trail.models"} <= set(graph)
    assert circles(graph) - ALLOWED_CIRCLES == set()


def test_the_allowances_are_still_needed():
    """An allowance outlives its circle only until this test says so."""
    graph = import_graph()
    assert circles(graph) >= ALLOWED_CIRCLES
    for file, statement in ALLOWED_TUCKED:
        assert statement in tucked_imports((PROJECT_ROOT / file).read_text(encoding="utf-8")), file


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f():\n    import json\n", ["import json"]),
        ("def f():\n    if x:\n        from harvest import models\n", ["from harvest import models"]),
        ("class C:\n    def m(self):\n        from a import b\n", ["from a import b"]),
        ("import json\nfrom typing import TYPE_CHECKING\n", []),
        ("def f():\n    if TYPE_CHECKING:\n        from a import b\n", []),
        ("class Config(AppConfig):\n    def ready(self):\n        from accounts import signals\n", []),
        ("def ready():\n    from accounts import signals\n", ["from accounts import signals"]),
    ],
)
def test_the_check_finds_imports_inside_functions(source, expected):
    assert tucked_imports(source) == expected


def test_the_check_finds_a_circle_held_by_an_import_inside_a_function():
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c"}
    graph = {
        "pkg.a": imported_project_modules("from pkg.b import x\n", "pkg.a", False, known),
        "pkg.b": imported_project_modules("from . import c\n", "pkg.b", False, known),
        "pkg.c": imported_project_modules("def f():\n    from pkg import a\n", "pkg.c", False, known),
    }
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}}
    assert circles(graph) == {("pkg.a", "pkg.b", "pkg.c")}
    graph["pkg.c"] = set()
    assert circles(graph) == set()
