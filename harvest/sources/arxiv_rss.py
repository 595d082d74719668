"""arXiv's announcement feed (rss.arxiv.org), in its RSS 2.0 and Atom shapes.

Format facts this follows (the recorded feeds in tests/fixtures/arxiv_rss/ and
arXiv's feed documentation): one document lists the day's announcement of the
categories asked for (`/rss/cs.AI+cs.LG`); an item's guid (Atom: id) is
`oai:arXiv.org:<id>v<N>`, its description (Atom: summary) reads
`arXiv:<id>vN Announce Type: <type> \\nAbstract: <abstract>`; `dc:creator`
is one comma-separated author string, `dc:rights` the licence URL,
`arxiv:DOI` and `arxiv:journal_reference` appear where the paper has them.
The channel's `pubDate` (Atom: an entry's `published`) is midnight US Eastern
of the announcement day. The feed is empty on weekends and holidays.

The feed carries neither a version's submission date nor its size: they stay
empty until the OAI-PMH harvest fills them.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from lxml import etree

from harvest.author_strings import parse_authors
from harvest.models import Paper
from harvest.source_records import (
    FeedAnnouncement,
    ListedItem,
    MalformedRecord,
    PaperRecord,
    VersionRecord,
    checked,
    clean_abstract,
    clean_line,
    clean_title,
    split_arxiv_id,
)
from harvest.sources.arxiv_api import lookup_ids, make_client
from harvest.sources.base import Page, SourceClient, Window
from harvest.sources.http import PermanentError, SourceError

logger = logging.getLogger(__name__)

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
DC = "{http://purl.org/dc/elements/1.1/}"
ANNOUNCE_TYPES = frozenset(("new", "cross", "replace", "replace-cross"))
# arXiv announces at 20:00 US Eastern; its feed dates are that zone's midnight.
ARXIV_ZONE = ZoneInfo("America/New_York")


@dataclass
class ParsedFeed:
    announced_on: date | None
    records: list[PaperRecord] = field(default_factory=list)
    items: list[ListedItem] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)


def _text(element: etree._Element | None) -> str:
    return " ".join((element.text or "").split()) if element is not None else ""


def _rfc822_day(text: str) -> date | None:
    """The calendar day of an RFC-822 date in its own offset."""
    try:
        return parsedate_to_datetime(text.strip()).date() if text.strip() else None
    except (TypeError, ValueError, IndexError):
        return None


def _iso_day(text: str) -> date | None:
    try:
        return datetime.fromisoformat(text.strip()).date() if text.strip() else None
    except ValueError:
        return None


def _abstract(description: str) -> str:
    _, marker, abstract = description.partition("Abstract:")
    return clean_abstract(abstract) if marker else ""


def _announce_type(element: etree._Element, description: str) -> str:
    text = _text(element.find(f"{ARXIV}announce_type"))
    if not text:
        # Older items say it only in the description's first line.
        _, marker, rest = description.partition("Announce Type:")
        text = rest.split()[0] if marker and rest.split() else ""
    return text


def _read_item(element: etree._Element, *, atom: bool, parsed: ParsedFeed) -> None:
    guid = _text(element.find(f"{ATOM}id" if atom else "guid"))
    raw_description = element.findtext(f"{ATOM}summary" if atom else "description") or ""
    try:
        arxiv_id, version = split_arxiv_id(guid)
        if version is None:
            raise MalformedRecord(f"{guid!r} names no version")
        announce_type = _announce_type(element, raw_description)
        if announce_type not in ANNOUNCE_TYPES:
            raise MalformedRecord(f"unknown announce type {announce_type!r}")
    except MalformedRecord as exc:
        parsed.malformed.append(f"feed item {guid or '(no guid)'}: {exc}")
        return
    # Listed even if its fields are unusable: arXiv did announce it, and the
    # completeness report should say the library lacks it.
    parsed.items.append(ListedItem(arxiv_id, version, announce_type))
    title = clean_title(element.findtext(f"{ATOM}title" if atom else "title"))
    if not title:
        parsed.malformed.append(f"feed item {guid}: no title")
        return
    if atom:
        categories = [c.get("term", "").strip() for c in element.iterfind(f"{ATOM}category")]
    else:
        categories = [_text(c) for c in element.iterfind("category")]
    authors, affiliations = parse_authors(element.findtext(f"{DC}creator"))
    record = PaperRecord(
        arxiv_id=arxiv_id,
        title=title,
        abstract=_abstract(raw_description),
        authors=authors,
        affiliations=affiliations,
        categories=list(dict.fromkeys(c for c in categories if c)),
        journal_ref=clean_line(element.findtext(f"{ARXIV}journal_reference")),
        doi=_text(element.find(f"{ARXIV}DOI")),
        license=_text(element.find(f"{DC}rights")),
        versions=[VersionRecord(version)],
    )
    try:
        parsed.records.append(checked(record))
    except MalformedRecord as exc:
        parsed.malformed.append(f"feed item {guid}: {exc}")


def parse_feed(data: bytes) -> ParsedFeed:
    """One feed document, RSS 2.0 or Atom. An unparsable document or one of
    neither shape raises PermanentError; a malformed item is skipped."""
    try:
        root = etree.fromstring(data, parser=etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError as exc:
        raise PermanentError(f"unparsable announcement feed: {exc}") from exc
    if root.tag == "rss" and root.find("channel") is not None:
        channel = root.find("channel")
        parsed = ParsedFeed(_rfc822_day(channel.findtext("pubDate") or ""))
        item_days = []
        for item in channel.iterfind("item"):
            _read_item(item, atom=False, parsed=parsed)
            item_days.append(_rfc822_day(item.findtext("pubDate") or ""))
    elif root.tag == f"{ATOM}feed":
        parsed = ParsedFeed(None)
        item_days = []
        for entry in root.iterfind(f"{ATOM}entry"):
            _read_item(entry, atom=True, parsed=parsed)
            item_days.append(_iso_day(entry.findtext(f"{ATOM}published") or ""))
        updated = root.findtext(f"{ATOM}updated") or ""
        if updated and not any(item_days):
            moment = datetime.fromisoformat(updated.strip())
            parsed.announced_on = moment.astimezone(ARXIV_ZONE).date()
    else:
        raise PermanentError(f"not an RSS 2.0 or Atom feed: root element {root.tag!r}")
    if parsed.announced_on is None:
        days = Counter(day for day in item_days if day)
        parsed.announced_on = days.most_common(1)[0][0] if days else None
    return parsed


def _with_history(record: PaperRecord, found: PaperRecord) -> None:
    """Add what the API knows of a replaced paper's earlier versions (its v1
    date; the latest version's date when it is the listed one) and of the
    fields the feed lacks. Versions in between are left for OAI-PMH."""
    listed = record.latest_version
    have = {v.number: v for v in record.versions}
    if found.published is not None and 1 not in have:
        have[1] = VersionRecord(1, found.published)
    for version in found.versions:
        if version.number < listed and version.number not in have:
            have[version.number] = version
        elif version.number == listed and have[listed].submitted is None:
            have[listed].submitted = version.submitted
    record.versions = sorted(have.values(), key=lambda v: v.number)
    record.published = found.published
    record.comments = record.comments or found.comments
    record.journal_ref = record.journal_ref or found.journal_ref
    record.doi = record.doi or found.doi
    if not record.affiliations and found.authors == record.authors:
        record.affiliations = found.affiliations


class ArxivRssSource(SourceClient):
    """One conditional fetch of the day's announcement for ARXIV_RSS_CATEGORIES:
    one page (or none after a 304) holding the listed papers."""

    slug = "arxiv_rss"
    name = "arXiv announcements"
    # pages() asks the library which replaced papers it lacks, so it runs in
    # the harvest's own thread, after nothing else is being stored.
    pages_read_ahead = None

    def __init__(
        self, *, base_url: str | None = None, categories: list[str] | None = None, api_url: str | None = None, **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self.base_url = (base_url or settings.ARXIV_RSS_URL).rstrip("/")
        self.categories = categories if categories is not None else list(settings.ARXIV_RSS_CATEGORIES)
        self.api_url = api_url

    @property
    def feed(self) -> str:
        return "+".join(self.categories)

    @property
    def url(self) -> str:
        return f"{self.base_url}/{self.feed}"

    def _conditional_headers(self, source_checkpoint: dict) -> dict[str, str]:
        if source_checkpoint.get("url") != self.url:
            return {}  # other categories: what was seen of them says nothing of these
        headers = {}
        if source_checkpoint.get("etag"):
            headers["If-None-Match"] = source_checkpoint["etag"]
        if source_checkpoint.get("last_modified"):
            headers["If-Modified-Since"] = source_checkpoint["last_modified"]
        return headers

    def pages(self, *, window: Window, source_checkpoint: dict, resume: dict) -> Iterator[Page]:
        if resume.get("fetched"):
            return  # the one page of this run is stored
        response = self.http.get(self.url, headers=self._conditional_headers(source_checkpoint))
        if response.status_code == 304:
            kept = {k: source_checkpoint[k] for k in ("url", "etag", "last_modified") if k in source_checkpoint}
            yield Page(records=[], checkpoint={**kept, "fetched": True, "not_modified": True})
            return
        parsed = parse_feed(response.content)
        checkpoint = {
            "url": self.url,
            "etag": response.headers.get("ETag", ""),
            "last_modified": response.headers.get("Last-Modified", ""),
            "announced_on": parsed.announced_on.isoformat() if parsed.announced_on else "",
            "fetched": True,
        }
        announcement = None
        if parsed.items and parsed.announced_on is not None:
            announcement = FeedAnnouncement(self.feed, parsed.announced_on, parsed.items)
            announcement.left_for_oai = self._look_up_history(parsed.records)
        yield Page(
            records=parsed.records,
            skipped=len(parsed.malformed),
            malformed=parsed.malformed,
            checkpoint=checkpoint,
            announcement=announcement,
        )

    def _look_up_history(self, records: list[PaperRecord]) -> list[str]:
        """Look up, through the arXiv API, the earlier versions of listed
        papers the library lacks; returns the ids left for OAI-PMH."""
        later = {r.arxiv_id: r for r in records if r.latest_version > 1}
        if not later:
            return []
        known = set(Paper.objects.filter(arxiv_id__in=list(later)).values_list("arxiv_id", flat=True))
        wanted = sorted(set(later) - known)
        if not wanted:
            return []
        try:
            found = lookup_ids(wanted, client=make_client(base_url=self.api_url))
        except SourceError as exc:
            logger.warning("arXiv API lookup of %d replaced papers failed (%s); OAI-PMH brings them", len(wanted), exc)
            return wanted
        for record in found:
            if record.arxiv_id in later:
                _with_history(later[record.arxiv_id], record)
        answered = {r.arxiv_id for r in found}
        return [arxiv_id for arxiv_id in wanted if arxiv_id not in answered]

    def completed_checkpoint(self, *, window: Window, source_checkpoint: dict, run_checkpoint: dict) -> dict:
        """The validators of the last fetched feed, for the next conditional GET."""
        if not run_checkpoint.get("fetched") or run_checkpoint.get("not_modified"):
            return source_checkpoint
        kept = ("url", "etag", "last_modified", "announced_on")
        return {**source_checkpoint, **{k: run_checkpoint[k] for k in kept if k in run_checkpoint}}
