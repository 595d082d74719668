"""The picks page's papers (reads only): a researcher picks up to MAX_PICKS
papers from the latest announcement day's papers in their categories, each
pick a thumbs up that seeds their ranking (services.picks_record).

Their categories are their category follows; without any, the categories
their research record lists most; without a record either, computer science
as a whole, most popular first. "The day" is an arXiv listing: the papers
whose first version it announced (the feed's day for that version, else the
listing its submission time falls in: harvest.completeness), not when this
library stored them, so a back-fill of old papers never makes "a day". The
latest listing by arXiv's schedule is offered; when the library holds none of
its papers in those categories, the newest listing it does hold, and the page
says so. PAGE_SIZE of them are offered, taken in turn from each category
(the paper's primary one, or the first followed one it lists), most popular
then newest first within each, so that one busy category does not fill the
page. The offer depends on the day, the categories and the exclusions only,
never on what the researcher picked, so a form posted twice finds the same
papers."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.follows.models import Exclusion, Follow
from accounts.models import User
from accounts.recommend.models import Rating
from accounts.records.models import Record
from harvest.completeness import (
    announcement_of,
    is_listing_day,
    latest_expected_announcement,
    listing_day,
    listing_of_submission,
    submission_window,
)
from harvest.models import Paper, PaperCategory, Version

PAGE_SIZE = 48
MAX_PICKS = 10
RECORD_CATEGORIES = 3  # the research record's most listed categories, when nothing is followed
POPULAR_ARCHIVE = "cs"
FIRST_LISTING = date(1991, 8, 14)


class Basis:
    FOLLOWS = "follows"
    RECORDS = "records"
    POPULAR = "popular"
    ALL = (FOLLOWS, RECORDS, POPULAR)


@dataclass
class PickGroup:
    category: str
    papers: list[Paper]


@dataclass
class PickPage:
    basis: str  # Basis: where the categories came from
    categories: list[str]
    day: date | None  # the arXiv listing's date; None when the library holds nothing in the categories
    announced_at: datetime | None  # when arXiv announced it (UTC)
    # arXiv's latest listing by its schedule: `day` unless the library holds
    # none of its papers in the categories (or another day was asked for).
    latest: date | None = None
    groups: list[PickGroup] = field(default_factory=list)
    liked: set[int] = field(default_factory=set)  # offered papers already picked or rated up
    saved: set[int] = field(default_factory=set)  # offered papers already in the research record
    picks: int = 0  # the researcher's picks so far, every day

    @property
    def papers(self) -> list[Paper]:
        return [paper for group in self.groups for paper in group.papers]

    @property
    def offered(self) -> dict[str, Paper]:
        return {paper.arxiv_id: paper for paper in self.papers}


class InvalidDay(ValueError):
    """A `day` that is no arXiv listing date; the message says so."""


def pick_day(raw: str) -> date | None:
    """The `day` parameter of the page and the API: an arXiv listing date
    (YYYY-MM-DD), or None (empty) for the latest. Raises InvalidDay."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        raise InvalidDay(_("Give an arXiv listing date as YYYY-MM-DD.")) from None
    # arXiv began in 1991; a listing is at most a few days ahead of the clock.
    if not FIRST_LISTING <= day <= timezone.now().date() + timedelta(days=7) or not is_listing_day(day):
        raise InvalidDay(_("%(day)s has no arXiv listing.") % {"day": day.isoformat()})
    return day


def pick_categories(user: User) -> tuple[str, list[str]]:
    """(basis, category codes or archives): the category follows in the order
    they were made, else the research record's most listed categories, else
    the computer science archive."""
    follows = Follow.objects.filter(user=user, kind=Follow.Kind.CATEGORY).order_by("created_at", "pk")
    codes = list(dict.fromkeys(value.get("code") for value in follows.values_list("value", flat=True)))
    codes = [code for code in codes if code]
    if codes:
        return Basis.FOLLOWS, codes
    listed = (
        PaperCategory.objects.filter(paper_id__in=Record.objects.filter(user=user).values("paper_id"))
        .values("category")
        .annotate(n=Count("id"))
        .order_by("-n", "category")[:RECORD_CATEGORIES]
    )
    codes = [row["category"] for row in listed]
    if codes:
        return Basis.RECORDS, codes
    return Basis.POPULAR, [POPULAR_ARCHIVE]


def covers(code: str, category: str) -> bool:
    """Whether a followed code or archive (cs, hep-th) covers a paper's category."""
    return category == code or ("." not in code and category.startswith(f"{code}."))


