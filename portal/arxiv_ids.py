"""arXiv identifiers in URLs: the pages' path converter, the one look-up by
which the paper page and the API both turn an id into a paper, or say why not,
and the identifiers the library's search box recognises (an arXiv id, an arXiv
URL, a DOI) with the paper each one names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import quote, unquote

from django.contrib.postgres.fields import ArrayField
from django.db import connection
from django.db.models import Func, Q, QuerySet, TextField, Value
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils.translation import gettext as _

from harvest.models import Paper, Version
from harvest.source_records import MalformedRecord, split_arxiv_id
from portal.selectors import PaperDetail, paper_detail

# `arXiv:2306.07400` in any case, and arXiv's abstract and PDF addresses
# (`https://arxiv.org/abs/2306.07400v3`, `arxiv.org/pdf/2306.07400.pdf`, export.arxiv.org).
_ARXIV_PREFIX = re.compile(r"^arxiv:\s*", re.IGNORECASE)
_ARXIV_URL = re.compile(
    r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(?P<id>[^?#]+?)(?:\.pdf)?/?(?:[?#].*)?$",
    re.IGNORECASE,
)
# A DOI as written or as a doi.org address (percent-encoded there); arXiv's own DOIs name an arXiv id.
_DOI = re.compile(r"^(?:doi:\s*|(?P<url>(?:https?://)?(?:dx\.)?doi\.org/))?(?P<doi>10\.\d{4,9}/\S+)$", re.IGNORECASE)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(?P<id>\S+)$", re.IGNORECASE)


class ArxivIdConverter:
    """An arXiv identifier with an optional version suffix: `2611.13545`,
    `2611.13545v2`, `hep-th/9901001`, `math.GT/0309136v1`."""

    regex = r"(?:\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class PaperNotFound(Exception):
    """No such paper (or version) in the library; `malformed` when the text is
    not an arXiv identifier at all. The message is shown to the reader."""

    def __init__(self, message: str, *, malformed: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.malformed = malformed


def _split(arxiv_id: str) -> tuple[str, int | None]:
    try:
        return split_arxiv_id(arxiv_id)
    except MalformedRecord:
        raise PaperNotFound(
            _("Not an arXiv identifier such as 2611.13545 or hep-th/9901001."), malformed=True
        ) from None


def requested_paper(arxiv_id: str) -> tuple[PaperDetail, int | None]:
    """The paper an URL names, with the version it asks for (None: the latest)."""
    base_id, version = _split(arxiv_id)
    detail = paper_detail(arxiv_id=base_id)
    if detail is None:
        raise PaperNotFound(_("This paper is not in the library."))
    if version is not None and version not in {v.number for v in detail.versions}:
        raise PaperNotFound(_("This version of the paper is not in the library."))
    return detail, version


def paper_named(arxiv_id: str) -> Paper:
    """The paper an URL names (a version suffix set aside), one row without
    the versions and readings its page shows: for a write about the paper."""
    base_id, _version = _split(arxiv_id)
    paper = Paper.objects.filter(arxiv_id=base_id).first()
    if paper is None:
        raise PaperNotFound(_("This paper is not in the library."))
    return paper


@dataclass(frozen=True)
class ArxivTarget:
    """An arXiv paper named in the search box, with the version asked for (None: any)."""

    kind: ClassVar[str] = "arxiv"
    arxiv_id: str
    version: int | None = None

    @property
    def label(self) -> str:
        return f"{self.arxiv_id}v{self.version}" if self.version else self.arxiv_id

    @property
    def external_url(self) -> str:
        return f"https://arxiv.org/abs/{self.label}"


@dataclass(frozen=True)
class DoiTarget:
    """A DOI other than arXiv's own, as the reader wrote it."""

    kind: ClassVar[str] = "doi"
    doi: str

    @property
    def label(self) -> str:
        return self.doi

    @property
    def external_url(self) -> str:
        return "https://doi.org/" + quote(self.doi, safe="/:;()")


@dataclass(frozen=True)
class IdentifierLookup:
    """Where a recognised identifier leads: `path`, the paper page, or None
    when the library does not hold it; `has_paper` when it holds the paper
    but not the version asked for (`path` is then the paper's page)."""

    target: ArxivTarget | DoiTarget
    path: str | None
    has_paper: bool = False


def identifier_in(text: str) -> ArxivTarget | DoiTarget | None:
    """The identifier the whole search text is, if it is one."""
    text = text.strip()
    url = _ARXIV_URL.match(text)
    if url:
        text = unquote(url.group("id"))
    text = _ARXIV_PREFIX.sub("", text)
    doi = _DOI.match(text)
    if doi:
        written = unquote(doi.group("doi")) if doi.group("url") else doi.group("doi")
        arxiv_doi = _ARXIV_DOI.match(written)
        if not arxiv_doi:
            return DoiTarget(written)
        text = arxiv_doi.group("id")
    try:
        arxiv_id, version = split_arxiv_id(text)
    except MalformedRecord:
        return None
    return ArxivTarget(arxiv_id, version)


def identifier_lookup(target: ArxivTarget | DoiTarget) -> IdentifierLookup:
    if isinstance(target, DoiTarget):
        paper_id = papers_with_doi(target.doi).order_by("pk").values_list("arxiv_id", flat=True).first()
        return IdentifierLookup(target, _paper_path(paper_id) if paper_id else None)
    paper_pk = Paper.objects.filter(arxiv_id=target.arxiv_id).values_list("pk", flat=True).first()
    if paper_pk is None:
        return IdentifierLookup(target, None)
    if target.version is None:
        return IdentifierLookup(target, _paper_path(target.arxiv_id))
    if Version.objects.filter(paper_id=paper_pk, number=target.version).exists():
        return IdentifierLookup(target, _paper_path(target.label))
    return IdentifierLookup(target, _paper_path(target.arxiv_id), has_paper=True)


def _paper_path(arxiv_id: str) -> str:
    return reverse("portal:paper_detail", args=[arxiv_id])


def papers_with_doi(doi: str) -> QuerySet[Paper]:
    """Papers whose stored DOIs (one or more, separated by spaces) include
    `doi`, compared without case. On PostgreSQL through the GIN index of
    migration 0012, whose expression this repeats: a scan of the library's
    rows would cost seconds at a million papers."""
    wanted = doi.lower()
    if connection.vendor == "postgresql":
        words = Func(
            Lower("doi"), Value(r"\s+"), function="regexp_split_to_array", output_field=ArrayField(TextField())
        )
        return Paper.objects.exclude(doi="").alias(doi_words=words).filter(doi_words__contains=[wanted])
    return Paper.objects.filter(
        Q(doi__iexact=wanted)
        | Q(doi__istartswith=f"{wanted} ")
        | Q(doi__iendswith=f" {wanted}")
        | Q(doi__icontains=f" {wanted} ")
    )
