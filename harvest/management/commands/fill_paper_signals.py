"""`python manage.py fill_paper_signals [--batch N] [--after-id ID]`: detect
the code link and venue acceptance of every stored paper and copy its
community upvotes onto it (harvest/importance_fill.py), with progress; a
stopped run resumes with `--after-id` set to the last id it printed."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from harvest.importance_fill import DEFAULT_BATCH, FillResult, paper_signals_fill


class Command(BaseCommand):
    help = "Fill the papers' code links, venue acceptances and upvotes (the popular sort's signals)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="papers a batch (one transaction)")
        parser.add_argument("--after-id", type=int, default=0, help="start after this paper id")

    def handle(self, *args, batch: int, after_id: int, **options) -> None:
        if batch < 1:
            raise CommandError("--batch takes a whole number from 1 up")
        if after_id < 0:
            raise CommandError("--after-id takes a paper id (0 or more)")

        def progress(result: FillResult) -> None:
            self.stderr.write(f"{result.read} papers read, {result.changed} changed; last id {result.last_id}")

        result = paper_signals_fill(batch_size=batch, after_id=after_id, progress=progress)
        self.stdout.write(
            f"{result.read} papers read: {result.changed} code links or venues written, "
            f"{result.upvotes_changed} upvotes copied, {result.skipped} skipped; planner statistics gathered"
        )
