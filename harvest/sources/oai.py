"""arXiv OAI-PMH in the `arXivRaw` format, which carries every version.

Protocol facts this follows (arXiv's OAI-PMH help and the recorded replies in
tests/fixtures/arxiv_oai/): resumption tokens are followed to the end, an
empty `<resumptionToken/>` closes the list; `noRecordsMatch` is an empty
answer, not an error; incremental harvests ask `from` the response date of the
last completed harvest and give no `until`; dates have day granularity.

A page in arXiv's other record format, `arXiv` (schema
http://arxiv.org/OAI/arXiv.xsd), is read too, for recorded pages such as the
offline bundle's: it gives the first version's day (`created`) and the last
one's (`updated`, kept on the record) but neither the version count nor the
versions between, so such a record holds v1 only, and the library dates its
paper by v1, until an `arXivRaw` page brings the history. Its authors come as `keyname`/`forenames`/`suffix`/
`affiliation` elements. The live source asks for `arXivRaw` only.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from io import BytesIO

from django.conf import settings
from lxml import etree

from harvest.author_strings import parse_authors
from harvest.readahead import READ_AHEAD_PROCESS
from harvest.source_records import (
    MalformedRecord,
    PaperRecord,
    VersionRecord,
    author_affiliations,
    checked,
    clean_abstract,
    clean_line,
    clean_name,
    clean_title,
    parse_arxiv_date,
    parse_size,
    split_arxiv_id,
)
from harvest.sources.base import Page, SourceClient, Window, first_run_start
from harvest.sources.http import PermanentError

logger = logging.getLogger(__name__)

OAI = "{http://www.openarchives.org/OAI/2.0/}"
RAW = "{http://arxiv.org/OAI/arXivRaw/}"
ARX = "{http://arxiv.org/OAI/arXiv/}"
_TAGS = (f"{OAI}responseDate", f"{OAI}error", f"{OAI}record", f"{OAI}resumptionToken")
_HEADER, _IDENTIFIER, _METADATA, _ARXIV_RAW = f"{OAI}header", f"{OAI}identifier", f"{OAI}metadata", f"{RAW}arXivRaw"
_ARXIV = f"{ARX}arXiv"


class OaiError(PermanentError):
    """An OAI-PMH `<error>` reply other than `noRecordsMatch`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"OAI-PMH error {code}: {message}")
        self.code = code


@dataclass
class OaiPage:
    response_date: str = ""
    records: list[PaperRecord] = field(default_factory=list)
    skipped: int = 0
    malformed: list[str] = field(default_factory=list)  # "<identifier>: <why>"
    deleted: int = 0
    token: str | None = None  # None or "": the list is complete
    error_code: str | None = None
    error_message: str = ""


def _text(element: etree._Element | None) -> str:
    return (element.text or "").strip() if element is not None else ""


_ID, _TITLE, _ABSTRACT, _AUTHORS, _CATEGORIES = (
    f"{RAW}{t}" for t in ("id", "title", "abstract", "authors", "categories")
)
_VERSION, _DATE, _SIZE, _SOURCE_TYPE = (f"{RAW}{t}" for t in ("version", "date", "size", "source_type"))
# In the order of PaperRecord's fields after `categories`.
_RAW_TEXT_TAGS = tuple(f"{RAW}{tag}" for tag in ("comments", "journal-ref", "doi", "license", "submitter"))


def _first_texts(element: etree._Element) -> dict:
    """Tag -> text of the first child with that tag (`find(tag).text`), in
    one pass over the children instead of one search per field."""
    texts: dict = {}
    for child in element:
        if child.tag not in texts:
            texts[child.tag] = child.text
    return texts


