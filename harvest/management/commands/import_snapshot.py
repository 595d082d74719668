"""`python manage.py import_snapshot FILE [--categories cs]`: bootstrap the
library from arXiv's bulk metadata snapshot (JSON lines), at bulk speed."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError, CommandParser

from harvest.search_index import IndexResult, index_pending_papers
from harvest.sources.snapshot import DEFAULT_BATCH_SIZE, ImportResult, import_snapshot, open_snapshot
from harvest.table_statistics import analyze_library


class Command(BaseCommand):
    help = (
        "Import arXiv's metadata snapshot (arxiv-metadata-oai-snapshot.json, JSON lines; '-' reads stdin, "
        ".gz is decompressed) into the library, keeping every version. Idempotent: importing the same file "
        "again writes nothing new. Malformed lines are logged with their line number and skipped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="path to the snapshot file, or '-' for stdin")
        parser.add_argument(
            "--categories",
            action="append",
            default=[],
            help="keep only records with a category equal to or inside one of these codes "
            "(e.g. 'cs' keeps cs.LG); repeatable or comma-separated; default: every record",
        )
        parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, help="records per upsert transaction")

    def handle(self, *args, file: str, categories: list[str], batch_size: int, **options) -> None:
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        codes = [code.strip() for value in categories for code in value.split(",") if code.strip()]

        def progress(result: ImportResult) -> None:
            self.stderr.write(
                f"line {result.lines:,}: {result.kept:,} kept, {result.skipped:,} skipped, "
                f"{result.new_papers:,} new papers ({result.rate:,.0f} records/s)"
            )

        try:
            stream = sys.stdin.buffer if file == "-" else open_snapshot(file)
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc.strerror or exc}") from exc
        try:
            result = import_snapshot(lines=stream, categories=codes, batch_size=batch_size, progress=progress)
        except (OSError, EOFError) as exc:
            raise CommandError(f"reading {file} failed: {exc}") from exc
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()

        def index_progress(indexed: IndexResult) -> None:
            self.stderr.write(f"full-text index: {indexed.papers:,} papers ({indexed.rate:,.0f} papers/s)")

        indexed = index_pending_papers(progress=index_progress)
        analyze_library()
        self.stdout.write(
            f"{result.lines:,} lines in {result.seconds:.1f} s ({result.rate:,.0f} records/s): "
            f"{result.kept:,} kept, {result.filtered_out:,} outside --categories, {result.skipped:,} malformed; "
            f"{result.new_papers:,} new papers, {result.new_versions:,} new versions, "
            f"{result.updated:,} updated, {result.unchanged:,} unchanged; "
            f"{indexed.papers:,} papers added to the full-text index in {indexed.seconds:.1f} s; "
            "planner statistics gathered"
        )
