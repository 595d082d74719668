"""What an alert holds: the trail matches of the user's daily (or weekly)
follows that no earlier alert held, recorded as AlertMailItem rows before the
mail is built (the unique (user, paper, version) row is what makes "held by an
earlier alert" exact), and the content read back from them for the mail."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.urls import reverse

from accounts.alerts.links import absolute, rating_url, unsubscribe_url
from accounts.alerts.models import AlertMail, AlertMailItem
from accounts.follows.models import Follow
from accounts.follows.types import NEW, REVISION
from accounts.models import User
from accounts.recommend.selectors import scores_of_users, window_start
from accounts.trail.selectors import trail_window_cards
from accounts.trail.types import CardFilter
from digests.selectors import readings_for_versions
from harvest.badges import VersionBadge, version_badges
from harvest.models import Paper, Version

# How far back a user's first alert looks, and the most any alert looks
# back (a user who was not mailed for weeks gets the recent part, not all).
FIRST_WINDOW = {AlertMail.Frequency.DAILY: timedelta(days=1), AlertMail.Frequency.WEEKLY: timedelta(days=7)}
LONGEST_WINDOW = timedelta(days=14)
# Matching runs minutes after a version is stored; a day's grace before the
# previous alert catches what was matched late (held items are skipped).
GRACE = timedelta(days=1)
LINE_LIMIT = 200


def _windows(mails: list[AlertMail], frequency: str, now: datetime) -> dict[int, datetime]:
    """Per user: the earliest event time a new alert looks at."""
    previous = dict(
        AlertMail.objects.filter(
            user_id__in=[mail.user_id for mail in mails],
            frequency=frequency,
            status__in=[AlertMail.Status.SENT, AlertMail.Status.EMPTY],
        )
        .exclude(pk__in=[mail.pk for mail in mails])
        .values("user_id")
        .annotate(last=Max("claimed_at"))
        .values_list("user_id", "last")
        .order_by()
    )
    earliest = now - LONGEST_WINDOW
    return {
        mail.user_id: max(earliest, previous[mail.user_id] - GRACE)
        if mail.user_id in previous
        else now - FIRST_WINDOW[frequency]
        for mail in mails
    }


def candidate_items(mails: list[AlertMail], frequency: str, now: datetime) -> dict[int, dict[tuple[int, int], dict]]:
    """Per mail: {(paper, version): {kind, follow ids}} of the cards the user's
    follows of this frequency brought into their trail since the window began,
    newest first (dismissed and excluded cards left out)."""
    since = _windows(mails, frequency, now)
    follows: dict[int, set[int]] = defaultdict(set)
    for follow_id, user_id in Follow.objects.filter(
        user_id__in=[mail.user_id for mail in mails], delivery=frequency, muted=False
    ).values_list("id", "user_id"):
        follows[user_id].add(follow_id)
    found: dict[int, dict[tuple[int, int], dict]] = {mail.pk: {} for mail in mails}
    for mail in mails:
        if not follows[mail.user_id]:
            continue
        cards = trail_window_cards(user_id=mail.user_id, since=since[mail.user_id], until=now, where=CardFilter())
        for card in cards:
            matched = sorted(card.follow_ids & follows[mail.user_id])
            if matched:
                # What these follows matched: an arrival if any of them took one, else a revision.
                kinds = {match.kind for match in card.reasons if match.follow_id in matched}
                kind = NEW if NEW in kinds else REVISION
                found[mail.pk][(card.paper_id, card.version_number)] = {"kind": kind, "follows": matched}
    return found


@transaction.atomic
def record_items(*, mails: list[AlertMail], frequency: str, now: datetime) -> dict[int, int]:
    """Record what each mail (with no items yet) holds; an item another alert
    of the user holds already is skipped. Returns the items per mail."""
    # A mail claimed just now has no items; one taken over may have them already.
    older = [mail for mail in mails if not getattr(mail, "inserted", False)]
    counts: dict[int, int] = defaultdict(int)
    for mail_id in AlertMailItem.objects.filter(mail__in=older).values_list("mail_id", flat=True) if older else ():
        counts[mail_id] += 1
    fresh = [mail for mail in mails if not counts[mail.pk]]
    if fresh:
        users = {mail.pk: mail.user_id for mail in fresh}
        rows = [
            AlertMailItem(
                mail_id=mail_id,
                user_id=users[mail_id],
                paper_id=paper_id,
                version_number=number,
                kind=entry["kind"],
                follow_ids=entry["follows"],
            )
            for mail_id, items in candidate_items(fresh, frequency, now).items()
            for (paper_id, number), entry in items.items()
        ]
        AlertMailItem.objects.bulk_create(rows, batch_size=2000, ignore_conflicts=True)
        for mail_id in AlertMailItem.objects.filter(mail__in=fresh).values_list("mail_id", flat=True):
            counts[mail_id] += 1
    return {mail.pk: counts.get(mail.pk, 0) for mail in mails}


# --- the content of a mail ------------------------------------------------------------
@dataclass
class AlertPaper:
    """One paper version as every alert of a language shows it (shared by
    the batch's mails; its rendered parts are cached by alert_mail)."""

    paper_id: int
    arxiv_id: str
    title: str
    authors: list[str]
    primary_category: str
    kind: str
    version_number: int
    takeaway: str
    change_line: str
    paper_url: str
    arxiv_url: str
    language: str
    badge: VersionBadge | None = None  # as every page labels this version (harvest.badges)
    html: str = ""
    text: str = ""


@dataclass
class AlertEntry:
    paper: AlertPaper
    also: list[str] = field(default_factory=list)  # the user's other follows that matched it
    follow_name: str = ""  # the follow it is listed under
    score: float | None = None  # the reader's score of it, when they have a ranking
    # The reader's own signed "more / less like this" links (the paper's block is shared, these are not).
    more_url: str = ""
    less_url: str = ""


@dataclass
class AlertGroup:
    follow_id: int
    name: str
    unsubscribe_url: str
    entries: list[AlertEntry] = field(default_factory=list)


@dataclass
class AlertContent:
    """A mail's papers: with a ranking, its best `top` in full in the reader's
    order and the rest one line each under their follows (in that order too);
    without one, every paper in full under its follow."""

    mail: AlertMail
    user: User
    groups: list[AlertGroup]
    top: list[AlertEntry] = field(default_factory=list)

    @property
    def paper_count(self) -> int:
        return len(self.top) + sum(len(group.entries) for group in self.groups)

    @property
    def ranked(self) -> bool:
        return bool(self.top)


def _first_line(text: str) -> str:
    line = " ".join(text.strip().split("\n", 1)[0].split())
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1] + "…"


