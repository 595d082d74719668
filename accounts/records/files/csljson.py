"""CSL-JSON (Citation Style Language input data, schema v1.0.2), as Zotero's
"CSL JSON" export and citeproc read it: a writer and a reader."""

from __future__ import annotations

import json

from django.utils.translation import gettext as _

from accounts.records.files import ExportItem, FileFormatError, ImportEntry, MalformedEntry, ReadResult
from accounts.records.files.bibtex import unique_keys
from accounts.records.files.identifiers import arxiv_id_in, doi_in, split_name


def _name(name: str) -> dict[str, str]:
    family, given = split_name(name)
    return {"family": family, "given": given} if given else {"literal": family}


def item_of(item: ExportItem, key: str) -> dict:
    data: dict = {
        "id": key,
        # CSL's "article": a preprint, working paper or similar.
        "type": "article",
        "title": item.title,
        "author": [_name(name) for name in item.authors],
        "publisher": "arXiv",
        "number": f"arXiv:{item.arxiv_id}",
        "URL": item.url,
    }
    if item.published:
        data["issued"] = {"date-parts": [[item.published.year, item.published.month, item.published.day]]}
    if item.abstract:
        data["abstract"] = item.abstract
    if item.doi:
        data["DOI"] = item.doi
    if item.tags:
        data["keyword"] = ", ".join(item.tags)
    return data


def write(items: list[ExportItem]) -> str:
    # One item a line, each through the C encoder (json's `indent` would
    # fall back to the pure-Python one, several times slower).
    lines = [
        json.dumps(item_of(item, key), ensure_ascii=False) for item, key in zip(items, unique_keys(items), strict=True)
    ]
    return "[\n" + ",\n".join(lines) + "\n]\n" if lines else "[]\n"


def entry_from(data: dict, label: str) -> ImportEntry:
    title = " ".join(str(data.get("title") or "").split())
    texts = [str(data.get(name) or "") for name in ("number", "URL", "DOI", "note", "archive_location", "id")]
    tags = [tag.strip() for tag in str(data.get("keyword") or "").replace(";", ",").split(",") if tag.strip()]
    return ImportEntry(
        label=str(data.get("id") or "") or title[:80] or label,
        arxiv_id=arxiv_id_in(*texts),
        doi=doi_in(str(data.get("DOI") or "")),
        title=title,
        tags=tags,
    )


def read(text: str) -> ReadResult:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        message = _("not valid JSON (line %(line)d, column %(column)d): %(error)s")
        raise FileFormatError(message % {"line": exc.lineno, "column": exc.colno, "error": exc.msg}) from None
    if isinstance(data, dict) and "items" in data:  # some tools wrap the list
        data = data["items"]
    if not isinstance(data, list):
        raise FileFormatError(_("CSL-JSON is a list of items"))
    result = ReadResult()
    for number, item in enumerate(data, start=1):
        label = _("item %(number)d") % {"number": number}
        if not isinstance(item, dict):
            result.malformed.append(MalformedEntry(label, _("an item is a JSON object")))
            continue
        entry = entry_from(item, label)
        if entry.arxiv_id or entry.doi or entry.title:
            result.entries.append(entry)
        else:
            result.malformed.append(MalformedEntry(entry.label, _("no arXiv id, DOI or title")))
    return result
