"""Ratings (thumbs up / down) under /api/v1/me/ratings/, and the `rating`
field that trail and recommendation items carry."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.recommend.services import RATING_WORDS, rating_word
from portal.api.serializers.records import RecordPaperSerializer

RATING_FIELD = serializers.ChoiceField(
    choices=list(RATING_WORDS),
    allow_null=True,
    help_text="Your thumbs up or down on this paper (POST /api/v1/me/ratings/), or null.",
)


def rating_of(context: dict, paper_id: int) -> str | None:
    """The item's rating from the page's ratings in the serializer context (read once per page)."""
    return rating_word(context["ratings"].get(paper_id))


class RatingSerializer(serializers.Serializer):
    paper = RecordPaperSerializer(help_text="The rated paper.")
    value = serializers.SerializerMethodField(help_text="up (more like this) or down (less like this).")
    created_at = serializers.DateTimeField(help_text="When you first rated it (UTC).")
    updated_at = serializers.DateTimeField(help_text="When you last changed the rating (UTC).")

    @extend_schema_field(serializers.ChoiceField(choices=list(RATING_WORDS)))
    def get_value(self, rating) -> str:
        return rating_word(rating.value)


class RatingWriteSerializer(serializers.Serializer):
    paper = serializers.CharField(max_length=64, help_text="The paper's arXiv id (a version suffix is ignored).")
    value = serializers.ChoiceField(
        choices=list(RATING_WORDS), help_text="up: more like this; down: less like this. DELETE the rating to undo it."
    )


class RatingPageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="How many ratings match.")
    next = serializers.URLField(allow_null=True, help_text="The next page, or null on the last.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page, or null on the first.")
    results = RatingSerializer(many=True, help_text="This page's ratings, the latest change first.")
