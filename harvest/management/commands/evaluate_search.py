"""`python manage.py evaluate_search [--modes hybrid,keyword,semantic]`: the
search evaluation on the real-paper collection (docs/search.md), printed as
a Markdown table. Nothing it stores outlives the run."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from harvest.hybrid import MODES
from harvest.search_evaluation import Collection, evaluate


class Command(BaseCommand):
    help = "Evaluate the library's search modes on the real-paper collection (nDCG@10, recall@20)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: hybrid, keyword, semantic")

    def handle(self, *args, modes: str, **options) -> None:
        chosen = tuple(mode.strip() for mode in modes.split(",") if mode.strip())
        unknown = [mode for mode in chosen if mode not in MODES]
        if unknown or not chosen:
            raise CommandError(f"--modes takes {', '.join(MODES)}; got {modes!r}")
        collection = Collection.load()
        self.stderr.write(f"{len(collection.papers)} papers, {len(collection.needs)} needs, 6 queries each")
        report = evaluate(collection, modes=chosen, progress=self.stderr.write)
        self.stdout.write(report.table())
