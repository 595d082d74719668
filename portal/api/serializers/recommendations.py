"""Serializers of /api/v1/me/recommendations/."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from portal.api.serializers.papers import PaperSerializer
from portal.api.serializers.ratings import RATING_FIELD, rating_of


class NeighbourSerializer(serializers.Serializer):
    arxiv_id = serializers.CharField(help_text="A paper you saved.")
    title = serializers.CharField(help_text="Its title.")
    similarity = serializers.FloatField(help_text="Cosine similarity of the two papers' vectors (0 to 1).")


class RecommendationSerializer(serializers.Serializer):
    """Serialises an accounts.recommend.selectors.RecommendationEntry."""

    id = serializers.IntegerField(source="recommendation.pk", help_text="The recommendation's id.")
    paper = serializers.SerializerMethodField(help_text="The paper, as /api/v1/papers/ lists it.")
    score = serializers.FloatField(source="recommendation.score", help_text="The model's score (higher: closer).")
    event_at = serializers.DateTimeField(
        source="recommendation.event_at", help_text="When the paper's latest version arrived here (UTC)."
    )
    neighbours = NeighbourSerializer(many=True, help_text="The saved papers it is closest to.")
    terms = serializers.ListField(child=serializers.CharField(), help_text="Its terms that weigh most in your model.")
    rating = serializers.SerializerMethodField(help_text="Your thumbs up or down on the paper, or null.")

    @extend_schema_field(PaperSerializer)
    def get_paper(self, entry) -> dict:
        return PaperSerializer(self.context["cards"][entry.paper.pk]).data

    @extend_schema_field(RATING_FIELD)
    def get_rating(self, entry) -> str | None:
        return rating_of(self.context, entry.paper.pk)


class RecommendationPageSerializer(serializers.Serializer):
    ready = serializers.BooleanField(help_text="A model is trained (you have at least min_saves saved papers).")
    saves = serializers.IntegerField(help_text="Your saved papers.")
    min_saves = serializers.IntegerField(help_text="Saved papers needed before a model is trained.")
    trained_at = serializers.DateTimeField(allow_null=True, help_text="When your model was last trained (UTC).")
    per_tag = serializers.BooleanField(help_text="A model is also trained for each tag with enough saves.")
    results = RecommendationSerializer(many=True, help_text="Best first.")


class NotInterestedResultSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The recommendation's id.")
    not_interested = serializers.BooleanField(help_text="Always true: the paper is refused.")
