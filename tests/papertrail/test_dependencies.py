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
# helpers, the one Celery app and a library's folder names import no app.
PROJECT_MODULES_ALLOWED = ("papertrail.schedules", "papertrail.celery", "papertrail.libraries")


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


# Inside accounts, its domains import in one direction too: identity (the
# top-level modules: users, tokens, sign-in) ← follows ← trail ← records ←
# recommend ← alerts ← groups ← channels ← zotero. A domain tells those to its right what happened through
# a signal or a registry (accounts/<domain>/signals.py). The app's assembly
# modules (its model registry, admin, app config, commands, migrations) import
# every domain by design.
DOMAINS = ("identity", "follows", "trail", "records", "recommend", "alerts", "groups", "channels", "zotero")
ASSEMBLY = ("accounts/models/__init__.py", "accounts/admin.py", "accounts/apps.py")
ASSEMBLY_DIRS = ("accounts/management/", "accounts/migrations/")


def domain_of(module: str) -> str | None:
    """The accounts domain a dotted module (or module path) belongs to."""
    parts = module.split(".")
    if parts[0] != "accounts":
        return None
    if len(parts) > 1 and parts[1] in DOMAINS:
        return parts[1]
    return "identity"


def domain_violations(domain: str, source: str) -> list[str]:
    allowed = set(DOMAINS[: DOMAINS.index(domain) + 1])
    return sorted(
        module for module in imported_modules(source) if (found := domain_of(module)) and found not in allowed
    )


def tucked_imports(source: str) -> list[str]:
    """Project imports placed inside a function: the usual hiding place of a circle."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    names = [inner.module or ""] if isinstance(inner, ast.ImportFrom) else [a.name for a in inner.names]
                    found += [name for name in names if name.split(".")[0] in ORDER]
    return found


def accounts_modules() -> list[tuple[str, Path]]:
    out = []
    for path in app_modules("accounts"):
        relative = str(path.relative_to(PROJECT_ROOT))
        if relative in ASSEMBLY or relative.startswith(ASSEMBLY_DIRS):
            continue
        out.append((domain_of(relative.removesuffix(".py").replace("/", ".")), path))
    return out


def test_accounts_domains_import_only_from_the_domains_to_their_left():
    modules = accounts_modules()
    assert {domain for domain, _ in modules} == set(DOMAINS)
    wrong = {
        str(path.relative_to(PROJECT_ROOT)): found
        for domain, path in modules
        if (found := domain_violations(domain, path.read_text(encoding="utf-8")))
    }
    assert wrong == {}


def test_accounts_places_no_import_inside_a_function():
    wrong = {
        str(path.relative_to(PROJECT_ROOT)): found
        for path in app_modules("accounts")
        if (found := tucked_imports(path.read_text(encoding="utf-8")))
    }
    assert wrong == {}


def test_the_domain_check_catches_an_import_against_the_order():
    assert domain_violations("trail", "from accounts.records.models import Record\n") == [
        "accounts.records.models",
        "accounts.records.models.Record",
    ]
    assert domain_violations("identity", "from accounts.follows import signals\n") == [
        "accounts.follows",
        "accounts.follows.signals",
    ]
    assert (
        domain_violations("alerts", "from accounts.trail.models import TrailState\nfrom accounts.models import User\n")
        == []
    )
    assert tucked_imports("def f():\n    from accounts.trail import tasks\n") == ["accounts.trail"]
    assert tucked_imports("def f():\n    import json\n") == []
