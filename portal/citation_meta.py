"""The citation meta tags of a paper page (`citation_*`, Google Scholar's
HighWire names), read by Zotero's browser connector (its Embedded Metadata
translator) and by Scholar. The set and formats follow what arXiv's own
abstract pages emit (the metatags formatter of the arxiv-browse repository), for
the version the page shows; the template escapes every value.

Zotero's Embedded Metadata translator (zotero/translators, `Embedded
Metadata.js`, HIGHWIRE_MAPPINGS) does not read `citation_arxiv_id`: what
carries the arXiv id into the saved item is `citation_doi` (the paper's
DOI, or arXiv's own 10.48550/arXiv.<id>, the DOI arXiv.org.js gives a
preprint without one) and the URL from `citation_abstract_html_url`.
`citation_arxiv_id` stays for Google Scholar and anyone reading arXiv's set."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime

from accounts.records.types import split_name
from harvest.models import Paper, Version

_SPACES = re.compile(r"\s+")


def citation_author(name: str) -> str:
    """ "Family, Given" as arXiv writes `citation_author`, so that the connector
    splits the name at the comma rather than guessing; a name of one word (or
    one written in Chinese characters, without spaces) stays as given."""
    family, given = split_name(name)
    return f"{family}, {given}" if given else family


def _day(when: date | None) -> str:
    # arXiv's format: the UTC day, "2007/04/04".
    if isinstance(when, datetime):
        when = when.astimezone(UTC)
    return when.strftime("%Y/%m/%d") if when else ""


def _version_date(version: Version | None) -> date | None:
    if version is None:
        return None
    return version.submitted or version.announced


def citation_tags(*, paper: Paper, versions: Iterable[Version], shown: int | None) -> list[tuple[str, str]]:
    """(name, content) of each tag, in arXiv's order, empty values left out."""
    by_number = {version.number: version for version in versions}
    number = shown or paper.latest_version
    first_date = paper.published or _version_date(by_number.get(1))
    shown_date = _version_date(by_number.get(number))
    dois = paper.doi.split()
    tags = [("citation_title", paper.title)]
    tags += [("citation_author", citation_author(name)) for name in paper.authors if name.strip()]
    tags += [
        ("citation_doi", dois[0] if dois else f"10.48550/arXiv.{paper.arxiv_id}"),
        ("citation_date", _day(first_date)),
        ("citation_online_date", _day(shown_date)),
        ("citation_pdf_url", f"{paper.pdf_url}v{number}"),
        ("citation_abstract_html_url", f"{paper.abs_url}v{number}"),
        ("citation_arxiv_id", paper.arxiv_id),
        ("citation_abstract", paper.abstract),
    ]
    return [(name, _SPACES.sub(" ", content).strip()) for name, content in tags if content and content.strip()]
