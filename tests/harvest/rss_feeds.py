"""Announcement feeds for tests, from the recorded ones in tests/fixtures/arxiv_rss/.

The real feeds are served as recorded. Variants keep arXiv's channel, item
markup and text and change only what a test is about: which items a feed
holds, an item's id and version (in its guid, link and description line, as
arXiv writes them together), its announce type, its categories, the day.
Nothing here invents a new shape. What the tests expect is read from the XML
here, independently of the parser under test.
"""

from __future__ import annotations

import copy
import re
from collections import Counter

from lxml import etree

from tests.replay_server import fixture_bytes

STAT = "arxiv_rss/arxiv_rss_stat_2024-03-26_emanuelealiverti.xml"
ATOM_CS_AI = "arxiv_rss/arxiv_atom_cs.AI_2025-08-20_7entries_zotero-arxiv-daily.xml"
WEEKEND = "arxiv_rss/all-news-ai_rss_cs.CL_weekend_empty_2026-08-01.xml"
ARXIV_NS = "{http://arxiv.org/schemas/atom}"
DC_NS = "{http://purl.org/dc/elements/1.1/}"


def recorded(name: str = STAT) -> bytes:
    return fixture_bytes(name)


def _root(name: str = STAT) -> etree._Element:
    return etree.fromstring(recorded(name))


def _serialise(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def items(name: str = STAT) -> dict[str, etree._Element]:
    """guid (`oai:arXiv.org:<id>vN`) -> item of the recorded RSS feed."""
    return {item.findtext("guid"): item for item in _root(name).iter("item")}


def listed(name: str = STAT) -> list[tuple[str, int, str]]:
    """(arxiv id, version, announce type) of each item, read plainly."""
    found = []
    for item in _root(name).iter("item"):
        arxiv_id, version = item.findtext("guid").removeprefix("oai:arXiv.org:").rsplit("v", 1)
        found.append((arxiv_id, int(version), item.findtext(f"{ARXIV_NS}announce_type")))
    return found


def type_counts(name: str = STAT) -> Counter:
    return Counter(kind for _, _, kind in listed(name))


def relabelled(
    item: etree._Element,
    *,
    arxiv_id: str | None = None,
    version: int | None = None,
    announce_type: str | None = None,
    categories: list[str] | None = None,
    title: str | None = None,
) -> etree._Element:
    """A copy of a recorded item with its id, version, type, categories or title changed."""
    item = copy.deepcopy(item)
    old_id, old_version = item.findtext("guid").removeprefix("oai:arXiv.org:").rsplit("v", 1)
    new_id, new_version = arxiv_id or old_id, version or int(old_version)
    new_type = announce_type or item.findtext(f"{ARXIV_NS}announce_type")
    item.find("guid").text = f"oai:arXiv.org:{new_id}v{new_version}"
    item.find("link").text = f"https://arxiv.org/abs/{new_id}"
    description = item.find("description")
    description.text = re.sub(
        r"^arXiv:\S+ Announce Type: \S+",
        f"arXiv:{new_id}v{new_version} Announce Type: {new_type}",
        description.text,
    )
    item.find(f"{ARXIV_NS}announce_type").text = new_type
    if categories is not None:
        for element in item.findall("category"):
            item.remove(element)
        anchor = item.find("guid")
        for code in reversed(categories):
            element = etree.Element("category")
            element.text = code
            anchor.addnext(element)
    if title is not None:
        item.find("title").text = title
    return item


def feed(item_list: list[etree._Element], *, pub_date: str | None = None, name: str = STAT) -> bytes:
    """The recorded channel holding exactly these items (and, if given,
    another announcement day's pubDate in arXiv's form)."""
    root = _root(name)
    channel = root.find("channel")
    for item in channel.findall("item"):
        channel.remove(item)
    for item in item_list:
        channel.append(copy.deepcopy(item))
    if pub_date is not None:
        channel.find("pubDate").text = pub_date
    return _serialise(root)


def with_broken_guid(item: etree._Element) -> etree._Element:
    """A copy of the item whose guid names no arXiv paper."""
    item = copy.deepcopy(item)
    item.find("guid").text = "oai:arXiv.org:not-an-identifier"
    return item
