"""arXiv identifiers in URLs: the pages' path converter, and the one look-up by
which the paper page and the API both turn an id into a paper, or say why not."""

from __future__ import annotations

from django.utils.translation import gettext as _

from harvest.records import MalformedRecord, split_arxiv_id
from portal.selectors import PaperDetail, paper_detail


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


def requested_paper(arxiv_id: str) -> tuple[PaperDetail, int | None]:
    """The paper an URL names, with the version it asks for (None: the latest)."""
    try:
        base_id, version = split_arxiv_id(arxiv_id)
    except MalformedRecord:
        raise PaperNotFound(
            _("Not an arXiv identifier such as 2611.13545 or hep-th/9901001."), malformed=True
        ) from None
    detail = paper_detail(arxiv_id=base_id)
    if detail is None:
        raise PaperNotFound(_("This paper is not in the library."))
    if version is not None and version not in {v.number for v in detail.versions}:
        raise PaperNotFound(_("This version of the paper is not in the library."))
    return detail, version
