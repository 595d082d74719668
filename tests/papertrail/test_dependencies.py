"""The apps import in one direction only: harvest ← digests ← accounts ← portal.
An app may import from the apps to its left, never from one to its right; of
the project package it may use only the beat-schedule helpers and the Celery app."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

ORDER = ("harvest", "digests", "accounts", "portal")
# papertrail/ wires the apps together (settings, urls, the Celery app); an app
# importing it would import every app through the URLs. The beat-schedule
# helpers and the one Celery app import no app.
PROJECT_MODULES_ALLOWED = ("papertrail.schedules", "papertrail.celery")


def imported_modules(source: str) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def violations(app: str, source: str) -> list[str]:
    """The imports of one module of `app` that go against the order."""
    allowed = set(ORDER[: ORDER.index(app) + 1])
    found = []
    for module in sorted(imported_modules(source)):
        top = module.split(".")[0]
        if top in ORDER and top not in allowed:
            found.append(module)
        if top == "papertrail" and not module.startswith(PROJECT_MODULES_ALLOWED) and module != "papertrail":
            found.append(module)
    return found


def app_modules(app: str) -> list[Path]:
    return sorted((PROJECT_ROOT / app).rglob("*.py"))


@pytest.mark.parametrize("app", ORDER)
def test_each_app_imports_only_from_the_apps_to_its_left(app):
    modules = app_modules(app)
    assert modules, f"no modules found for {app}"
    wrong = {
        str(path.relative_to(PROJECT_ROOT)): found
        for path in modules
        if (found := violations(app, path.read_text(encoding="utf-8")))
    }
    assert wrong == {}


def test_the_check_catches_an_import_against_the_order():
    assert violations("harvest", "from digests.models import GuidedReading\n") == [
        "digests.models",
        "digests.models.GuidedReading",
    ]
    assert violations("accounts", "import portal.selectors\n") == ["portal.selectors"]
    assert violations("digests", "from papertrail.urls import urlpatterns\n") == [
        "papertrail.urls",
        "papertrail.urls.urlpatterns",
    ]
    assert violations("portal", "from harvest.models import Paper\nfrom accounts.models import User\n") == []
    assert violations("harvest", "from papertrail.schedules import next_runs\n") == []