def parse_raw_record(metadata: etree._Element) -> PaperRecord:
    """One `<arXivRaw>` element as a PaperRecord; MalformedRecord if unusable."""
    texts = _first_texts(metadata)
    arxiv_id, _ = split_arxiv_id((texts.get(_ID) or "").strip())
    title = clean_title(texts.get(_TITLE))
    if not title:
        raise MalformedRecord(f"{arxiv_id}: no title")
    versions = []
    for element in metadata.iterchildren(_VERSION):
        label = element.get("version", "")
        if not label.startswith("v") or not label[1:].isdecimal():
            raise MalformedRecord(f"{arxiv_id}: bad version label {label!r}")
        fields = _first_texts(element)
        versions.append(
            VersionRecord(
                int(label[1:]),
                parse_arxiv_date(fields.get(_DATE)),
                parse_size(fields.get(_SIZE)),
                (fields.get(_SOURCE_TYPE) or "").strip()[:8],
            )
        )
    if not versions:
        raise MalformedRecord(f"{arxiv_id}: no versions")
    authors, affiliations = parse_authors(texts.get(_AUTHORS))
    return checked(
        PaperRecord(
            arxiv_id,
            title,
            clean_abstract(texts.get(_ABSTRACT)),
            authors,
            list(dict.fromkeys((texts.get(_CATEGORIES) or "").split())),
            *(clean_line(texts.get(tag)) for tag in _RAW_TEXT_TAGS),
            versions,
            affiliations=affiliations,
        )
    )


# The `arXiv` format's text fields, in the order of PaperRecord's fields after
# `categories` (it names no submitter).
_ARX_TEXT_TAGS = tuple(f"{ARX}{tag}" for tag in ("comments", "journal-ref", "doi", "license"))
_ARX_AUTHOR_PARTS = tuple(f"{ARX}{tag}" for tag in ("forenames", "keyname", "suffix"))


