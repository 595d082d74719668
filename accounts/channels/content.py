"""What a channel's message holds: the top N of the owner's trail (or of the
channel's follow) in the window, in the "for you" order where the owner has
scores (their score sheets, as the trail's "for you" ranks a day), newest
first otherwise; each paper with its one-line takeaway (the AI reading's, in
the owner's language, else the abstract's first sentence), why it matched,
and the email alerts' signed "more / less like this" links. A group's channel
holds the group trail's newest cards, in the group owner's language, without
rating links (ratings are personal)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import urlencode

from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.alerts.selectors import absolute, rating_url
from accounts.channels.models import Channel
from accounts.channels.owners import reader_of
from accounts.channels.types import ChannelPaper, Message
from accounts.follows.models import Follow
from accounts.follows.types import REVISION
from accounts.recommend.selectors import scores_of_users, window_start
from accounts.trail.selectors import trail_windows_cards
from accounts.trail.types import Card, WindowAsk
from digests.models import GuidedReading
from digests.selectors import readings_for_versions
from harvest.models import Paper

LINE_LIMIT = 200
_SENTENCE = re.compile(r"(.+?[.!?。！？])(\s|$)", re.S)


def language_of(channel: Channel) -> str:
    return "zh-hans" if reader_of(channel).language.startswith("zh") else "en"


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    found = _SENTENCE.match(text)
    line = found.group(1) if found else text
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1] + "…"


def rest_url(channel: Channel) -> str:
    if channel.group_id is not None:
        return absolute(reverse("portal:group_trail", args=[channel.group_id]))
    path = reverse("portal:trail")
    return absolute(f"{path}?{urlencode({'follow': channel.follow_id})}" if channel.follow_id else path)


def pick_papers(channel: Channel, *, since: datetime, until: datetime, leave_out: set[int]) -> list[dict]:
    """The channel's top N cards in [since, until), best first, as a send
    records them: {"paper", "version", "revision", "follows"}."""
    return pick_many([Pick(channel, since, until, leave_out)])[0]


@dataclass(frozen=True)
class Pick:
    """What one channel's message is picked from: its window and the papers it sent lately."""

    channel: Channel
    since: datetime
    until: datetime
    leave_out: set[int]


def pick_many(picks: list[Pick]) -> list[list[dict]]:
    """pick_papers of many channels, read together (a fixed number of queries
    for the lot: the trail's windows and the owners' scores)."""
    asks = [
        WindowAsk(reader_of(pick.channel).pk, pick.channel.group_id, pick.since, pick.until, pick.channel.follow_id)
        for pick in picks
    ]
    cards = [
        [card for card in window if card.paper_id not in pick.leave_out]
        for pick, window in zip(picks, trail_windows_cards(asks), strict=True)
    ]
    wanted: dict[int, set[int]] = {}
    for pick, window in zip(picks, cards, strict=True):
        if pick.channel.group_id is None:
            wanted.setdefault(pick.channel.user_id, set()).update(card.paper_id for card in window)
    scores = scores_of_users(wanted, since=window_start()) if wanted else {}
    picked = []
    for pick, window in zip(picks, cards, strict=True):
        if pick.channel.group_id is None:  # a group's trail has no "for you" order: newest first, as placed
            mine = scores[pick.channel.user_id]
            window.sort(key=lambda card, mine=mine: (mine.get(card.paper_id, -math.inf), card.event_at), reverse=True)
        picked.append([_picked(card) for card in window[: pick.channel.top_n]])
    return picked


def _picked(card: Card) -> dict:
    return {
        "paper": card.paper_id,
        "version": card.version_id,
        "revision": card.kind == REVISION,
        "follows": sorted(card.follow_ids),
    }


def _why(card_follows: list[str], revision: bool) -> str:
    why = ", ".join(card_follows) if card_follows else _("your research record")
    return why + (" · " + _("a new version") if revision else "")


@dataclass
class Shelf:
    """What a batch's messages show, read once for the lot: the papers' rows,
    the versions' readings and the follows' names (with their owners)."""

    papers: dict[int, dict]
    readings: dict[int, GuidedReading]
    follows: dict[int, tuple[str, int | None, int | None]]


def shelf_of(picked: list[list[dict]]) -> Shelf:
    """The shelf of these messages' papers (three queries)."""
    items = [item for papers in picked for item in papers]
    rows = Paper.objects.filter(pk__in={item["paper"] for item in items}).values("id", "arxiv_id", "title", "abstract")
    follows = Follow.objects.filter(pk__in={follow_id for item in items for follow_id in item["follows"]})
    return Shelf(
        papers={row["id"]: row for row in rows},
        readings=readings_for_versions(version_ids={item["version"] for item in items}),
        follows={
            pk: (name, user_id, group_id)
            for pk, name, user_id, group_id in follows.values_list("id", "name", "user_id", "group_id")
        },
    )


def build_message(
    channel: Channel, *, picked: list[dict], day: date | None, test: bool, shelf: Shelf | None = None
) -> Message:
    """The message of these papers, in the owner's language (from the batch's
    shelf, or a few queries of its own whatever N)."""
    shelf = shelf or shelf_of([picked])
    language = language_of(channel)
    rows = shelf.papers
    readings = shelf.readings
    owner = (None, channel.group_id) if channel.group_id is not None else (channel.user_id, None)
    names = {pk: name for pk, (name, *owned) in shelf.follows.items() if tuple(owned) == owner}
    personal = channel.group_id is None
    key = "zh" if language.startswith("zh") else "en"
    papers = []
    with translation.override(language):
        for item in picked:
            paper_id = item["paper"]
            row = rows.get(paper_id)
            if row is None:
                continue
            reading = readings.get(item["version"])
            text = (reading.content.get(key) or {}) if reading is not None else {}
            takeaway = first_sentence(text.get("takeaway") or "") or first_sentence(row["abstract"])
            matched = [names[f] for f in item["follows"] if f in names]
            papers.append(
                ChannelPaper(
                    paper_id=paper_id,
                    arxiv_id=row["arxiv_id"],
                    title=" ".join(row["title"].split()),
                    takeaway=takeaway,
                    why=_why(matched, item["revision"]),
                    url=absolute(reverse("portal:paper_detail", kwargs={"arxiv_id": row["arxiv_id"]})),
                    more_url=rating_url(user_id=channel.user_id, paper_id=paper_id, value=1) if personal else "",
                    less_url=rating_url(user_id=channel.user_id, paper_id=paper_id, value=-1) if personal else "",
                )
            )
        if test:
            title = _("PaperTrail: test message for “%(name)s”") % {"name": channel.name}
        else:
            title = ngettext(
                "PaperTrail: %(count)d paper for %(day)s", "PaperTrail: %(count)d papers for %(day)s", len(papers)
            ) % {"count": len(papers), "day": day.isoformat() if day else ""}
            if channel.follow_id and channel.follow is not None:
                title = f"{channel.follow.name} · {title}"
    return Message(title=title, papers=papers, rest_url=rest_url(channel), language=language, test=test)
