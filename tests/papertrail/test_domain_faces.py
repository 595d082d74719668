"""Each domain of accounts shows the others, and portal, one public face: its
`models`, `selectors` (reads), `services` (writes), `signals` and `types`
(the value types and limits it exports). From outside a domain, an import of
any other of its modules (`accounts.trail.composition`,
`accounts.follows.matching`) fails here; inside a domain, anything goes.
docs/architecture.md, "accounts", states the convention."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import PROJECT_ROOT

DOMAINS = ("follows", "trail", "records", "recommend", "alerts", "groups", "channels", "zotero")
FACE = ("models", "selectors", "services", "signals", "types")
# The app's assembly (its model registry, admin, app config, commands and
# migrations) imports every domain's models, admin and commands by design.
ASSEMBLY = ("accounts/models/__init__.py", "accounts/admin.py", "accounts/apps.py")
ASSEMBLY_DIRS = ("accounts/management/", "accounts/migrations/")


def imported(source: str) -> set[str]:
    """Every module an import names, `from package import module` as the module."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module.count(".") == 1:  # `from accounts.trail import tasks`
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def domain_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "accounts" and parts[1] in DOMAINS else None


def internal_imports(importer: str, source: str) -> list[str]:
    """The modules of another domain, not its face, that this module (dotted) imports."""
    home = domain_of(importer)
    wrong = []
    for module in sorted(imported(source)):
        parts = module.split(".")
        domain = domain_of(module)
        if domain is None or domain == home or len(parts) < 3:
            continue
        if parts[2] not in FACE:
            wrong.append(module)
    return wrong


def checked_modules() -> list[Path]:
    paths = [*sorted((PROJECT_ROOT / "accounts").rglob("*.py")), *sorted((PROJECT_ROOT / "portal").rglob("*.py"))]
    out = []
    for path in paths:
        relative = str(path.relative_to(PROJECT_ROOT))
        if relative in ASSEMBLY or relative.startswith(ASSEMBLY_DIRS):
            continue
        out.append(path)
    return out


def test_no_module_imports_another_domains_internals():
    modules = checked_modules()
    assert len(modules) > 100
    wrong = {}
    for path in modules:
        dotted = ".".join(path.relative_to(PROJECT_ROOT).with_suffix("").parts)
        if found := internal_imports(dotted, path.read_text(encoding="utf-8")):
            wrong[str(path.relative_to(PROJECT_ROOT))] = found
    assert wrong == {}


def test_every_domain_shows_its_reads_writes_and_types():
    for domain in DOMAINS:
        package = PROJECT_ROOT / "accounts" / domain
        assert [name for name in ("selectors", "services", "types") if not (package / f"{name}.py").exists()] == []


def test_the_check_catches_an_import_of_an_internal_module():
    assert internal_imports("accounts.trail.matching", "from accounts.follows.window import candidate_papers\n") == [
        "accounts.follows.window"
    ]
    assert internal_imports("portal.views.trail", "from accounts.recommend import trail_order\n") == [
        "accounts.recommend.trail_order"
    ]
    assert internal_imports("portal.middleware", "import accounts.trail.readers\n") == ["accounts.trail.readers"]
    assert internal_imports("accounts.alerts.items", "from accounts.trail.composition import CardFilter\n") == [
        "accounts.trail.composition"
    ]
    # A domain's face, its own internals and the neutral accounts.shared are allowed.
    assert internal_imports("accounts.alerts.items", "from accounts.trail.types import CardFilter\n") == []
    assert internal_imports("accounts.trail.readers", "from accounts.trail.composition import Card\n") == []
    assert internal_imports("accounts.recommend.trail_order", "from accounts.shared.cursors import pack_cursor\n") == []
    assert internal_imports("portal.views.follows", "from accounts.follows import selectors, services\n") == []
