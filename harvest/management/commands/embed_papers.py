"""`python manage.py embed_papers [--since YYYY-MM-DD] [--limit N] [--index]`:
embed the papers that wait for an embedding, newest first, with progress;
`--index` then builds the vector index file from the database (a new web
node, or a model change)."""

from __future__ import annotations

from datetime import date, datetime, time

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.index import build_index
from harvest.embeddings.selectors import pending_count
from harvest.embeddings.services import embed_papers
from harvest.models import ReadingEmbedding


class Command(BaseCommand):
    help = "Embed the papers that wait for an embedding (newest first), then optionally build the vector index."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since", help="only papers whose latest version is from this date on (YYYY-MM-DD)")
        parser.add_argument("--limit", type=int, help="at most this many papers")
        parser.add_argument("--index", action="store_true", help="build the vector index file afterwards")

    def handle(self, *args, since: str | None, limit: int | None, index: bool, **options) -> None:
        start = None
        if since:
            try:
                start = datetime.combine(date.fromisoformat(since), time.min, tzinfo=timezone.get_current_timezone())
            except ValueError:
                raise CommandError(f"--since {since!r} is not a date in the form YYYY-MM-DD") from None
        if limit is not None and limit < 1:
            raise CommandError("--limit takes a whole number from 1 up")
        encoder = get_encoder()
        waiting = pending_count()
        self.stderr.write(f"{waiting} papers wait for an embedding by {encoder.name}")

        def progress(done: int) -> None:
            if done and done % 512 == 0:
                self.stderr.write(f"{done} papers")

        result = embed_papers(since=start, limit=limit, encoder=encoder, progress=progress)
        self.stdout.write(f"{result.papers} papers embedded in {result.seconds:.1f} s ({result.rate:.1f} a second)")
        if index:
            size = build_index(model=encoder.name, dimension=encoder.dimension, force=True)
            readings = build_index(model=encoder.name, dimension=encoder.dimension, force=True, table=ReadingEmbedding)
            self.stdout.write(f"vector index: {size} papers, {readings} guided readings")
