"""`python manage.py check_completeness [--days 14]`: per announcement day, how
many papers arXiv listed and how many the library holds; exits 1 when a
listed paper or version is missing, so a cron job or a monitor can alert."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandParser

from harvest.completeness import announcement_completeness

# How many missing ids a line names before it only counts them.
_SHOWN = 10


class Command(BaseCommand):
    help = "Compare arXiv's recorded announcements of the last days with the library; exit 1 if anything is missing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=14, help="announcement days to check (default 14)")

    def handle(self, *args, days: int, **options) -> None:
        report = announcement_completeness(days=days)
        if not report:
            self.stdout.write(f"No announcement recorded in the last {days} days.")
            return
        self.stdout.write(f"{'day':<10}  {'listed':>6}  {'held':>6}  {'missing':>7}  {'behind':>6}")
        for entry in report:
            self.stdout.write(
                f"{entry.day.isoformat():<10}  {entry.listed:>6}  {entry.held:>6}  "
                f"{len(entry.missing):>7}  {len(entry.behind):>6}"
            )
            if entry.missing:
                more = f" and {len(entry.missing) - _SHOWN} more" if len(entry.missing) > _SHOWN else ""
                self.stdout.write(f"  missing: {', '.join(entry.missing[:_SHOWN])}{more}")
            for arxiv_id, listed, held in entry.behind[:_SHOWN]:
                self.stdout.write(f"  behind: {arxiv_id} listed v{listed}, library has v{held}")
        incomplete = [entry for entry in report if not entry.complete]
        if incomplete:
            self.stderr.write(f"{len(incomplete)} of {len(report)} announcement days are incomplete.")
            sys.exit(1)
        self.stdout.write("Every announced paper is in the library at its listed version.")
