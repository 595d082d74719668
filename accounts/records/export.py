"""Reads for exporting a research record: the saved papers as ExportItems
(for BibTeX, RIS and CSL-JSON) and the whole of a user's data as one JSON
document, so nobody is locked in."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from django.db.models import Count, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.follows.selectors import exclusion_list, follow_list
from accounts.models import User
from accounts.records.files import ExportItem, bibtex, csljson, ris
from accounts.records.models import Record, RecordTag, Tag
from accounts.trail.models import TrailState
from accounts.trail.selectors import trail_cards
from accounts.trail.types import CardFilter
from harvest.models import Paper

CITATION_FORMATS = {"bibtex": bibtex.write, "ris": ris.write, "csljson": csljson.write}
EXPORT_FORMATS = (*CITATION_FORMATS, "json")
CONTENT_TYPES = {
    "bibtex": "application/x-bibtex; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
    "csljson": "application/vnd.citationstyles.csl+json; charset=utf-8",
    "json": "application/json; charset=utf-8",
}
SUFFIXES = {"bibtex": "bib", "ris": "ris", "csljson": "json", "json": "json"}
_PAPER_FIELDS = (
    "paper__arxiv_id",
    "paper__title",
    "paper__authors",
    "paper__abstract",
    "paper__primary_category",
    "paper__categories",
    "paper__doi",
    "paper__published",
    "paper__updated",
    "paper__latest_version",
)


def tag_get(*, user: User, name: str) -> Tag | None:
    """The user's tag of this name (any case), or None. No stored name holds a
    NUL, and PostgreSQL refuses one in a query."""
    if "\x00" in name:
        return None
    return Tag.objects.annotate(lower_name=Lower("name")).filter(user=user, lower_name=name.strip().lower()).first()


def export_choices(*, user: User) -> tuple[int, list[tuple[Tag, int]]]:
    """How many records the user has, and each of their tags with its count."""
    counts = dict(
        RecordTag.objects.filter(user=user).values("tag_id").annotate(n=Count("id")).values_list("tag_id", "n")
    )
    tags = [(tag, counts.get(tag.pk, 0)) for tag in Tag.objects.filter(user=user).order_by("name", "id")]
    return Record.objects.filter(user=user).count(), tags


def _records(user: User, tag: Tag | None, arxiv_ids: Iterable[str] | None) -> QuerySet:
    rows = Record.objects.filter(user=user)
    if tag is not None:
        rows = rows.filter(pk__in=RecordTag.objects.filter(user=user, tag=tag).values("record_id"))
    if arxiv_ids is not None:
        rows = rows.filter(paper__arxiv_id__in=list(arxiv_ids))
    return rows.order_by("-saved_at", "-id")


def _tags_by_record(user: User, records: QuerySet) -> dict[int, list[str]]:
    """Tag names per record of `records` (a subquery, not a list of ids: a
    5,000-id IN list costs more to plan than the rows cost to read)."""
    tags: dict[int, list[str]] = defaultdict(list)
    rows = (
        RecordTag.objects.filter(user=user, record_id__in=records.values("id"))
        .order_by("tag__name", "tag_id")
        .values_list("record_id", "tag__name")
    )
    for record_id, name in rows.iterator(chunk_size=5000):
        tags[record_id].append(name)
    return tags


def export_items(
    *, user: User, tag: Tag | None = None, arxiv_ids: Iterable[str] | None = None, abstracts: bool = True
) -> list[ExportItem]:
    """The user's saved papers, newest saved first: all, one tag's, or those
    of the given arXiv ids (two queries whatever the number). `abstracts`:
    BibTeX, as arXiv writes it, has none, and they are most of the bytes read."""
    fields = _PAPER_FIELDS if abstracts else tuple(f for f in _PAPER_FIELDS if f != "paper__abstract")
    records = _records(user, tag, arxiv_ids)
    rows = list(records.values("id", *fields))
    tags = _tags_by_record(user, records)
    return [
        ExportItem(
            arxiv_id=row["paper__arxiv_id"],
            title=row["paper__title"],
            authors=list(row["paper__authors"] or []),
            abstract=row.get("paper__abstract", ""),
            primary_category=row["paper__primary_category"] or next(iter(row["paper__categories"] or []), ""),
            categories=list(row["paper__categories"] or []),
            doi=(row["paper__doi"] or "").split()[0] if (row["paper__doi"] or "").split() else "",
            published=row["paper__published"],
            updated=row["paper__updated"],
            latest_version=row["paper__latest_version"],
            tags=tags.get(row["id"], []),
        )
        for row in rows
    ]


def export_citations(*, user: User, format: str, tag: Tag | None = None, arxiv_ids: Iterable[str] | None = None) -> str:
    items = export_items(user=user, tag=tag, arxiv_ids=arxiv_ids, abstracts=format != "bibtex")
    return CITATION_FORMATS[format](items)


def paper_citation(*, paper: Paper, format: str) -> str:
    """One paper as a citation file, written by the same writers as a record's
    export (a paper page's "cite" download, for anyone, saved or not)."""
    dois = paper.doi.split()
    item = ExportItem(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        authors=list(paper.authors),
        abstract=paper.abstract,
        primary_category=paper.primary_category or next(iter(paper.categories), ""),
        categories=list(paper.categories),
        doi=dois[0] if dois else "",
        published=paper.published,
        updated=paper.updated,
        latest_version=paper.latest_version,
        tags=[],
    )
    return CITATION_FORMATS[format]([item])


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def export_data(*, user: User, tag: Tag | None = None, arxiv_ids: Iterable[str] | None = None) -> dict:
    """Everything the user made here as plain JSON: records (with every state
    stamp, notes, tags and the version last read), tags, follows,
    exclusions and the trail's read marks. `tag` and `arxiv_ids` narrow the
    records only."""
    records = _records(user, tag, arxiv_ids)
    rows = list(
        records.values(
            "id",
            "paper__arxiv_id",
            "paper__title",
            "saved_at",
            "state",
            "to_read_at",
            "reading_at",
            "read_at",
            "note",
            "note_updated_at",
            "last_read_version",
            "updated_at",
        )
    )
    tags = _tags_by_record(user, records)
    record_rows = [
        {
            "paper": row["paper__arxiv_id"],
            "title": row["paper__title"],
            "saved_at": _when(row["saved_at"]),
            "state": row["state"],
            "state_set_at": {
                "to_read": _when(row["to_read_at"]),
                "reading": _when(row["reading_at"]),
                "read": _when(row["read_at"]),
            },
            "tags": tags.get(row["id"], []),
            "note": row["note"],
            "note_updated_at": _when(row["note_updated_at"]),
            "last_read_version": row["last_read_version"],
            "updated_at": _when(row["updated_at"]),
        }
        for row in rows
    ]
    return {
        "format": "papertrail-records",
        "version": 1,
        "exported_at": timezone.now().isoformat(),
        "user": {
            "username": user.get_username(),
            "email": user.email,
            "language": user.language,
            "time_zone": user.time_zone,
        },
        "records": record_rows,
        "tags": _tag_rows(user),
        "follows": _follow_rows(user),
        "exclusions": [
            {"kind": row.kind, "value": row.value, "created_at": _when(row.created_at)}
            for row in exclusion_list(user=user)
        ],
        "trail": _trail_rows(user),
    }


def _tag_rows(user: User) -> list[dict]:
    counts: dict[int, int] = defaultdict(int)
    for tag_id in RecordTag.objects.filter(user=user).values_list("tag_id", flat=True).iterator(chunk_size=5000):
        counts[tag_id] += 1
    return [
        {"name": tag.name, "created_at": _when(tag.created_at), "records": counts.get(tag.pk, 0)}
        for tag in Tag.objects.filter(user=user).order_by("name", "id")
    ]


def _follow_rows(user: User) -> list[dict]:
    follows = follow_list(user=user)
    rejected = {pk for follow in follows for pk in follow.rejected_paper_ids or []}
    ids = dict(Paper.objects.filter(pk__in=rejected).values_list("pk", "arxiv_id")) if rejected else {}
    return [
        {
            "kind": follow.kind,
            "name": follow.name,
            "value": follow.value,
            "include_cross_lists": follow.include_cross_lists,
            "include_revisions": follow.include_revisions,
            "muted": follow.muted,
            "delivery": follow.delivery,
            "not_this_person": [ids[pk] for pk in follow.rejected_paper_ids or [] if pk in ids],
            "created_at": _when(follow.created_at),
            "updated_at": _when(follow.updated_at),
        }
        for follow in follows
    ]


def _trail_rows(user: User) -> list[dict]:
    cards = trail_cards(user_id=user.pk, where=CardFilter(dismissed=True))
    papers = dict(Paper.objects.filter(pk__in=[card.paper_id for card in cards]).values_list("id", "arxiv_id"))
    states = {
        paper_id: (read_at, dismissed_at)
        for paper_id, read_at, dismissed_at in TrailState.objects.filter(user=user).values_list(
            "paper_id", "read_at", "dismissed_at"
        )
    }
    return [
        {
            "paper": papers[card.paper_id],
            "kind": card.kind,
            "version": card.version_number,
            "event_at": _when(card.event_at),
            "unread": card.unread,
            "read_at": _when(states.get(card.paper_id, (None, None))[0]),
            "dismissed": card.dismissed,
            "dismissed_at": _when(states.get(card.paper_id, (None, None))[1]) if card.dismissed else None,
        }
        for card in cards
        if card.paper_id in papers
    ]
