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
from accounts.recommend.selectors import paper_scores, window_start
from accounts.trail.selectors import group_trail_window_cards, trail_window_cards
from accounts.trail.types import Card, CardFilter
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
    if channel.group_id is not None:
        cards = group_trail_window_cards(
            group_id=channel.group_id,
            user_id=reader_of(channel).pk,
            since=since,
            until=until,
            follow_id=channel.follow_id,
        )
        return [_picked(card) for card in cards if card.paper_id not in leave_out][: channel.top_n]
    cards = trail_window_cards(
        user_id=channel.user_id, since=since, until=until, where=CardFilter(follow_id=channel.follow_id)
    )
    cards = [card for card in cards if card.paper_id not in leave_out]
    scores = paper_scores(channel.user_id, [card.paper_id for card in cards], since=window_start())
    cards.sort(key=lambda card: (scores.get(card.paper_id, -math.inf), card.event_at), reverse=True)
    return [_picked(card) for card in cards[: channel.top_n]]


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


def build_message(channel: Channel, *, picked: list[dict], day: date | None, test: bool) -> Message:
    """The message of these papers, in the owner's language (a few queries, whatever N)."""
    language = language_of(channel)
    rows = {
        row["id"]: row
        for row in Paper.objects.filter(pk__in=[item["paper"] for item in picked]).values(
            "id", "arxiv_id", "title", "abstract"
        )
    }
    readings = readings_for_versions(version_ids=[item["version"] for item in picked])
    follow_ids = {follow_id for item in picked for follow_id in item["follows"]}
    owned = {"group_id": channel.group_id} if channel.group_id is not None else {"user_id": channel.user_id}
    names = dict(Follow.objects.filter(pk__in=follow_ids, **owned).values_list("id", "name"))
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
