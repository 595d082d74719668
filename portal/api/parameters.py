"""OpenAPI descriptions of the library's filter parameters. The filtering
itself is harvest.filters.PaperFilterSet, shared with the /papers/ page; a
test checks that every filter of that set is described here and no other."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from harvest.filters import MAX_CATEGORIES, MAX_QUERY_LENGTH, MODE_CHOICES, SORT_CHOICES


def _bool(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.BOOL, description=f"{description} Accepts 1/0 or true/false.")


PAPER_FILTER_PARAMETERS = [
    OpenApiParameter(
        "q",
        {"type": "string", "maxLength": MAX_QUERY_LENGTH},
        description="Full-text query over titles and abstracts in web-search syntax: every word must occur, "
        '`"a phrase"` as written, `OR` between alternatives, `-word` leaves papers out; words match whole, '
        "with English stems. With q the default sort is relevance. Unlike the /papers/ page's search box, an "
        "arXiv id or a DOI here is searched as text, not looked up.",
    ),
    OpenApiParameter(
        "mode",
        OpenApiTypes.STR,
        enum=[value for value, _label in MODE_CHOICES],
        description="How q finds papers: `hybrid` (the default: the keyword ranking and the semantic one fused, "
        "so a question or a Chinese query finds English papers and exact matches still come first), `keyword` "
        "(the words themselves, as keyword follows match) or `semantic` (the papers whose embeddings, title and "
        "the abstract's lead in a multilingual model, are nearest the query's). Phrases and -exclusions filter "
        "in every mode.",
    ),
    OpenApiParameter(
        "sort",
        OpenApiTypes.STR,
        enum=[value for value, _label in SORT_CHOICES],
        description="Order: newest first by `updated` (version update time, the default), `included_at` "
        "(inclusion on this site) or `published` (first publication, v1); `relevance` (with q; without q the "
        "answer is in the default order, `updated`, not an error); or `popular`: the papers whose latest version "
        "is dated within the popular window (PAPERTRAIL_POPULAR_WINDOW_DAYS, 7 days by default), highest "
        "`popularity` first. The time range (since, until, days) applies to the chosen sort's date (`updated` "
        "for popular).",
    ),
    OpenApiParameter(
        "since", OpenApiTypes.DATE, description="First day of the time range (Beijing date, YYYY-MM-DD, inclusive)."
    ),
    OpenApiParameter(
        "until", OpenApiTypes.DATE, description="Last day of the time range (Beijing date, YYYY-MM-DD, inclusive)."
    ),
    OpenApiParameter(
        "days",
        {"type": "integer", "minimum": 1, "maximum": 36500},
        description="Only the last N days (of the chosen sort's date), 1 to 36500.",
    ),
    OpenApiParameter(
        "category",
        {"type": "array", "items": {"type": "string", "pattern": r"^[a-z][a-z\-]{0,15}(\.[A-Za-z][A-Za-z\-]{0,15})?$"}},
        description=f"arXiv category codes such as cs.LG, or an archive such as cs (every cs.* category); repeat "
        f"the parameter (or separate codes with commas) for several, at most {MAX_CATEGORIES}. A paper in any of "
        "them matches, primary or cross-listed (see cross_lists).",
        explode=True,
        style="form",
    ),
    _bool(
        "cross_lists",
        "With category: papers cross-listed there too (1, the default) or only those whose primary category it is (0).",
    ),
    _bool("ai", "AI-related papers only (1) or none of them (0)."),
    _bool("revised", "Papers with more than one version (1) or with one (0)."),
    _bool("hf", "Papers picked by the Hugging Face community (1) or not (0)."),
    OpenApiParameter(
        "author", {"type": "string", "maxLength": 512}, description="An author's exact name, case-insensitive."
    ),
]
