"""Reads of research records: a page's records for its cards (one query), one
paper's record for its page, and the `/records/` list with its filters,
sorts and counts. A user only ever reads their own."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.postgres.aggregates import ArrayAgg
from django.contrib.postgres.search import SearchQuery
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet
from django.db.models.functions import Lower

from accounts.models import User
from accounts.records.export import export_choices, export_citations, export_data, paper_citation, tag_get
from accounts.records.models import Record, RecordSearch, RecordTag, Tag
from accounts.records.notes import render_note
from harvest.filters import is_postgresql

__all__ = [
    "Counts",
    "RecordFilters",
    "export_choices",
    "export_citations",
    "export_data",
    "paper_citation",
    "record_counts",
    "record_filter",
    "record_get",
    "record_page",
    "record_papers",
    "records_for_papers",
    "render_note",
    "saved_count",
    "tag_get",
    "tag_list",
    "with_tag_names",
]

SORTS = {
    "saved": ("-saved_at", "-id"),
    "updated": (F("paper_updated").desc(nulls_last=True), "-id"),
    "title": ("paper_title_key", "id"),
}
DEFAULT_SORT = "saved"
MAX_QUERY_LENGTH = 200


@dataclass
class RecordFilters:
    """What `/records/` and the API narrow a user's records by (all optional)."""

    tag: int | None = None
    state: str | None = None
    category: str | None = None
    revised: bool = False
    q: str = ""
    sort: str = DEFAULT_SORT


@dataclass
class Counts:
    total: int
    by_state: dict[str, int] = field(default_factory=dict)
    by_tag: list[tuple[Tag, int]] = field(default_factory=list)


def with_tag_names(records: QuerySet[Record]) -> list[Record]:
    """The records, each with `tag_names`, its tags' names in order: on
    PostgreSQL one aggregate in the same query, elsewhere one query more."""
    if is_postgresql():
        aggregate = ArrayAgg("tags__name", filter=Q(tags__isnull=False), default=[], order_by=("tags__name",))
        return list(records.annotate(tag_names=aggregate))
    found = list(records)
    names: dict[int, list[str]] = {record.pk: [] for record in found}
    links = RecordTag.objects.filter(record_id__in=list(names)).order_by("tag__name")
    for record_id, name in links.values_list("record_id", "tag__name"):
        names[record_id].append(name)
    for record in found:
        record.tag_names = names[record.pk]
    return found


def records_for_papers(*, user: User, paper_ids: Iterable[int]) -> dict[int, Record]:
    """The user's records of these papers with their tag names, by paper id: one query."""
    ids = list(paper_ids)
    if not ids or not user.is_authenticated:
        return {}
    return {record.paper_id: record for record in with_tag_names(Record.objects.filter(user=user, paper_id__in=ids))}


def record_get(*, user: User, paper_id: int) -> Record | None:
    found = with_tag_names(Record.objects.filter(user=user, paper_id=paper_id))
    return found[0] if found else None


def record_filter(*, user: User, filters: RecordFilters) -> QuerySet[Record]:
    records = Record.objects.filter(user=user)
    if filters.tag is not None:
        records = records.filter(Exists(RecordTag.objects.filter(tag_id=filters.tag, record_id=OuterRef("pk"))))
    if filters.state:
        records = records.filter(state=filters.state)
    if filters.category:
        records = records.filter(paper_categories__contains=f" {filters.category} ")
    if filters.revised:
        records = records.filter(last_read_version__isnull=False, paper_latest_version__gt=F("last_read_version"))
    if filters.q:
        records = records.filter(_search(filters.q))
    return records


def _search(text: str) -> Q:
    """The user's notes (substring) or the paper's title and abstract (the
    copy of the library's full-text vector on the record)."""
    in_note = Q(note__icontains=text)
    if is_postgresql():
        query = SearchQuery(text, config="english", search_type="websearch")
        return in_note | Exists(RecordSearch.objects.filter(record_id=OuterRef("pk"), vector=query))
    return in_note | Q(paper__title__icontains=text) | Q(paper__abstract__icontains=text)


def record_page(*, user: User, filters: RecordFilters, page: int, size: int) -> tuple[list[Record], int]:
    """One page of the filtered records (the sort's order, then id) and how
    many there are: a user's record is bounded, so pages are numbered."""
    records = record_filter(user=user, filters=filters)
    total = records.count()
    order = SORTS.get(filters.sort, SORTS[DEFAULT_SORT])
    start = (page - 1) * size
    # The page's ids first (an index range for the saved order), then those
    # rows with their papers and tags: aggregating the tags of every record
    # before the limit cost 110 ms at 5,000 records.
    ids = list(records.order_by(*order).values_list("pk", flat=True)[start : start + size])
    found = {row.pk: row for row in with_tag_names(Record.objects.filter(pk__in=ids).select_related("paper"))}
    return [found[pk] for pk in ids if pk in found], total


def record_counts(*, user: User) -> Counts:
    """The user's records in all, per state and per tag (every tag, even unused): three grouped index scans."""
    by_state = dict(Record.objects.filter(user=user).values_list("state").annotate(n=Count("id")).order_by())
    used = dict(RecordTag.objects.filter(user=user).values_list("tag_id").annotate(n=Count("id")).order_by())
    tags = list(Tag.objects.filter(user=user).order_by(Lower("name"), "id"))
    return Counts(
        total=sum(by_state.values()),
        by_state={state: by_state.get(state, 0) for state in Record.State.values},
        by_tag=[(tag, used.get(tag.pk, 0)) for tag in tags],
    )


def saved_count(*, user: User) -> int:
    return Record.objects.filter(user=user).count()


def tag_list(*, user: User) -> list[Tag]:
    return list(Tag.objects.filter(user=user).order_by(Lower("name"), "id"))


def record_papers(*, user: User) -> QuerySet[Record]:
    """The ids of the papers in the user's record, as a subquery ("ask within my research record")."""
    return Record.objects.filter(user=user).values("paper_id")


def saved_paper_ids() -> set[int]:
    """Every paper someone saved (the full-text selection reads its latest version)."""
    return set(Record.objects.values_list("paper_id", flat=True).distinct())
