"""The guided readings' part in the semantic search: each paper's newest
Chinese reading (its takeaway, problem and method) is embedded beside the
paper's own title and abstract (harvest.embeddings), so a Chinese query meets
Chinese text where a reading exists. A reading is embedded once it is stored
(`digests.embed_readings`, on the embed queue), and the readings that wait,
newest first, by the same task on the beat."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Exists, OuterRef

from digests.models import GuidedReading
from harvest.embeddings.encoders import model_name
from harvest.embeddings.services import EmbedResult, embed_readings
from harvest.models import ReadingEmbedding

# What of a reading the vector reads: the parts that say what the paper is
# about; results, limitations and changes say how well and what moved.
READING_PARTS = ("takeaway", "problem", "method")


def reading_passage(content: dict) -> str:
    """A reading's Chinese text for its embedding (empty when it has none)."""
    chinese = content.get("zh") if isinstance(content, dict) else None
    if not isinstance(chinese, dict):
        return ""
    parts = [str(chinese.get(part) or "").strip() for part in READING_PARTS]
    return "\n".join(part for part in parts if part)


def newest_reading_texts(paper_ids: Iterable[int]) -> dict[int, str]:
    """Each paper's newest written reading's passage (latest version first)."""
    texts: dict[int, str] = {}
    readings = (
        GuidedReading.objects.filter(version__paper_id__in=list(paper_ids), status=GuidedReading.Status.DONE)
        .order_by("version__paper_id", "-version__number", "-written_at")
        .values_list("version__paper_id", "content")
    )
    for paper_id, content in readings:
        texts.setdefault(paper_id, reading_passage(content))
    return texts


def papers_of_readings(reading_ids: Iterable[int]) -> list[int]:
    return list(GuidedReading.objects.filter(pk__in=list(reading_ids)).values_list("version__paper_id", flat=True))


def readings_waiting(*, limit: int) -> list[int]:
    """Papers with a written reading and no reading vector by the configured
    model, newest reading first."""
    embedded = ReadingEmbedding.objects.filter(paper_id=OuterRef("version__paper_id"), model=model_name())
    rows = (
        GuidedReading.objects.filter(status=GuidedReading.Status.DONE)
        .filter(~Exists(embedded))
        .order_by("-written_at")
        .values_list("version__paper_id", flat=True)
    )
    return list(dict.fromkeys(rows[: limit * 2]))[:limit]


def readings_embed(*, paper_ids: Iterable[int] | None = None, limit: int = 500) -> EmbedResult:
    """Embed these papers' newest readings, or the readings that wait."""
    wanted = list(paper_ids) if paper_ids is not None else readings_waiting(limit=limit)
    return embed_readings(texts=newest_reading_texts(wanted))