def _language_key(user: User) -> str:
    return "zh" if user.language.startswith("zh") else "en"


class AlertPapers:
    """The run's papers as alerts show them, by (paper, version, kind,
    language): a day's alerts share most of their papers, so each is read
    (paper, version, reading) and rendered once per run. Bounded: cleared
    past LIMIT entries, so memory does not grow with the number of users."""

    LIMIT = 50_000

    def __init__(self) -> None:
        self.papers: dict[tuple[int, int, str, str], AlertPaper] = {}

    def fill(self, wanted: set[tuple[int, int, str, str]]) -> None:
        missing = wanted - self.papers.keys()
        if not missing:
            return
        if len(self.papers) + len(missing) > self.LIMIT:
            self.papers.clear()
            missing = wanted
        paper_ids = {key[0] for key in missing}
        papers = {
            row["id"]: row
            for row in Paper.objects.filter(pk__in=paper_ids).values(
                "id", "arxiv_id", "title", "authors", "primary_category", "categories"
            )
        }
        pairs = {(key[0], key[1]) for key in missing}
        versions = {
            (paper_id, number): (version_id, comments)
            for version_id, paper_id, number, comments in Version.objects.filter(
                paper_id__in=paper_ids, number__in={number for _, number in pairs}
            ).values_list("id", "paper_id", "number", "comments")
            if (paper_id, number) in pairs
        }
        readings = readings_for_versions(version_ids=[version_id for version_id, _ in versions.values()])
        badges = version_badges(version_id for version_id, _ in versions.values())
        detail = absolute(reverse("portal:paper_detail", kwargs={"arxiv_id": "0000.00000"}))
        for key in missing:
            paper_id, number, kind, language = key
            paper = papers.get(paper_id)
            if paper is None:
                continue
            version_id, comments = versions.get((paper_id, number), (None, ""))
            reading = readings.get(version_id)
            text = (reading.content.get(language) or {}) if reading is not None else {}
            change = (text.get("changes") or comments) if number > 1 else ""
            self.papers[key] = AlertPaper(
                paper_id=paper_id,
                arxiv_id=paper["arxiv_id"],
                title=" ".join(paper["title"].split()),
                authors=list(paper["authors"]),
                primary_category=paper["primary_category"] or (paper["categories"] or [""])[0],
                kind=kind,
                version_number=number,
                takeaway=_first_line(text.get("takeaway", "")),
                change_line=_first_line(change or ""),
                paper_url=detail.replace("0000.00000", paper["arxiv_id"]),
                arxiv_url=f"https://arxiv.org/abs/{paper['arxiv_id']}v{number}",
                language=language,
                badge=badges.get(version_id),
            )

    def get(self, key: tuple[int, int, str, str]) -> AlertPaper | None:
        return self.papers.get(key)


