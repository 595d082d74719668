"""Load the bundled offline snapshot through the project's real parsers.

Every file goes through the parser its source uses online and through the same
bulk upsert, so what a fresh machine shows offline is what those parsers make
of real replies. Loading files is not a check of a source: no HarvestRun is
recorded and no `versions_created` signal is sent (see PROVENANCE.md).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from harvest.models import Paper, Source
from harvest.offline.shipped_vectors import store_shipped_vectors
from harvest.search_index import index_pending_papers
from harvest.services import community_pick_upsert_many, paper_upsert_many
from harvest.source_records import PaperRecord
from harvest.sources.abs_files import abs_files, abs_records
from harvest.sources.arxiv_api import records_from_atom
from harvest.sources.base import PickRecord
from harvest.sources.hf_daily import HfDailySource, parse_daily_papers
from harvest.sources.oai import parse_list_records
from harvest.sources.snapshot import parse_snapshot_line
from harvest.table_statistics import analyze_library

BUNDLE_DIR = Path(__file__).resolve().parent


@dataclass
class FileResult:
    name: str
    parsed: int
    new_papers: int = 0
    versions: int = 0  # Version rows created (of new and of known papers)
    picks: int = 0
    embeddings: int = 0  # shipped vectors stored (shipped_vectors.py)


def read_bundled(path: Path) -> bytes:
    """A bundled file's bytes; a `.gz` file is the gzip of the recorded file,
    whose bytes come back unchanged."""
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def recorded_name(path: Path) -> str:
    """The recorded file's name: the bundled name without `.gz`."""
    return path.name.removesuffix(".gz")


def snapshot_records(path: Path) -> list[PaperRecord]:
    return [parse_snapshot_line(line) for line in read_bundled(path).splitlines() if line.strip()]


def oai_records(path: Path) -> list[PaperRecord]:
    return parse_list_records(read_bundled(path)).records


def api_records(path: Path) -> list[PaperRecord]:
    body = read_bundled(path)
    if recorded_name(path).endswith(".json"):
        body = json.loads(body)["body"].encode("utf-8")
    return records_from_atom(body)


def _recorded(folder: Path, *suffixes: str) -> list[Path]:
    return sorted(path for path in folder.iterdir() if path.is_file() and recorded_name(path).endswith(suffixes))


def bundle_files(bundle_dir: Path = BUNDLE_DIR) -> list[tuple[Path, Callable[[Path], list[PaperRecord]]]]:
    """Paper files in load order, each with its parser. arXiv's .abs files come
    first, each paper's superseded versions before its current one: a version's
    text is stored while it is the paper's latest, so those papers keep the
    text of every version and their pages show what changed."""
    files: list[tuple[Path, Callable[[Path], list[PaperRecord]]]] = []
    files += [(path, abs_records) for path in abs_files(bundle_dir / "arxiv_abs")]
    files += [(path, snapshot_records) for path in _recorded(bundle_dir / "kaggle", ".jsonl")]
    files += [(path, oai_records) for path in _recorded(bundle_dir / "arxiv_oai", ".xml")]
    files += [(path, api_records) for path in _recorded(bundle_dir / "arxiv_api", ".xml", ".json")]
    return files


def library_is_empty() -> bool:
    return not Paper.objects.exists()


@transaction.atomic
def load_bundle(*, bundle_dir: Path = BUNDLE_DIR) -> list[FileResult]:
    """Store every bundled file (idempotent: a second load writes nothing new)."""
    results: list[FileResult] = []
    for path, parse in bundle_files(bundle_dir):
        records = parse(path)
        upserted = paper_upsert_many(records=records)
        name = str(path.relative_to(bundle_dir))
        if name.startswith("arxiv_abs/"):
            # One line for the folder: its files are one paper's version each.
            if not results or results[-1].name != "arxiv_abs":
                results.append(FileResult(name="arxiv_abs", parsed=0))
            results[-1].parsed += len(records)
            results[-1].new_papers += upserted.new_papers
            results[-1].versions += len(upserted.created_version_ids)
            continue
        results.append(
            FileResult(
                name=name,
                parsed=len(records),
                new_papers=upserted.new_papers,
                versions=len(upserted.created_version_ids),
            )
        )
    results.extend(_load_picks(bundle_dir))
    results.append(FileResult(name="embeddings", parsed=0, embeddings=store_shipped_vectors(bundle_dir=bundle_dir)))
    index_pending_papers()
    analyze_library()
    return results


def _load_picks(bundle_dir: Path) -> list[FileResult]:
    """Hugging Face picks, stored for the papers the library holds."""
    results = []
    for path in sorted((bundle_dir / "hf_daily").glob("*.json")):
        picks: list[PickRecord] = parse_daily_papers(path.read_bytes()).picks
        in_library = set(
            Paper.objects.filter(arxiv_id__in=[p.arxiv_id for p in picks]).values_list("arxiv_id", flat=True)
        )
        stored = [pick for pick in picks if pick.arxiv_id in in_library]
        created = 0
        if stored:
            source, _ = Source.objects.get_or_create(slug=HfDailySource.slug, defaults={"name": HfDailySource.name})
            created = community_pick_upsert_many(source=source, picks=stored)
        results.append(FileResult(name=str(path.relative_to(bundle_dir)), parsed=len(picks), picks=created))
    return results
