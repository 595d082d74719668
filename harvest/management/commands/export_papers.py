"""`python manage.py export_papers [--since YYYY-MM-DD] [--output FILE]`: the
library as JSON lines, one paper a line."""

from __future__ import annotations

import os
import re
import sys
from datetime import date

from django.core.management.base import BaseCommand, CommandError, CommandParser

from harvest.exports import DEFAULT_CHUNK_SIZE, export_lines

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _since(value: str) -> date:
    try:
        if not _DATE.match(value):
            raise ValueError
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--since must be a date in the form YYYY-MM-DD, got {value!r}") from None


class Command(BaseCommand):
    help = (
        "Write the library as JSON lines, one paper a line (id, title, abstract, authors, categories with the "
        "primary first, published, updated, included_at, ai_related, versions [{version, submitted, size}], "
        "comments, journal_ref, doi, license). Times are UTC, ISO-8601."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--since",
            help="only papers whose latest version date (Paper.updated) is on or after this day, "
            "00:00 UTC (YYYY-MM-DD)",
        )
        parser.add_argument("--output", help="write to this file instead of stdout")
        parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, help="papers read per query")

    def handle(self, *args, since: str | None, output: str | None, chunk_size: int, **options) -> None:
        since_date = _since(since) if since is not None else None
        if chunk_size < 1:
            raise CommandError("--chunk-size must be at least 1")
        lines = export_lines(since=since_date, chunk_size=chunk_size)
        count = 0
        if output:
            try:
                with open(output, "w", encoding="utf-8") as out:
                    for line in lines:
                        out.write(line)
                        out.write("\n")
                        count += 1
            except OSError as exc:
                raise CommandError(f"cannot write {output}: {exc.strerror or exc}") from exc
        else:
            try:
                for line in lines:
                    self.stdout.write(line)
                    count += 1
            except BrokenPipeError:
                # The reader stopped early (`| head`): stop quietly, and point
                # stdout at /dev/null so the interpreter's final flush does not
                # fail again (the recipe in Python's signal documentation).
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                return
        self.stderr.write(f"exported {count:,} papers")
