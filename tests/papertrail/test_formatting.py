"""Every module is formatted by ruff as it stands: a line too packed for the
formatter is split, or the module is, never exempted from the formatter line by line. Generated
code (migrations) is Django's own layout and is left as written."""

from __future__ import annotations

import re

from tests.conftest import PROJECT_ROOT

FOLDERS = ("harvest", "digests", "accounts", "portal", "papertrail", "bench", "tests")
EXEMPTION = re.compile(r"#\s*fmt:\s*(skip|off)\b")


def exemptions(source: str) -> list[int]:
    """The numbers of the lines that exempt code from the formatter."""
    return [number for number, line in enumerate(source.splitlines(), 1) if EXEMPTION.search(line)]


def test_no_code_is_exempt_from_the_formatter():
    found = {}
    for folder in FOLDERS:
        for path in sorted((PROJECT_ROOT / folder).rglob("*.py")):
            if "migrations" in path.parts or path == PROJECT_ROOT / "tests/papertrail/test_formatting.py":
                continue
            if lines := exemptions(path.read_text(encoding="utf-8")):
                found[str(path.relative_to(PROJECT_ROOT))] = lines
    assert found == {}


def test_the_check_finds_an_exemption():
    skip = "# fmt: " + "skip"  # spelt in two parts, so this file holds no exemption itself
    assert exemptions(f"x = 1\ny = (1,\n     2)  {skip}\n# fmt: off\n") == [3, 4]
    assert exemptions("x = 'format'\n") == []
