"""Validation of what a follow (or an exclusion) follows, and its compiled
form for matching. Errors are ValidationError({field: message}), the field
being the key of `value` at fault (or `name`, `follows`)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from accounts.facts import compile_query, query_is_searchable
from accounts.matching import archive_of
from accounts.names import normalise_name
from harvest.filters import CATEGORY_CODE, PaperFilterSet
from harvest.models import PaperCategory

# arXiv's Computer Science categories; codes outside it are known when the
# library holds a paper listed in them.
_CS_CODES = "AI AR CC CE CG CL CR CV CY DB DC DL DM DS ET FL GL GR GT HC IR IT LG LO MA MM MS NA NE NI OH OS PF PL " + (
    "RO SC SD SE SI SY"
)
CS_CATEGORIES = frozenset(f"cs.{code}" for code in _CS_CODES.split(" "))
FILTER_KEYS = ("category", "author", "q", "ai", "hf", "revised")
MAX_VARIANTS = 20


def known_category(code: str) -> bool:
    if "." in code:
        return code in CS_CATEGORIES or PaperCategory.objects.filter(category=code).exists()
    return (
        code == "cs"
        or any(archive_of(c) == code for c in CS_CATEGORIES)
        or PaperCategory.objects.filter(category__startswith=f"{code}.").exists()
        # an old-style archive without sub-categories (hep-th) is a category of its own
        or PaperCategory.objects.filter(category=code).exists()
    )


def _category_code(raw: Any, field: str) -> str:
    code = str(raw or "").strip()
    if not code:
        raise ValidationError({field: _("Choose a category code such as cs.CL, or an archive such as cs.")})
    if not CATEGORY_CODE.match(code) or not known_category(code):
        raise ValidationError(
            {field: _("%(code)s is not a known arXiv category code or archive.") % {"code": code[:40]}}
        )
    return code


def _query(raw: Any, field: str) -> dict[str, Any]:
    text = str(raw or "").strip()
    form = PaperFilterSet({"q": text}).form
    if not form.is_valid() and "q" in form.errors:
        raise ValidationError({field: list(form.errors["q"])})
    compiled = compile_query(text)
    if not query_is_searchable(compiled):
        raise ValidationError(
            {
                field: _(
                    "The query has no searchable word: every alternative needs a word that is "
                    "neither excluded nor too common."
                )
            }
        )
    return compiled


def compile_value(kind: str, value: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The cleaned value and its compiled form, or a ValidationError naming the field."""
    if not isinstance(value, dict):
        raise ValidationError({"value": _("Give the follow's value as an object.")})
    if kind == "category":
        code = _category_code(value.get("code"), "code")
        return {"code": code}, ({"code": code} if "." in code else {"archive": code})
    if kind == "author":
        author = " ".join(str(value.get("author") or "").split())
        if not normalise_name(author):
            raise ValidationError({"author": _("Give the author's name.")})
        variants = value.get("variants") or [author]
        if not isinstance(variants, list) or len(variants) > MAX_VARIANTS:
            raise ValidationError(
                {"variants": _("Give at most %(limit)d name variants as a list.") % {"limit": MAX_VARIANTS}}
            )
        normalised = sorted({normalise_name(str(v)) for v in variants} - {""})
        if not normalised:
            raise ValidationError({"variants": _("Give at least one name variant.")})
        return {"author": author, "variants": [str(v) for v in variants]}, {"variants": normalised}
    if kind == "query":
        compiled = _query(value.get("q"), "q")
        return {"q": compiled["q"]}, compiled
    if kind == "filters":
        return _filters(value)
    raise ValidationError(
        {"kind": _("%(kind)s is not a kind of follow (category, author, query, filters).") % {"kind": repr(kind)}}
    )


def _filters(value: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    unknown = sorted(set(value) - set(FILTER_KEYS))
    if unknown:
        raise ValidationError(
            {
                unknown[0]: _("%(name)s is not a filter a follow can save (%(known)s).")
                % {"name": unknown[0], "known": ", ".join(FILTER_KEYS)}
            }
        )
    params = {key: val for key, val in value.items() if val not in (None, "", [])}
    filterset = PaperFilterSet(params)
    if not filterset.is_valid():
        raise ValidationError({name: list(errors) for name, errors in filterset.form.errors.items()})
    data = filterset.form.cleaned_data
    clean: dict[str, Any] = {}
    for code in data.get("category") or []:
        _category_code(code, "category")
    if data.get("category"):
        clean["category"] = list(data["category"])
    if (data.get("author") or "").strip():
        clean["author"] = " ".join(data["author"].split())
    for flag in ("ai", "hf", "revised"):
        if data.get(flag) is not None:
            clean[flag] = "1" if data[flag] else "0"
    query = None
    if (data.get("q") or "").strip():
        query = _query(data["q"], "q")
        clean["q"] = query["q"]
    if not clean:
        raise ValidationError({"value": _("Choose at least one filter.")})
    return clean, {"data": clean, "query": query}
