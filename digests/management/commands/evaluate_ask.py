"""`python manage.py evaluate_ask [--k N] [--no-answers]`: the measure of
"ask the library" on the search evaluation's real-paper collection
(docs/ask.md): precision@K, recall@K and hit@K of the retrieved context by
language and style, citation validity, latency p50/p95 with a local fake
model answering in a fixed time, and passage-level precision on the recorded
full texts (`--no-passages` leaves it out: it parses and embeds four papers,
a few minutes on two cores). Nothing it stores outlives the run."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from digests.ask.evaluation import evaluate_ask
from harvest.search_evaluation import Collection


class Command(BaseCommand):
    help = "Measure the ask service's context, citations and latency on the real-paper collection."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--k", type=int, default=None, help="papers in the context (default PAPERTRAIL_ASK_TOP_K)")
        parser.add_argument("--no-answers", action="store_true", help="measure the context only")
        parser.add_argument("--no-passages", action="store_true", help="leave out the recorded full texts")

    def handle(self, *args, k: int | None, no_answers: bool, no_passages: bool, **options) -> None:
        collection = Collection.load()
        self.stderr.write(f"{len(collection.papers)} papers, {len(collection.needs)} needs")
        report = evaluate_ask(
            collection, k=k, answers=not no_answers, passages=not no_passages, progress=self.stderr.write
        )
        self.stdout.write(report.table())
