"""What a follow (or an exclusion) follows: one value type, FollowDefinition,
that reads the API's and the form's input, validates and compiles it for
matching, keys it, names it and shows it back in the API's shape. Errors are
ValidationError({field: message}), the field being the key of the value at
fault (`value.<key>` for the API's shape, or `kind`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.follows.facts import compile_query, query_is_searchable
from accounts.follows.matching import archive_of
from accounts.follows.names import normalise_name
from accounts.follows.topics import compile_topic
from harvest.filters import CATEGORY_CODE, PaperFilterSet
from harvest.models import Paper, PaperCategory

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
    if kind == "topic":
        return compile_topic(value)
    raise ValidationError(
        {
            "kind": _("%(kind)s is not a kind of follow (category, author, query, filters, topic).")
            % {"kind": repr(kind)}
        }
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


# A saved search's yes/no filters as a follow's default name shows them.
FLAG_NAMES = {
    "ai": gettext_lazy("AI-related only"),
    "hf": gettext_lazy("Hugging Face community picks"),
    "revised": gettext_lazy("Has revisions"),
}
MAX_NAME = 200


@dataclass(frozen=True, slots=True)
class FollowDefinition:
    """A follow's kind, its cleaned value as stored, and its compiled form."""

    kind: str
    value: Mapping[str, Any]
    compiled: Mapping[str, Any]

    @classmethod
    def parse(cls, kind: str, value: Any) -> FollowDefinition:
        """From the stored shape (the form's fields give it): validated and compiled."""
        clean, compiled = compile_value(kind, value)
        return cls(kind, clean, compiled)

    @classmethod
    def from_api(cls, kind: str, given: Any) -> FollowDefinition:
        """From the API's shape: a category code or a query as a string, an
        author as a list of spellings (the name first), filters and a topic
        as objects."""
        return cls.parse(kind, api_to_value(kind, given))

    @classmethod
    def exclusion(cls, kind: str, text: str) -> FollowDefinition:
        """An exclusion's category (code or archive) or keyword query, as the
        definition its matches are recorded under."""
        if kind == "category":
            return cls.parse("category", {"code": text})
        if kind == "query":
            return cls.parse("query", {"q": text})
        raise ValidationError({"kind": _("Exclude a category or a query.")})

    @classmethod
    def stored(cls, kind: str, compiled: Mapping[str, Any], value: Mapping[str, Any] | None = None) -> FollowDefinition:
        """A definition read back from a follow or exclusion row (already valid)."""
        return cls(kind, value or {}, compiled)

    @classmethod
    def of_exclusion(cls, kind: str, compiled: Mapping[str, Any]) -> FollowDefinition:
        """A stored exclusion's definition, under the matcher's kind."""
        return cls(exclusion_definition_kind(kind), {}, compiled)

    @property
    def text(self) -> str:
        """An exclusion's text: its category code or its query."""
        return str(self.value.get("code") or self.value.get("q") or "")

    @property
    def key(self) -> int:
        """The definition's key, shared by every follow of the same kind and
        compiled form: the first 8 bytes of an MD5 of both, as a signed 64-bit
        integer (accounts.trail.definition_matches stores matches under it)."""
        return definition_key(self.kind, self.compiled)

    def default_name(self) -> str:
        """The name a new follow gets when none is given, on the API and the form alike."""
        value = self.value
        if self.kind == "category":
            return str(value.get("code", ""))
        if self.kind == "author":
            return str(value.get("author", ""))
        if self.kind == "query":
            return str(value.get("q", ""))
        if self.kind == "topic":
            return _topic_name(value)
        category = value.get("category") or []
        parts = [" ".join(category) if isinstance(category, list) else str(category)]
        parts += [str(value.get("author") or ""), str(value.get("q") or "")]
        parts += [str(FLAG_NAMES[flag]) for flag in FLAG_NAMES if value.get(flag) == "1"]
        parts += [f"{flag}=0" for flag in FLAG_NAMES if value.get(flag) == "0"]
        return " · ".join(part for part in parts if part)[:MAX_NAME]

    def api_value(self) -> Any:
        """The value in the API's shape (from_api's inverse)."""
        value = self.value
        if self.kind == "category":
            return value.get("code", "")
        if self.kind == "query":
            return value.get("q", "")
        if self.kind == "author":
            author = value.get("author", "")
            return [author, *(name for name in value.get("variants", []) if name != author)]
        return dict(value)


