"""What a digest holds: the trail matches of the user's daily (or weekly)
follows that no earlier digest held, recorded as AlertMailItem rows before the
mail is built (the unique (user, paper, version) row is what makes "held by an
earlier digest" exact), and the content read back from them for the mail."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Max
from django.urls import reverse

from accounts.alert_links import absolute, unsubscribe_url
from accounts.models import AlertMail, AlertMailItem, Follow, TrailMatch, User
from digests.selectors import readings_for_versions
from harvest.models import Paper, Version

# How far back a user's first digest looks, and the most any digest looks
# back (a user who was not mailed for weeks gets the recent part, not all).
FIRST_WINDOW = {AlertMail.Frequency.DAILY: timedelta(days=1), AlertMail.Frequency.WEEKLY: timedelta(days=7)}
LONGEST_WINDOW = timedelta(days=14)
# Matching runs minutes after a version is stored; a day's grace before the
# previous digest catches what was matched late (held items are skipped).
GRACE = timedelta(days=1)
LINE_LIMIT = 200


def _windows(mails: list[AlertMail], frequency: str, now: datetime) -> dict[int, datetime]:
    """Per user: the earliest event time a new digest looks at."""
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
    """Per mail: {(paper, version): {kind, follow ids}} from the trail, newest first."""
    by_user = {mail.user_id: mail for mail in mails}
    since = _windows(mails, frequency, now)
    follows = dict(
        Follow.objects.filter(user_id__in=list(by_user), delivery=frequency).values_list("id", "user_id").order_by()
    )
    found: dict[int, dict[tuple[int, int], dict]] = {mail.pk: {} for mail in mails}
    if not follows:
        return found
    rows = (
        TrailMatch.objects.filter(
            follow_id__in=list(follows), event_at__gte=min(since.values()), event_at__lte=now, item__dismissed=False
        )
        .order_by("user_id", "-event_at", "follow_id")
        .values_list("user_id", "follow_id", "item__paper_id", "version_number", "kind", "event_at")
    )
    for user_id, follow_id, paper_id, number, kind, event_at in rows.iterator(chunk_size=5000):
        if event_at < since[user_id]:
            continue
        entry = found[by_user[user_id].pk].setdefault((paper_id, number), {"kind": kind, "follows": []})
        entry["follows"].append(follow_id)
    return found


@transaction.atomic
def record_items(*, mails: list[AlertMail], frequency: str, now: datetime) -> dict[int, int]:
    """Record what each mail (with no items yet) holds; an item another digest
    of the user holds already is skipped. Returns the items per mail."""
    held = set(AlertMailItem.objects.filter(mail__in=mails).values_list("mail_id", flat=True).distinct())
    fresh = [mail for mail in mails if mail.pk not in held]
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
        for mail_id, items in (candidate_items(fresh, frequency, now).items() if fresh else ())
        for (paper_id, number), entry in items.items()
    ]
    AlertMailItem.objects.bulk_create(rows, batch_size=2000, ignore_conflicts=True)
    counts: dict[int, int] = defaultdict(int)
    for mail_id in AlertMailItem.objects.filter(mail__in=mails).values_list("mail_id", flat=True):
        counts[mail_id] += 1
    return {mail.pk: counts.get(mail.pk, 0) for mail in mails}


# --- the content of a mail ------------------------------------------------------------
@dataclass
class DigestPaper:
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
    also: list[str] = field(default_factory=list)


@dataclass
class DigestGroup:
    follow_id: int
    name: str
    unsubscribe_url: str
    papers: list[DigestPaper] = field(default_factory=list)


@dataclass
class DigestContent:
    mail: AlertMail
    user: User
    groups: list[DigestGroup]

    @property
    def paper_count(self) -> int:
        return sum(len(group.papers) for group in self.groups)


def _first_line(text: str) -> str:
    line = " ".join(text.strip().split("\n", 1)[0].split())
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1] + "…"


def _language_key(user: User) -> str:
    return "zh" if user.language.startswith("zh") else "en"


def digest_contents(*, mails: list[AlertMail], users: dict[int, User]) -> list[DigestContent]:
    """The mails' items with their papers, versions, readings and follows: a
    fixed number of queries for the whole batch. Each paper is shown once,
    under the first follow that matched it, naming the others."""
    items = list(
        AlertMailItem.objects.filter(mail__in=mails)
        .order_by("mail_id", "id")
        .values_list("mail_id", "paper_id", "version_number", "kind", "follow_ids")
    )
    paper_ids = {row[1] for row in items}
    papers = {
        row["id"]: row
        for row in Paper.objects.filter(pk__in=paper_ids).values(
            "id", "arxiv_id", "title", "authors", "primary_category", "categories"
        )
    }
    wanted = {(row[1], row[2]) for row in items}
    versions = {
        (paper_id, number): (version_id, comments)
        for version_id, paper_id, number, comments in Version.objects.filter(
            paper_id__in=paper_ids, number__in={number for _, number in wanted}
        ).values_list("id", "paper_id", "number", "comments")
        if (paper_id, number) in wanted
    }
    readings = readings_for_versions(version_ids=[version_id for version_id, _ in versions.values()])
    follow_ids = {follow_id for row in items for follow_id in row[4]}
    follow_names = dict(Follow.objects.filter(pk__in=follow_ids).values_list("id", "name"))
    by_mail: dict[int, list] = defaultdict(list)
    for row in items:
        by_mail[row[0]].append(row)
    contents = []
    for mail in mails:
        user = users[mail.user_id]
        language = _language_key(user)
        groups: dict[int, DigestGroup] = {}
        for _, paper_id, number, kind, follows in by_mail.get(mail.pk, []):
            paper = papers.get(paper_id)
            known = [follow_id for follow_id in follows if follow_id in follow_names]
            if paper is None or not known:
                continue
            version_id, comments = versions.get((paper_id, number), (None, ""))
            reading = readings.get(version_id)
            text = (reading.content.get(language) or {}) if reading is not None else {}
            change = text.get("changes") or comments if number > 1 else ""
            first = min(known)
            group = groups.get(first)
            if group is None:
                group = groups[first] = DigestGroup(
                    first, follow_names[first], unsubscribe_url(user_id=user.pk, follow_id=first)
                )
            group.papers.append(
                DigestPaper(
                    arxiv_id=paper["arxiv_id"],
                    title=" ".join(paper["title"].split()),
                    authors=list(paper["authors"]),
                    primary_category=paper["primary_category"] or (paper["categories"] or [""])[0],
                    kind=kind,
                    version_number=number,
                    takeaway=_first_line(text.get("takeaway", "")),
                    change_line=_first_line(change or ""),
                    paper_url=absolute(reverse("portal:paper_detail", kwargs={"arxiv_id": paper["arxiv_id"]})),
                    arxiv_url=f"https://arxiv.org/abs/{paper['arxiv_id']}v{number}",
                    also=[follow_names[f] for f in sorted(known) if f != first],
                )
            )
        contents.append(DigestContent(mail, user, [groups[key] for key in sorted(groups)]))
    return contents
