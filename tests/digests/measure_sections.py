"""Which sections a reading from the full text sends, measured on the real
recorded papers (tests/fixtures/fulltext/): the project's rule ("heads first,
by role", digests/reading_text.py) against the plain one (the paper from its
start until the budget ends), at several budgets.

Run: `DJANGO_SETTINGS_MODULE=papertrail.settings.test python -m tests.digests.measure_sections`

Figures per paper and budget: units sent, and the share of the distinct
numbers of the paper's results sections (headings such as Results,
Experiments, Evaluation, Study) that the sent text holds — what a reading's
"results" can state and have checked — and whether a conclusion or
limitations section is among them (the "limitations" field's source).
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import cache

from digests.numbers import source_values
from digests.reading_text import Chosen, Unit, estimate_tokens, select_prefix, select_units, units_of
from harvest.fulltext.document import Document
from harvest.fulltext.html_parser import parse_html
from harvest.fulltext.pdf_parser import parse_pdf
from tests.replay_server import fixture_bytes

PAPERS = ("2501.11120v1", "2206.10883v3", "2302.07302v1", "2304.02623v1", "1903.10676")
BUDGETS = (3000, 6000, 8000, 12000)


@cache
def fixture_document(name: str) -> Document:
    if name.endswith("v1") and name.startswith("2501"):
        return parse_html(gzip.decompress(fixture_bytes(f"fulltext/{name}.html.gz")))
    return parse_pdf(fixture_bytes(f"fulltext/{name}.pdf"), max_pages=80, seconds=120)


@dataclass(frozen=True)
class Coverage:
    units: int
    tokens: int
    results_numbers: float  # share of the results sections' numbers sent
    conclusion: bool


def coverage(units: list[Unit], chosen: list[Chosen]) -> Coverage:
    wanted = frozenset().union(*(source_values(u.text) for u in units if u.role == "results"))
    sent = "\n".join(c.text for c in chosen)
    share = len(wanted & source_values(sent)) / len(wanted) if wanted else 1.0
    return Coverage(len(chosen), estimate_tokens(sent), share, any(c.unit.role == "conclusion" for c in chosen))


def measure(name: str, budget: int) -> tuple[Coverage, Coverage]:
    units = units_of(fixture_document(name))
    return coverage(units, select_units(units, budget=budget)), coverage(units, select_prefix(units, budget=budget))


def main() -> None:
    print("| paper | units | tokens | budget | rule: results numbers, conclusion | prefix: the same |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in PAPERS:
        units = units_of(fixture_document(name))
        total = sum(estimate_tokens(u.text) for u in units)
        for budget in BUDGETS:
            rule, prefix = measure(name, budget)
            print(
                f"| {name} | {len(units)} | {total:,} | {budget:,} | {rule.results_numbers:.0%}, "
                f"{'yes' if rule.conclusion else 'no'} | {prefix.results_numbers:.0%}, "
                f"{'yes' if prefix.conclusion else 'no'} |"
            )


if __name__ == "__main__":
    import django

    django.setup()
    main()