def _topic_name(value: Mapping[str, Any]) -> str:
    if value.get("description"):
        return str(value["description"])[:MAX_NAME]
    examples = value.get("examples") or []
    examples = examples.split() if isinstance(examples, str) else list(examples)
    if not examples:
        return ""
    title = Paper.objects.filter(arxiv_id=examples[0]).values_list("title", flat=True).first() or examples[0]
    more = len(examples) - 1
    name = _("Like “%(title)s”") % {"title": title}
    if more:
        name += " " + _("and %(count)d more") % {"count": more}
    return name[:MAX_NAME]


def definition_key(kind: str, compiled: Mapping[str, Any]) -> int:
    text = f"{kind}\n{json.dumps(compiled, sort_keys=True, separators=(',', ':'), ensure_ascii=False)}"
    digest = hashlib.md5(text.encode(), usedforsecurity=False).digest()  # a key, not a secret
    return int.from_bytes(digest[:8], "big", signed=True)


def exclusion_definition_kind(kind: str) -> str:
    """The matcher's kind for an exclusion: a category, or a library query."""
    return "category" if kind == "category" else "query"


def storable_text(text: str) -> bool:
    """PostgreSQL text holds neither NUL nor lone surrogates (which JSON escapes can carry)."""
    return "\x00" not in text and not any("\ud800" <= char <= "\udfff" for char in text)


def _unstorable_field(value: Any, field: str = "value") -> str | None:
    if isinstance(value, str):
        return None if storable_text(value) else field
    if isinstance(value, list):
        return next((f for f in (_unstorable_field(item, field) for item in value) if f), None)
    if isinstance(value, dict):
        for key, item in value.items():
            if not storable_text(str(key)):
                return field
            found = _unstorable_field(item, f"value.{key}" if field == "value" else field)
            if found:
                return found
    return None


def api_to_value(kind: str, given: Any) -> dict[str, Any]:
    """The API's value of a follow in the stored shape; a ValidationError names
    the API's field (`value`, `value.<filter>`, `kind`)."""
    unstorable = _unstorable_field(given)
    if unstorable:
        raise ValidationError({unstorable: _("This text holds a character that cannot be stored (NUL).")})
    if kind in ("category", "query"):
        if not isinstance(given, str):
            message = (
                _("Give a category follow's value as a string.")
                if kind == "category"
                else _("Give a query follow's value as a string.")
            )
            raise ValidationError({"value": message})
        return {"code": given} if kind == "category" else {"q": given}
    if kind == "author":
        names = [given] if isinstance(given, str) else given
        if not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names):
            raise ValidationError(
                {"value": _("Give an author follow's value as a list of name spellings, the name first.")}
            )
        return {"author": names[0], "variants": names}
    if kind == "topic":
        if not isinstance(given, dict):
            raise ValidationError(
                {"value": _("Give a topic follow's value as an object: a description or example papers.")}
            )
        unknown = sorted(set(given) - {"description", "examples", "threshold"})
        if unknown:
            raise ValidationError(
                {f"value.{unknown[0]}": _("A topic has a description, examples and a threshold, nothing else.")}
            )
        return dict(given)
    if kind == "filters":
        if not isinstance(given, dict):
            raise ValidationError({"value": _("Give a filters follow's value as an object of filter parameters.")})
        clean: dict[str, Any] = {}
        for key, item in given.items():
            if isinstance(item, bool):
                item = "1" if item else "0"
            elif key == "category" and isinstance(item, list) and all(isinstance(code, str) for code in item):
                item = list(item)
            elif not isinstance(item, str | int) or isinstance(item, bool):
                raise ValidationError({f"value.{key}": _("Give this filter as a string.")})
            clean[str(key)] = item if isinstance(item, list) else str(item)
        return clean
    raise ValidationError({"kind": _("Choose one of category, author, query, filters, topic.")})
