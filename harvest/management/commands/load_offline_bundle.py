"""`python manage.py load_offline_bundle [--force]`: store the bundled offline
snapshot of real recorded papers (harvest/offline/) when the library is empty."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from harvest.embeddings.encoders import model_name
from harvest.offline.loader import library_is_empty, load_bundle
from harvest.offline.shipped_vectors import vectors_file, write_shipped_vectors


class Command(BaseCommand):
    help = (
        "Load the bundled offline snapshot (real recorded arXiv and Hugging Face replies, see "
        "harvest/offline/PROVENANCE.md) through the real parsers, only when the library is empty. "
        "--force loads it into a library that already holds papers (nothing is overwritten that is newer). "
        "Records no harvest run: loading files is not a check of any source."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="load even when the library is not empty")
        parser.add_argument(
            "--write-vectors",
            action="store_true",
            help="write the library's embeddings by the configured model as the bundle's vectors file, and stop",
        )

    def handle(self, *args, force: bool, write_vectors: bool, **options) -> None:
        if write_vectors:
            written = write_shipped_vectors()
            self.stdout.write(f"{written} embeddings by {model_name()} written to {vectors_file(model_name())}")
            return
        if not force and not library_is_empty():
            self.stdout.write("The library already holds papers; offline bundle not loaded (use --force to load it).")
            return
        results = load_bundle()
        for result in results:
            if result.name == "embeddings":
                self.stdout.write(
                    f"embeddings shipped with the bundle: {result.embeddings} stored for {model_name()} "
                    "(the rest are embedded in the background)"
                )
            elif result.name.startswith("hf_daily/"):
                self.stdout.write(
                    f"{result.name}: {result.parsed} picks, {result.picks} stored "
                    "(only for papers in the library; no network to look the others up)"
                )
            else:
                self.stdout.write(
                    f"{result.name}: {result.parsed} records, {result.new_papers} new papers, "
                    f"{result.versions} versions stored"
                )
        self.stdout.write(
            f"offline bundle: {sum(r.new_papers for r in results)} new papers, "
            f"{sum(r.versions for r in results)} versions, {sum(r.picks for r in results)} community picks stored"
        )
