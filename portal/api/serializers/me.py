"""The signed-in user's follows and trail. The API's follow value is the
natural one per kind (a category code, a list of name variants, a query
string, an object of filter parameters); accounts keeps each as an object,
and accounts.follows.definition.FollowDefinition translates between the two."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.follows.models import Follow
from accounts.follows.types import (
    DEFAULT_THRESHOLD,
    FILTER_KEYS,
    MAX_DESCRIPTION,
    MAX_EXAMPLES,
    MAX_THRESHOLD,
    MAX_VARIANTS,
    MIN_THRESHOLD,
    FollowDefinition,
    storable_text,
)
from accounts.trail.models import CardKind
from portal.api.serializers.papers import PaperSerializer
from portal.api.serializers.ratings import RATING_FIELD, rating_of

VALUE_SCHEMA = {
    "oneOf": [
        {"type": "string", "description": "category: a code such as cs.CL or an archive such as cs; query: the query"},
        {
            "type": "array",
            "items": {"type": "string"},
            "maxItems": MAX_VARIANTS,
            "description": "author: the name, then other spellings of it",
        },
        {
            "type": "object",
            "description": f"filters: the library's filter parameters ({', '.join(FILTER_KEYS)})",
            "properties": {
                "category": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
                "q": {"type": "string"},
                "author": {"type": "string"},
                "ai": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
                "hf": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
                "revised": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
            },
            # The two objects' keys are disjoint, so a value is one kind's alone.
            "additionalProperties": False,
        },
        {
            "type": "object",
            "description": "topic: a description in words (English or Chinese), or up to "
            f"{MAX_EXAMPLES} example papers by arXiv id; a threshold in standard deviations above the "
            f"typical paper's similarity ({MIN_THRESHOLD} to {MAX_THRESHOLD}, default {DEFAULT_THRESHOLD})",
            "properties": {
                "description": {"type": "string", "maxLength": MAX_DESCRIPTION},
                "examples": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_EXAMPLES},
                "threshold": {"type": "number", "minimum": MIN_THRESHOLD, "maximum": MAX_THRESHOLD},
            },
            "additionalProperties": False,
            "anyOf": [{"required": ["description"]}, {"required": ["examples"]}],
        },
    ],
    "description": 'What is followed, by kind: category `cs.CL`, author `["Yann LeCun", "Y. LeCun"]`, '
    'query `"\\"diffusion model\\" -survey"`, filters `{"category": "cs.CV", "q": "retrieval"}`, '
    'topic `{"description": "diffusion models for protein design"}` or `{"examples": ["2106.09685"]}`.',
}


@extend_schema_field(VALUE_SCHEMA)
class FollowValueField(serializers.JSONField):
    """A follow's value in the API's shape; the schema says which shape per kind."""


def domain_error_field(kind: str, key: str) -> str:
    """The API field a domain ValidationError key stands for."""
    if key in ("name", "kind", "delivery", "value") or key.startswith("value."):
        return key
    if key in ("follows", "__all__"):
        return "non_field_errors"
    if kind in (Follow.Kind.FILTERS, Follow.Kind.TOPIC) and key != "value":
        return f"value.{key}"
    return "value"


class FollowSerializer(serializers.Serializer):
    """A follow as the API shows it (reads only; writes go through FollowWriteSerializer)."""

    id = serializers.IntegerField(help_text="The follow's id.")
    kind = serializers.ChoiceField(choices=Follow.Kind.values, help_text="What kind of thing is followed.")
    value = serializers.SerializerMethodField(help_text="What is followed (see the create operation).")
    name = serializers.CharField(help_text="The follow's name, shown on trail cards.")
    include_cross_lists = serializers.BooleanField(help_text="Category follows: cross-listed papers count too.")
    include_revisions = serializers.BooleanField(help_text="New versions of matching papers come back to the trail.")
    delivery = serializers.ChoiceField(choices=Follow.Delivery.values, help_text="Where matches are delivered.")
    muted = serializers.BooleanField(help_text="A muted follow brings nothing until unmuted.")
    unread = serializers.SerializerMethodField(help_text="Unread trail cards this follow matched.")
    created_at = serializers.DateTimeField(help_text="When the follow was created (UTC).")
    updated_at = serializers.DateTimeField(help_text="When it last changed (UTC).")

    @extend_schema_field(VALUE_SCHEMA)
    def get_value(self, follow: Follow) -> Any:
        return FollowDefinition.stored(follow.kind, follow.compiled, follow.value).api_value()

    @extend_schema_field(serializers.IntegerField())
    def get_unread(self, follow: Follow) -> int:
        return self.context.get("unread", {}).get(follow.pk, 0)


class FollowWriteSerializer(serializers.Serializer):
    """The body of a create (kind and value required) or a change (every field optional)."""

    kind = serializers.ChoiceField(choices=Follow.Kind.values, help_text="category, author, query, filters or topic.")
    value = FollowValueField(help_text="What is followed; its shape depends on kind.")
    name = serializers.CharField(
        max_length=500,
        allow_blank=True,
        trim_whitespace=False,
        required=False,
        help_text="Name of the follow (default: from the value).",
    )

    def validate_name(self, name: str) -> str:
        if not storable_text(name):
            raise serializers.ValidationError(_("This text holds a character that cannot be stored (NUL)."))
        return name

    include_cross_lists = serializers.BooleanField(required=False, help_text="Cross-listed papers count (default).")
    include_revisions = serializers.BooleanField(required=False, help_text="Revisions come back (default).")
    delivery = serializers.ChoiceField(
        choices=Follow.Delivery.values, required=False, help_text="trail (default), daily or weekly."
    )
    muted = serializers.BooleanField(required=False, help_text="Bring nothing for now (default false).")


class FollowListSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="How many follows the user has.")
    limit = serializers.IntegerField(help_text="How many follows a user may have.")
    results = FollowSerializer(many=True, help_text="Every follow, oldest first.")


class PreviewSerializer(serializers.Serializer):
    last_7_days = serializers.IntegerField(help_text="Papers with a matching event in the last 7 days.")
    last_30_days = serializers.IntegerField(help_text="Papers with a matching event in the last 30 days.")
    last_7_days_capped = serializers.BooleanField(
        help_text="True: more than last_7_days papers (counts stop at 1,000, which says as much as an exact figure)."
    )
    last_30_days_capped = serializers.BooleanField(help_text="True: more than last_30_days papers.")
    recent = PaperSerializer(many=True, help_text="The five most recent of them, newest first.")


class TrailVersionSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="Version number.")
    submitted = serializers.DateTimeField(allow_null=True, help_text="Submission date (UTC).")
    discovered_at = serializers.DateTimeField(help_text="When this site stored the version (UTC).")


class MatchSerializer(serializers.Serializer):
    follow = serializers.IntegerField(source="follow_id", help_text="Id of the follow that matched.")
    follow_name = serializers.CharField(help_text="Its name.")
    follow_kind = serializers.ChoiceField(choices=Follow.Kind.values, help_text="Its kind.")
    kind = serializers.ChoiceField(choices=CardKind.values, help_text="new (arrival) or revision.")
    version = serializers.IntegerField(source="version_number", help_text="The version it matched.")
    reason = serializers.DictField(help_text="Why it matched (category, matched names, query words, filters).")


class ClosestSavedSerializer(serializers.Serializer):
    arxiv_id = serializers.CharField(help_text="A paper of your research record.")
    title = serializers.CharField(help_text="Its title.")
    similarity = serializers.FloatField(help_text="How close the card's paper is to it (cosine of their text vectors).")


class TrailItemSerializer(serializers.Serializer):
    """Serialises an accounts.selectors.TrailEntry, its paper given as a card in context."""

    id = serializers.IntegerField(source="item_id", help_text="The trail card's id: its paper's id (one card a paper).")
    paper = serializers.SerializerMethodField(help_text="The paper, as /api/v1/papers/ lists it.")
    version = TrailVersionSerializer(allow_null=True, help_text="The latest matched version.")
    kind = serializers.ChoiceField(choices=CardKind.values, help_text="new (arrival) or revision.")
    event_kinds = serializers.SerializerMethodField(help_text="Every event kind among the matches.")
    event_at = serializers.DateTimeField(help_text="When the latest matched version was stored (UTC).")
    matches = MatchSerializer(many=True, help_text="The follows that matched, with their reasons.")
    read = serializers.SerializerMethodField(help_text="The card was marked read.")
    dismissed = serializers.SerializerMethodField(help_text="The card was dismissed (not interested).")
    score = serializers.FloatField(
        allow_null=True,
        help_text="order=for_you: your score of the paper (0 is a typical paper, 1 a standard deviation above); "
        "null when it is not scored yet or the order is newest.",
    )
    closest = ClosestSavedSerializer(
        many=True, help_text="order=for_you: the saved papers the card's paper is closest to (why it ranks here)."
    )
    terms = serializers.ListField(
        child=serializers.CharField(), help_text="order=for_you: its terms that weigh most in your model."
    )
    rating = serializers.SerializerMethodField(help_text="Your thumbs up or down on the paper, or null.")

    @extend_schema_field(PaperSerializer)
    def get_paper(self, entry) -> dict:
        return PaperSerializer(self.context["cards"][entry.paper.pk]).data

    @extend_schema_field(serializers.ListField(child=serializers.ChoiceField(choices=CardKind.values)))
    def get_event_kinds(self, entry) -> list[str]:
        return sorted({entry.kind, *(match.kind for match in entry.matches)})

    @extend_schema_field(serializers.BooleanField())
    def get_read(self, entry) -> bool:
        return not entry.unread

    @extend_schema_field(serializers.BooleanField())
    def get_dismissed(self, entry) -> bool:
        return entry.dismissed

    @extend_schema_field(RATING_FIELD)
    def get_rating(self, entry) -> str | None:
        return rating_of(self.context, entry.paper.pk)


class TrailPageSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The next page, or null on the last page.")
    order = serializers.ChoiceField(
        choices=["for_you", "newest"],
        help_text="for_you: each day's cards (newest day first) by your score; newest: newest event first.",
    )
    results = TrailItemSerializer(many=True, help_text="The cards on this page, in `order`.")


class TrailReadSerializer(serializers.Serializer):
    items = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        max_length=1000,
        required=False,
        help_text="Ids of cards to mark read.",
    )
    up_to = serializers.CharField(
        max_length=512,
        required=False,
        help_text="A trail cursor or an ISO 8601 time with offset: every card at or before it is marked read.",
    )


class TrailReadResultSerializer(serializers.Serializer):
    marked = serializers.IntegerField(help_text="Cards that were unread and are now read.")
    unread = serializers.IntegerField(help_text="Unread cards left.")


class DismissResultSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The card's id.")
    dismissed = serializers.BooleanField(help_text="Whether it is now dismissed.")
    unread = serializers.IntegerField(help_text="Unread cards in the trail.")
