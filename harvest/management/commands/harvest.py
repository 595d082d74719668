"""`python manage.py harvest SOURCE [--from YYYY-MM-DD] [--until YYYY-MM-DD]`:
the same service the scheduled task runs, by hand, with progress per page."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError, CommandParser

from harvest.models import HarvestRun
from harvest.runs import harvest_source
from harvest.search_index import index_pending_papers
from harvest.sources.base import Page, Window
from harvest.sources.registry import SOURCES


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"{value!r} is not a date in the form YYYY-MM-DD") from None


class Command(BaseCommand):
    help = "Harvest one source now (the same run the beat schedule starts), showing progress per page."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", help=f"one of: {', '.join(sorted(SOURCES))}")
        parser.add_argument("--from", dest="date_from", help="first day to ask for (YYYY-MM-DD)")
        parser.add_argument("--until", dest="date_until", help="last day to ask for (YYYY-MM-DD)")

    def handle(self, *args, source: str, date_from: str | None, date_until: str | None, **options) -> None:
        if source not in SOURCES:
            raise CommandError(f"unknown source {source!r}; known: {', '.join(sorted(SOURCES))}")
        window = Window(
            date_from=_date(date_from) if date_from else None,
            date_until=_date(date_until) if date_until else None,
        )
        if window.date_from and window.date_until and window.date_from > window.date_until:
            raise CommandError("--from is after --until")

        def progress(run: HarvestRun, page: Page) -> None:
            self.stderr.write(
                f"page {run.pages}: {len(page.records)} records, {page.skipped} skipped | run total: "
                f"{run.seen} seen, {run.new_papers} new papers, {run.new_versions} new versions"
            )

        run = harvest_source(slug=source, window=window, progress=progress)
        if run is None:
            raise CommandError(f"{source} is being harvested by another process; try again when it has finished")
        indexed = index_pending_papers()
        if indexed.papers:
            self.stderr.write(f"full-text index: {indexed.papers:,} papers in {indexed.seconds:.1f} s")
        summary = (
            f"{source} run {run.pk} {run.status}: {run.seen} seen, {run.new_papers} new papers, "
            f"{run.new_versions} new versions, {run.updated} updated, {run.unchanged} unchanged, {run.skipped} skipped"
        )
        if run.status == HarvestRun.Status.FAILED:
            raise CommandError(f"{summary}; error: {run.error}")
        self.stdout.write(summary)
