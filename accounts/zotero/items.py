"""A saved paper as a Zotero item and back: the `preprint` item arXiv's own
Zotero translator makes (zotero/translators, `arXiv.org.js`: repository
arXiv, archiveID and extra `arXiv:<id>`, arXiv's DOI 10.48550/arXiv.<id>
when the paper has no other), with the record's tags, its reading state as
one tag (`papertrail:to read`, …) and its note as a child note; and the
arXiv id of any item, from its URL, extra, archiveID or DOI."""

from __future__ import annotations

import html
import re

from django.utils.html import escape, strip_tags

from accounts.records.models import Record
from accounts.records.selectors import render_note
from accounts.records.types import MAX_NOTE_LENGTH, arxiv_id_in, split_name
from harvest.models import Paper

STATE_PREFIX = "papertrail:"
STATE_TAGS = {state: f"{STATE_PREFIX}{label}" for state, label in Record.State.choices}
STATES_BY_TAG = {tag.casefold(): state for state, tag in STATE_TAGS.items()}
SKIPPED_TYPES = {"note", "attachment", "annotation"}
BLOCK_END = re.compile(r"<br\s*/?>|</(p|div|li|h[1-6]|blockquote|pre)>", re.IGNORECASE)


def creators(paper: Paper) -> list[dict]:
    out = []
    for name in paper.authors:
        family, given = split_name(name)
        if not family:
            continue
        if given:
            out.append({"creatorType": "author", "firstName": given, "lastName": family})
        else:
            out.append({"creatorType": "author", "name": family})
    return out


def paper_item(*, paper: Paper, record: Record, tag_names: list[str], collection_key: str) -> dict:
    dois = paper.doi.split()
    published = paper.published.date().isoformat() if paper.published else ""
    return {
        "itemType": "preprint",
        "title": paper.title,
        "creators": creators(paper),
        "abstractNote": paper.abstract,
        "date": published,
        "repository": "arXiv",
        "archiveID": f"arXiv:{paper.arxiv_id}",
        "DOI": dois[0] if dois else f"10.48550/arXiv.{paper.arxiv_id}",
        "url": paper.abs_url,
        "extra": f"arXiv:{paper.arxiv_id}",
        "tags": [{"tag": name} for name in tag_names] + [{"tag": STATE_TAGS[record.state]}],
        "collections": [collection_key],
    }


def note_item(*, record: Record, parent_key: str) -> dict:
    """The note as Zotero's note HTML (the Markdown rendered as /records/ shows it)."""
    html = str(render_note(record.note)) or f"<p>{escape(record.note)}</p>"
    return {"itemType": "note", "parentItem": parent_key, "note": html, "tags": []}


def note_text(note_html: str) -> str:
    """A note written in Zotero (its HTML) as the record's plain text, one line per block."""
    text = html.unescape(strip_tags(BLOCK_END.sub("\n", note_html)))
    lines = [line.strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)[:MAX_NOTE_LENGTH]


def item_arxiv_id(data: dict) -> str:
    """The arXiv id an item names, or "" (a book, a journal article without an arXiv link)."""
    return arxiv_id_in(data.get("url", ""), data.get("archiveID", ""), data.get("extra", ""), data.get("DOI", ""))


def item_tags_and_state(data: dict) -> tuple[list[str], str | None]:
    """The item's own tags, and the reading state its `papertrail:` tag names (None: none)."""
    names, state = [], None
    for entry in data.get("tags", []):
        name = str(entry.get("tag", "")).strip()
        if name.casefold() in STATES_BY_TAG:
            state = STATES_BY_TAG[name.casefold()]
        elif name:
            names.append(name)
    return names, state
