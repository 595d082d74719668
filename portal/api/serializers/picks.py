"""Serializers of /api/v1/me/picks/: the day's papers offered to pick from,
and the picks posted."""

from __future__ import annotations

from rest_framework import serializers

from accounts.recommend.types import MAX_PICKS, Basis
from portal.api.serializers.papers import PaperSerializer


class PickCandidateSerializer(serializers.Serializer):
    paper = PaperSerializer(source="card", help_text="The paper, as /api/v1/papers/ lists it.")
    category = serializers.CharField(help_text="The category it is offered under (its primary one when followed).")
    picked = serializers.BooleanField(help_text="You already picked it or gave it a thumbs up.")
    saved = serializers.BooleanField(help_text="It is already in your research record.")


class PickPageSerializer(serializers.Serializer):
    basis = serializers.ChoiceField(
        choices=list(Basis.ALL),
        help_text="Where the categories come from: your category follows; without any, the categories your "
        "research record lists most; without a record either, computer science's most popular papers.",
    )
    categories = serializers.ListField(child=serializers.CharField(), help_text="Category codes or archives.")
    day = serializers.DateField(
        allow_null=True,
        help_text="The arXiv listing date of the papers offered (the listing that announced their first "
        "version); null when the library holds no paper in the categories.",
    )
    latest = serializers.DateField(
        help_text="arXiv's latest listing by its schedule; `day` is an earlier one when the library holds none "
        "of that listing's papers in the categories."
    )
    announced_at = serializers.DateTimeField(allow_null=True, help_text="When arXiv announced that listing (UTC).")
    max_picks = serializers.IntegerField(help_text="The most papers one POST may pick.")
    picks = serializers.IntegerField(help_text="The papers you have picked so far, every day.")
    results = PickCandidateSerializer(many=True, help_text="The papers offered, grouped by category.")


class PicksWriteSerializer(serializers.Serializer):
    papers = serializers.ListField(
        child=serializers.CharField(max_length=64),
        max_length=1000,
        help_text=f"The arXiv ids of 1 to {MAX_PICKS} papers among those GET offers.",
    )
    day = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=10,
        help_text="The listing date (YYYY-MM-DD) GET gave (`day`), so that a harvest in between does not "
        "change the offer; the latest day when absent.",
    )


class PicksResultSerializer(serializers.Serializer):
    picked = serializers.ListField(child=serializers.CharField(), help_text="The papers picked (arXiv ids).")
    new = serializers.IntegerField(help_text="How many of them were not rated thumbs up before.")
    picks = serializers.IntegerField(help_text="The papers you have picked so far, every day.")
