"""The documents say only what is so: every path, dotted name and class that
docs/architecture.md and docs/decisions.md name in backticks exists; the
README stays short and lists exactly the API routes the schema has."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

from papertrail.celery import app
from tests.conftest import PROJECT_ROOT

DOCUMENTS = ("docs/architecture.md", "docs/decisions.md")
PACKAGES = ("harvest", "digests", "accounts", "portal", "papertrail", "bench", "tests")
README_MAX_LINES = 200
# Names of other projects that the documents mention as such.
OUTSIDE_CLASSES = {"ValidationError"}  # Django's, raised by our validators

SPAN = re.compile(r"`([^`\n]+)`")
# foo/bar.py, foo/bar/, sources/base.py: relative, with a folder; URLs start with a slash.
PATH = re.compile(r"^(?:[\w.\-]+/)+(?:[\w\-]+\.[a-z]+)?$")
FILE = re.compile(r"^[\w\-]+\.py$")
DOTTED = re.compile(rf"^(?:{'|'.join(PACKAGES)})(?:\.[A-Za-z_]\w*)+$")
CLASS = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$")


def mentions(text: str) -> set[tuple[str, str]]:
    """(kind, name) for every path, file, dotted name and class a text names in backticks."""
    found = set()
    for span in SPAN.findall(text):
        for token in re.split(r"[\s,;:()\[\]=<>\"']+", span):
            if not token or token.startswith(("/", "http", "var/", "test-output/")):
                continue
            if PATH.match(token):
                found.add(("path", token))
            elif FILE.match(token):
                found.add(("file", token))
            elif DOTTED.match(token.rstrip(".")):
                found.add(("dotted", token.rstrip(".")))
            elif CLASS.match(token):
                found.add(("class", token))
    return found


@cache
def repository_paths() -> frozenset[str]:
    """Every tracked file and folder, relative to the root, folders ending in a slash."""
    files = subprocess.run(
        ["git", "ls-files"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    paths = set(files)
    for file in files:
        parts = file.split("/")[:-1]
        paths.update("/".join(parts[:i]) + "/" for i in range(1, len(parts) + 1))
    return frozenset(paths)


@cache
def project_classes() -> frozenset[str]:
    names = set()
    for package in PACKAGES:
        for path in (PROJECT_ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names.update(node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef))
    return frozenset(names)


def path_exists(path: str) -> bool:
    """At the root, or below a folder (an app's section names its modules from the app's folder)."""
    return path in repository_paths() or any(known.endswith("/" + path) for known in repository_paths())


def dotted_exists(name: str) -> bool:
    """A module, or an attribute of the longest module prefix; else a Celery task's name."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:end]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[end:]:
            if not hasattr(found, attribute):
                return name in app.tasks
            found = getattr(found, attribute)
        return True
    return name in app.tasks


def exists(kind: str, name: str) -> bool:
    if kind == "path":
        return path_exists(name)
    if kind == "file":
        return path_exists(name)
    if kind == "dotted":
        return dotted_exists(name)
    return name in project_classes() or name in OUTSIDE_CLASSES


@pytest.mark.parametrize("document", DOCUMENTS)
def test_a_document_names_only_what_exists(document):
    app.loader.import_default_modules()
    named = mentions((PROJECT_ROOT / document).read_text(encoding="utf-8"))
    assert {kind for kind, _ in named} >= {"path", "dotted", "class"}
    assert sorted(f"{kind} {name}" for kind, name in named if not exists(kind, name)) == []


def test_the_check_finds_what_does_not_exist():
    app.loader.import_default_modules()
    named = mentions(
        "`harvest/records.py: checked`, `accounts/trail/`, `harvest.models.ReadingEmbedding`, `TrailMatch`, "
        "`harvest.run_source`, `harvest.filters.nothing`, `/api/v1/`, `sources/base.py`, `delivery.py`"
    )
    assert named == {
        ("path", "harvest/records.py"),
        ("path", "accounts/trail/"),
        ("dotted", "harvest.models.ReadingEmbedding"),
        ("class", "TrailMatch"),
        ("dotted", "harvest.run_source"),
        ("dotted", "harvest.filters.nothing"),
        ("path", "sources/base.py"),
        ("file", "delivery.py"),
    }
    assert {name for kind, name in named if not exists(kind, name)} == {
        "harvest/records.py",
        "TrailMatch",
        "harvest.filters.nothing",
        "delivery.py",
    }


def readme() -> str:
    return (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short():
    assert len(readme().splitlines()) <= README_MAX_LINES


def readme_routes(text: str) -> set[str]:
    """The API routes the README's API section lists (`me/records/<arxiv_id>/`), as schema paths."""
    section = text.split("\n## API\n", 1)[1].split("\n## ", 1)[0]
    routes = set()
    for span in SPAN.findall(section):
        if re.fullmatch(r"[a-z][\w\-]*/(?:[\w\-<>]+/)*", span):
            routes.add("/api/v1/" + re.sub(r"<(\w+)>", r"{\1}", span))
    return routes


@pytest.mark.django_db
def test_the_readme_lists_the_api_routes_of_the_schema():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert readme_routes(readme()) == set(schema["paths"])


def test_the_route_list_is_read_from_the_api_section_only():
    text = "## Other\n`me/elsewhere/`\n\n## API\n`papers/`, `papers/<arxiv_id>/`, `?format=x`, `q`\n\n## Tests\n"
    assert readme_routes(text) == {"/api/v1/papers/", "/api/v1/papers/{arxiv_id}/"}


def test_paths_are_read_as_paths(tmp_path: Path):
    assert ("path", "tests/portal/") in mentions("`tests/portal/`")
    assert not path_exists("tests/nowhere/")