def _day(text: str | None, arxiv_id: str) -> datetime | None:
    """The `arXiv` format's `created`/`updated` day ("2016-03-01") as
    midnight UTC: the format gives no time of day."""
    if not text or not text.strip():
        return None
    try:
        return datetime.strptime(text.strip(), "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError as exc:
        raise MalformedRecord(f"{arxiv_id}: bad date {text!r}") from exc


def parse_arxiv_record(metadata: etree._Element) -> PaperRecord:
    """One `<arXiv>` element (the `arXiv` metadata format) as a PaperRecord;
    MalformedRecord if unusable. Holds v1 only: see the module docstring."""
    texts = _first_texts(metadata)
    arxiv_id, _ = split_arxiv_id((texts.get(f"{ARX}id") or "").strip())
    title = clean_title(texts.get(f"{ARX}title"))
    if not title:
        raise MalformedRecord(f"{arxiv_id}: no title")
    created = _day(texts.get(f"{ARX}created"), arxiv_id)
    if created is None:
        raise MalformedRecord(f"{arxiv_id}: no created date")
    authors, affiliations = [], []
    for author in metadata.iterchildren(f"{ARX}authors"):
        for element in author.iterchildren(f"{ARX}author"):
            parts = _first_texts(element)
            name = clean_name(" ".join(filter(None, (parts.get(tag) for tag in _ARX_AUTHOR_PARTS))))
            if name:
                authors.append(name)
                affiliations.append([a.text or "" for a in element.iterchildren(f"{ARX}affiliation")])
    return checked(
        PaperRecord(
            arxiv_id,
            title,
            clean_abstract(texts.get(f"{ARX}abstract")),
            authors,
            list(dict.fromkeys((texts.get(f"{ARX}categories") or "").split())),
            *(clean_line(texts.get(tag)) for tag in _ARX_TEXT_TAGS),
            versions=[VersionRecord(1, created)],
            published=created,
            updated=_day(texts.get(f"{ARX}updated"), arxiv_id) or created,
            affiliations=author_affiliations(authors, affiliations),
        )
    )


def parse_list_records(data: bytes) -> OaiPage:
    """Parse one ListRecords reply, streaming record by record so memory stays
    bounded by the page. A malformed record is logged and counted as skipped;
    an unparsable document raises PermanentError."""
    page = OaiPage()
    try:
        for _, element in etree.iterparse(BytesIO(data), events=("end",), tag=_TAGS, resolve_entities=False):
            tag = element.tag
            if tag == f"{OAI}record":
                _read_record(element, page)
                element.clear(keep_tail=False)
                while element.getprevious() is not None:
                    del element.getparent()[0]
            elif tag == f"{OAI}responseDate":
                page.response_date = _text(element)
            elif tag == f"{OAI}resumptionToken":
                page.token = _text(element) or None
            elif tag == f"{OAI}error":
                page.error_code = element.get("code", "unknown")
                page.error_message = _text(element)
    except etree.XMLSyntaxError as exc:
        raise PermanentError(f"unparsable OAI-PMH reply: {exc}") from exc
    return page


def _read_record(element: etree._Element, page: OaiPage) -> None:
    header = element.find(_HEADER)
    identifier = _text(header.find(_IDENTIFIER)) if header is not None else ""
    if header is not None and header.get("status") == "deleted":
        page.deleted += 1
        logger.info("OAI record %s is marked deleted; the library keeps what it stored", identifier)
        return
    metadata = next(
        (raw for child in element.iterchildren(_METADATA) for raw in child.iterchildren(_ARXIV_RAW, _ARXIV)), None
    )
    try:
        if metadata is None:
            raise MalformedRecord("no arXivRaw or arXiv metadata")
        parse = parse_raw_record if metadata.tag == _ARXIV_RAW else parse_arxiv_record
        page.records.append(parse(metadata))
    except MalformedRecord as exc:
        page.skipped += 1
        page.malformed.append(f"OAI record {identifier or '(no identifier)'}: {exc}")


class ArxivOaiSource(SourceClient):
    slug = "arxiv"
    # Parsing a page holds the GIL throughout: in a process it runs on the
    # other core while this one stores.
    pages_read_ahead = READ_AHEAD_PROCESS
    name = "arXiv OAI-PMH"

    def __init__(self, *, base_url: str | None = None, sets: list[str] | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url or settings.ARXIV_OAI_URL
        self.sets = sets if sets is not None else list(settings.ARXIV_OAI_SETS)

    def _first_params(self, window: Window, source_checkpoint: dict, set_spec: str) -> dict[str, str]:
        params = {"verb": "ListRecords", "metadataPrefix": "arXivRaw"}
        if set_spec:
            params["set"] = set_spec
        date_from = window.date_from.isoformat() if window.date_from else None
        if window.is_incremental:
            start = first_run_start()
            date_from = source_checkpoint.get("from") or (start.isoformat() if start else None)
        if date_from:
            params["from"] = date_from
        if window.date_until:
            params["until"] = window.date_until.isoformat()
        return params

    def pages(self, *, window: Window, source_checkpoint: dict, resume: dict) -> Iterator[Page]:
        sets = self.sets or [""]
        set_index = resume.get("set_index", 0)
        token = resume.get("token")
        response_date = resume.get("response_date", "")
        while set_index < len(sets):
            set_spec = sets[set_index]
            if token:
                params = {"verb": "ListRecords", "resumptionToken": token}
            else:
                params = self._first_params(window, source_checkpoint, set_spec)
            reply = parse_list_records(self.http.get(self.base_url, params=params).content)
            if reply.error_code == "badResumptionToken" and token:
                # Tokens expire; restart this set's list from the run's own
                # window. Pages already stored are rewritten as no-ops.
                logger.warning("token %r refused (%s); restarting set %r", token, reply.error_message, set_spec)
                token = None
                continue
            if reply.error_code and reply.error_code != "noRecordsMatch":
                raise OaiError(reply.error_code, reply.error_message)
            response_date = response_date or reply.response_date
            token = reply.token
            if not token:
                set_index += 1
            yield Page(
                records=reply.records,
                skipped=reply.skipped,
                malformed=reply.malformed,
                deleted=reply.deleted,
                checkpoint={
                    "set_index": set_index,
                    "token": token,
                    "response_date": response_date,
                    "request": {k: v for k, v in params.items() if k != "verb"},
                },
            )

    def completed_checkpoint(self, *, window: Window, source_checkpoint: dict, run_checkpoint: dict) -> dict:
        """The next incremental run asks `from` this run's first response
        date. A bounded back-fill (an explicit `until`) leaves it alone."""
        if window.date_until is not None or not run_checkpoint.get("response_date"):
            return source_checkpoint
        return {**source_checkpoint, "from": run_checkpoint["response_date"][:10]}