def _category_filter(codes: list[str]) -> Q:
    query = Q(category__in=codes)
    for archive in [code for code in codes if "." not in code]:
        query |= Q(category__startswith=f"{archive}.")
    return query


def _listed_in(codes: list[str]) -> Exists:
    return Exists(PaperCategory.objects.filter(paper_id=OuterRef("pk")).filter(_category_filter(codes)))


def _announced_on(day: date) -> Q:
    """Papers whose first version arXiv's listing dated `day` announced."""
    start, end = submission_window(day)
    first = Version.objects.filter(paper_id=OuterRef("pk"), number=1, announced__isnull=False)
    return Q(Exists(first.filter(announced=day))) | (Q(published__gt=start, published__lte=end) & ~Q(Exists(first)))


def latest_day(codes: list[str], *, now: datetime | None = None) -> tuple[date, date | None]:
    """(arXiv's latest listing by its schedule, the newest listing whose new
    papers the library holds in these categories: that one when it has any,
    else None when it holds no paper in them at all)."""
    latest = listing_day(latest_expected_announcement(at=now))
    papers = Paper.objects.filter(_listed_in(codes))
    if papers.filter(_announced_on(latest)).exists():
        return latest, latest
    days = []
    submitted = papers.order_by(F("published").desc(nulls_last=True)).values_list("published", flat=True).first()
    if submitted is not None:
        days.append(listing_of_submission(submitted))
    announced = (
        Version.objects.filter(number=1, announced__isnull=False, paper__in=papers)
        .order_by("-announced")
        .values_list("announced", flat=True)
        .first()
    )
    if announced is not None:
        days.append(announced)
    return latest, max(days, default=None)


def _group_of(codes: list[str], primary: str, categories: list[str]) -> str:
    for category in [primary, *categories]:
        if any(covers(code, category) for code in codes):
            return category
    return primary


def _offer(user: User, codes: list[str], day: date, *, popular: bool) -> list[PickGroup]:
    excluded = list(Exclusion.objects.filter(user=user, kind=Exclusion.Kind.CATEGORY).values_list("value", flat=True))
    rows = Paper.objects.filter(_announced_on(day)).filter(_listed_in(codes))
    if excluded:
        rows = rows.exclude(_listed_in(excluded))
    found = list(rows.values_list("id", "primary_category", "categories", "popularity", "published"))
    # Most popular, then newest, then by id: the same offer on every read.
    found.sort(key=lambda row: (-row[3], -(row[4].timestamp() if row[4] else 0), -row[0]))
    if popular:
        chosen = {POPULAR_ARCHIVE: [row[0] for row in found[:PAGE_SIZE]]}
    else:
        queues: dict[str, list[int]] = defaultdict(list)
        for pk, primary, categories, _popularity, _at in found:
            queues[_group_of(codes, primary, categories)].append(pk)
        # Busiest categories first in each round, one paper a category a round.
        order = sorted(queues, key=lambda code: (-len(queues[code]), code))
        chosen = {code: [] for code in order}
        taken = 0
        while taken < min(PAGE_SIZE, len(found)):
            for code in order:
                if taken < PAGE_SIZE and len(chosen[code]) < len(queues[code]):
                    chosen[code].append(queues[code][len(chosen[code])])
                    taken += 1
    papers = Paper.objects.in_bulk([pk for pks in chosen.values() for pk in pks])
    return [PickGroup(code, [papers[pk] for pk in pks]) for code, pks in chosen.items() if pks]


def pick_page(*, user: User, day: date | None = None, now: datetime | None = None) -> PickPage:
    """What the picks page offers the researcher: the latest day's papers in
    their categories (or those of `day`, an arXiv listing date), with those
    they already picked, rated up or saved."""
    basis, codes = pick_categories(user)
    if day is None:
        latest, day = latest_day(codes, now=now)
    else:
        latest = listing_day(latest_expected_announcement(at=now))
    page = PickPage(basis, codes, day, announcement_of(day) if day else None, latest=latest)
    page.picks = Rating.objects.filter(user=user, source=Rating.Source.PICK, value=Rating.Value.UP).count()
    if day is None:
        return page
    page.groups = _offer(user, codes, day, popular=basis == Basis.POPULAR)
    ids = [paper.pk for paper in page.papers]
    if ids:
        page.liked = set(
            Rating.objects.filter(user=user, paper_id__in=ids, value=Rating.Value.UP).values_list("paper_id", flat=True)
        )
        page.saved = set(Record.objects.filter(user=user, paper_id__in=ids).values_list("paper_id", flat=True))
    return page
