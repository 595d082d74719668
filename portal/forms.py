"""What the follow pages read from a request: a follow's kind, name, value and
options, as accounts.follows takes them. Validation is the services' (a
ValidationError naming the field); this module only gathers the fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from accounts.follows.models import Follow
from accounts.follows.types import FILTER_KEYS, FollowDefinition

KINDS = tuple(Follow.Kind.values)
DELIVERIES = tuple(Follow.Delivery.values)
FLAGS = ("ai", "hf", "revised")

# The names of the fields a service's ValidationError can name, as the form labels them.
FIELD_LABELS = {
    "kind": _("Kind"),
    "name": _("Name"),
    "code": _("Category"),
    "author": _("Author"),
    "variants": _("Name variants"),
    "q": _("Query"),
    "category": _("Categories"),
    "ai": _("AI-related only"),
    "hf": _("Hugging Face community picks"),
    "revised": _("Has revisions"),
    "description": _("Topic"),
    "examples": _("Example papers"),
    "threshold": _("Threshold"),
    "delivery": _("Delivery"),
    "value": _("What it follows"),
    "follows": _("Follows"),
}


@dataclass
class FollowInput:
    kind: str
    name: str = ""
    code: str = ""
    author: str = ""
    variants: list[str] = field(default_factory=list)
    q: str = ""
    category: str = ""
    flags: dict[str, str] = field(default_factory=dict)
    description: str = ""
    examples: str = ""  # arXiv ids, one a line
    threshold: str = ""
    include_cross_lists: bool = True
    include_revisions: bool = True
    muted: bool = False
    delivery: str = Follow.Delivery.TRAIL

    @property
    def value(self) -> dict[str, Any]:
        """The follow's value as FollowDefinition.parse reads it."""
        if self.kind == Follow.Kind.CATEGORY:
            return {"code": self.code}
        if self.kind == Follow.Kind.AUTHOR:
            return {"author": self.author, "variants": list(self.variants)}
        if self.kind == Follow.Kind.QUERY:
            return {"q": self.q}
        if self.kind == Follow.Kind.TOPIC:
            topic = {"description": self.description, "examples": self.examples, "threshold": self.threshold}
            return {key: value for key, value in topic.items() if value}
        saved = {"category": self.category, "author": self.author, "q": self.q, **self.flags}
        return {key: saved[key] for key in FILTER_KEYS if saved.get(key)}

    def suggested_name(self) -> str:
        """The name the follow gets when none is given (the API's too)."""
        return FollowDefinition(self.kind, self.value, {}).default_name()


def _text(data: QueryDict, key: str) -> str:
    return str(data.get(key) or "").strip()


def _flag(text: str) -> str:
    """A library flag as a saved search keeps it: "1", "0", or "" for either
    (a value the library refuses is kept as given, for the service to name)."""
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return "1"
    if lowered in ("0", "false", "no", "off"):
        return "0"
    return text


def follow_input(data: QueryDict, *, kind: str, submitted: bool) -> FollowInput:
    """The form's fields from a request. `submitted`: a POST, where an absent
    checkbox means off; on a prefilled GET the options keep their defaults."""
    given = FollowInput(
        kind=kind,
        name=_text(data, "name"),
        code=_text(data, "code"),
        author=_text(data, "author"),
        variants=[v.strip() for v in data.getlist("variants") if v.strip()],
        q=_text(data, "q"),
        category=" ".join(c.strip() for c in data.getlist("category") if c.strip()),
        flags={flag: _flag(_text(data, flag)) for flag in FLAGS if _flag(_text(data, flag))},
        description=_text(data, "description"),
        examples=_text(data, "examples"),
        threshold=_text(data, "threshold"),
        delivery=_text(data, "delivery") or Follow.Delivery.TRAIL,
    )
    if submitted:
        given.include_cross_lists = "include_cross_lists" in data
        given.include_revisions = "include_revisions" in data
        given.muted = "muted" in data
    return given


def follow_input_of(follow: Follow) -> FollowInput:
    """The form's fields for editing a saved follow."""
    value = follow.value or {}
    category = value.get("category", "")
    return FollowInput(
        kind=follow.kind,
        name=follow.name,
        code=str(value.get("code", "")),
        author=str(value.get("author", "")),
        variants=[str(v) for v in value.get("variants", [])],
        q=str(value.get("q", "")),
        category=" ".join(category) if isinstance(category, list) else str(category),
        flags={flag: value[flag] for flag in FLAGS if value.get(flag) in ("1", "0")},
        description=str(value.get("description", "")),
        examples="\n".join(str(arxiv_id) for arxiv_id in value.get("examples", [])),
        threshold=str(value.get("threshold", "")),
        include_cross_lists=follow.include_cross_lists,
        include_revisions=follow.include_revisions,
        muted=follow.muted,
        delivery=follow.delivery,
    )


def field_errors(message_dict: dict[str, list[str]]) -> list[tuple[str, str, str]]:
    """(field, its label, message) for each message of a service's ValidationError."""
    return [
        (name, str(FIELD_LABELS.get(name, name)), message)
        for name, messages in message_dict.items()
        for message in messages
    ]


def saved_filters_query(data: QueryDict) -> str:
    """The library's current filters a follow can save, as a query string for
    the prefilled create form; empty when nothing is filtered."""
    pairs = [(key, value) for key in FILTER_KEYS for value in data.getlist(key) if value.strip()]
    return urlencode(pairs)