def alert_contents(
    *, mails: list[AlertMail], users: dict[int, User], papers: AlertPapers | None = None
) -> list[AlertContent]:
    """The mails' items with their papers and follows: a fixed number of
    queries for the batch (fewer once the run's cache holds its papers).
    Each paper is shown once, under the first follow that matched it, naming
    the others."""
    papers = papers or AlertPapers()
    items = list(
        AlertMailItem.objects.filter(mail__in=mails)
        .order_by("mail_id", "id")
        .values_list("mail_id", "paper_id", "version_number", "kind", "follow_ids")
    )
    languages = {mail.pk: _language_key(users[mail.user_id]) for mail in mails}
    papers.fill({(row[1], row[2], row[3], languages[row[0]]) for row in items})
    follow_ids = {follow_id for row in items for follow_id in row[4]}
    follow_names = dict(Follow.objects.filter(pk__in=follow_ids).values_list("id", "name"))
    by_mail: dict[int, list] = defaultdict(list)
    for row in items:
        by_mail[row[0]].append(row)
    wanted = {mail.user_id: {row[1] for row in by_mail.get(mail.pk, [])} for mail in mails}
    scores = scores_of_users(wanted, since=window_start())
    contents = []
    for mail in mails:
        user = users[mail.user_id]
        groups: dict[int, AlertGroup] = {}
        for _, paper_id, number, kind, follows in by_mail.get(mail.pk, []):
            paper = papers.get((paper_id, number, kind, languages[mail.pk]))
            known = [follow_id for follow_id in follows if follow_id in follow_names]
            if paper is None or not known:
                continue
            first = min(known)
            group = groups.get(first)
            if group is None:
                group = groups[first] = AlertGroup(
                    first, follow_names[first], unsubscribe_url(user_id=user.pk, follow_id=first)
                )
            also = [follow_names[f] for f in sorted(known) if f != first]
            group.entries.append(
                AlertEntry(
                    paper,
                    also,
                    group.name,
                    scores[user.pk].get(paper_id),
                    more_url=rating_url(user_id=user.pk, paper_id=paper_id, value=1),
                    less_url=rating_url(user_id=user.pk, paper_id=paper_id, value=-1),
                )
            )
        contents.append(_in_order(AlertContent(mail, user, [groups[key] for key in sorted(groups)])))
    return contents


def _in_order(content: AlertContent) -> AlertContent:
    """The reader's order, when they have one: the best ALERT_TOP_PAPERS
    taken out in full, each group's rest by score (unscored last, as listed)."""
    entries = [entry for group in content.groups for entry in group.entries]
    if not any(entry.score is not None for entry in entries):
        return content

    def rank(entry: AlertEntry) -> float:
        return entry.score if entry.score is not None else -math.inf

    best = sorted(entries, key=rank, reverse=True)[: settings.ALERT_TOP_PAPERS]
    chosen = {id(entry) for entry in best}
    for group in content.groups:
        group.entries = sorted((e for e in group.entries if id(e) not in chosen), key=rank, reverse=True)
    content.groups = [group for group in content.groups if group.entries]
    content.top = best
    return content
