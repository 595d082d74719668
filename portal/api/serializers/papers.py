"""Read-only representations of papers, versions, readings, statistics and
sources. Times are ISO 8601 in UTC; `end` values for windows are Beijing time
like the pages' links."""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from digests.models import GuidedReading
from harvest.search_floor import is_close

READING_KEYS = ("takeaway", "problem", "method", "results", "limitations", "changes")


class ReadingTextSerializer(serializers.Serializer):
    takeaway = serializers.CharField(help_text="One-line takeaway.")
    problem = serializers.CharField(help_text="The problem the paper addresses.")
    method = serializers.CharField(help_text="The method.")
    results = serializers.CharField(help_text="The results.")
    limitations = serializers.CharField(help_text="The limitations.")
    changes = serializers.CharField(help_text="What changed since the previous version (empty for v1).")


class ReadingContentSerializer(serializers.Serializer):
    zh = ReadingTextSerializer(help_text="The reading in Simplified Chinese.")
    en = ReadingTextSerializer(help_text="The reading in English.")


class SectionCitationSerializer(serializers.Serializer):
    ref = serializers.CharField(help_text='The section as the paper numbers it ("3.2"), or its heading.')
    heading = serializers.CharField(help_text="The section's heading.")
    url = serializers.CharField(help_text="The section on arXiv: the HTML rendering's anchor, or the PDF's page.")


class ReadingCitationsSerializer(serializers.Serializer):
    problem = SectionCitationSerializer(many=True, help_text="Sections the problem rests on.")
    method = SectionCitationSerializer(many=True, help_text="Sections the method rests on.")
    results = SectionCitationSerializer(many=True, help_text="Sections the results rest on.")
    limitations = SectionCitationSerializer(many=True, help_text="Sections the limitations rest on.")
    changes = SectionCitationSerializer(many=True, help_text="Sections what changed rests on.")


class ReadingSerializer(serializers.Serializer):
    """An AI guided reading of one version (done, current prompt version)."""

    model = serializers.CharField(help_text="The model that wrote it.")
    prompt_version = serializers.CharField(help_text="The prompt version it was written under.")
    written_at = serializers.DateTimeField(help_text="When it was written (UTC).")
    source = serializers.ChoiceField(
        choices=GuidedReading.Source.values, help_text="What it was written from: abstract or full_text."
    )
    content = serializers.SerializerMethodField(help_text="The reading, in Chinese and English.")
    citations = serializers.SerializerMethodField(
        help_text="For a reading from the full text, the paper's sections each field rests on (empty lists otherwise)."
    )

    @extend_schema_field(ReadingCitationsSerializer)
    def get_citations(self, reading: GuidedReading) -> dict:
        fields = (reading.citations or {}).get("fields") or {}
        keys = ("problem", "method", "results", "limitations", "changes")
        return {
            key: [{"ref": c["ref"], "heading": c.get("heading", ""), "url": c["url"]} for c in fields.get(key) or []]
            for key in keys
        }

    @extend_schema_field(ReadingContentSerializer)
    def get_content(self, reading: GuidedReading) -> dict:
        content = reading.content if isinstance(reading.content, dict) else {}
        out = {}
        for language in ("zh", "en"):
            text = content.get(language) if isinstance(content.get(language), dict) else {}
            out[language] = {key: str(text.get(key) or "") for key in READING_KEYS}
        return out


class WindowReadingSerializer(ReadingSerializer):
    version = serializers.IntegerField(source="version.number", help_text="Number of the version it reads.")


class PickSerializer(serializers.Serializer):
    source = serializers.CharField(source="source.slug", help_text="Slug of the community source, e.g. hf_daily.")
    featured_on = serializers.DateField(help_text="Day the paper was featured.")
    upvotes = serializers.IntegerField(help_text="Upvotes when last seen.")
    url = serializers.CharField(help_text="The paper's page on the community site (may be empty).")


class LinksSerializer(serializers.Serializer):
    abs = serializers.CharField(help_text="The arXiv abstract page.")
    pdf = serializers.CharField(help_text="The arXiv PDF (never re-hosted here).")
    page = serializers.CharField(help_text="This paper's page on this site.")
    api = serializers.CharField(help_text="This paper in the API.")


def _site_paths(arxiv_id: str) -> tuple[str, str]:
    try:
        page = reverse("portal:paper_detail", kwargs={"arxiv_id": arxiv_id})
    except NoReverseMatch:
        page = f"/papers/{arxiv_id}/"
    return page, f"/api/v1/papers/{arxiv_id}/"


class PaperFieldsSerializer(serializers.Serializer):
    """The fields every representation of a paper shares, read from `.paper`
    of what it serialises (a PaperCard or a PaperDetail)."""

    arxiv_id = serializers.CharField(source="paper.arxiv_id", help_text="arXiv identifier without version.")
    title = serializers.CharField(source="paper.title", help_text="Title of the latest version (may hold TeX).")
    abstract = serializers.CharField(source="paper.abstract", help_text="Abstract of the latest version.")
    authors = serializers.ListField(
        child=serializers.CharField(), source="paper.authors", help_text="Authors in order."
    )
    affiliations = serializers.ListField(
        child=serializers.CharField(allow_blank=True),
        source="paper.author_affiliations",
        help_text='Each author\'s affiliation as the source gave it, in the order of `authors` ("" where none).',
    )
    categories = serializers.ListField(
        child=serializers.CharField(), source="paper.categories", help_text="Category codes, primary first."
    )
    primary_category = serializers.CharField(source="paper.primary_category", help_text="Primary category code.")
    published = serializers.DateTimeField(source="paper.published", allow_null=True, help_text="v1 date (UTC).")
    updated = serializers.DateTimeField(
        source="paper.updated", allow_null=True, help_text="Date of the latest version (UTC)."
    )
    included_at = serializers.DateTimeField(
        source="paper.included_at", help_text="When this site first stored the paper (UTC)."
    )
    ai_related = serializers.BooleanField(source="paper.ai_related", help_text="In an AI-related category.")
    latest_version = serializers.IntegerField(source="paper.latest_version", help_text="Number of the latest version.")
    links = serializers.SerializerMethodField(help_text="Where to read the paper.")
    community_picks = PickSerializer(many=True, source="picks", help_text="Community signals (Hugging Face).")
    upvotes = serializers.IntegerField(
        source="paper.upvotes", help_text="The most upvotes of the paper's community picks (0 when none)."
    )
    code_url = serializers.CharField(
        source="paper.code_url",
        help_text="The first GitHub, GitLab or Hugging Face URL in the latest version's abstract or comments "
        "(empty when none).",
    )
    venue = serializers.CharField(
        source="paper.venue",
        help_text='The venue acceptance the latest version\'s comments state, e.g. "NeurIPS 2026 oral" (empty when '
        "none; a submission or review is not one).",
    )
    popularity = serializers.FloatField(
        source="paper.popularity",
        help_text="The popular sort's score: 2 ln(1 + upvotes) + 2 with a code link + 3 with a venue acceptance "
        "+ one per revision, at most 3.",
    )

    @extend_schema_field(LinksSerializer)
    def get_links(self, represented) -> dict:
        paper = represented.paper
        page, api = _site_paths(paper.arxiv_id)
        return {"abs": paper.abs_url, "pdf": paper.pdf_url, "page": page, "api": api}


class PaperSerializer(PaperFieldsSerializer):
    """A paper as a list shows it. Serialises a harvest.selectors.PaperCard."""

    version_count = serializers.IntegerField(source="paper.version_count", help_text="How many versions are known.")
    has_revisions = serializers.BooleanField(source="paper.has_revisions", help_text="More than one version.")
    reading = ReadingSerializer(
        allow_null=True, help_text="The AI guided reading of the latest version, or null when there is none."
    )


class SearchPaperSerializer(PaperSerializer):
    """A paper of the library's list, with its closeness to the search's query."""

    close = serializers.SerializerMethodField(
        help_text="With `q` in the semantic or hybrid mode: whether the paper is close to the query (the rest are "
        "the nearest others, nothing closer). Null for the keyword mode or without `q`."
    )

    @extend_schema_field({"type": "boolean", "nullable": True})
    def get_close(self, card) -> bool | None:
        return is_close(card.paper) if self.context.get("splits_by_closeness") else None


class SimilarPaperSerializer(PaperSerializer):
    """A paper near another one, with the cosine of their embeddings."""

    similarity = serializers.FloatField(help_text="Cosine similarity of the two papers' embeddings (-1 to 1).")


class SimilarPapersSerializer(serializers.Serializer):
    results = SimilarPaperSerializer(many=True, help_text="The nearest papers, most similar first (at most ten).")


class BriefingPaperSerializer(PaperSerializer):
    window_versions = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="For the revisions briefing: the version numbers found in the window.",
    )
    window_readings = WindowReadingSerializer(
        many=True, help_text="For the readings briefing: the readings written in the window."
    )


class SegmentSerializer(serializers.Serializer):
    op = serializers.ChoiceField(choices=["equal", "delete", "insert"], help_text="What happened to this text.")
    text = serializers.CharField(help_text="The text of the segment.")


class FieldChangeSerializer(serializers.Serializer):
    name = serializers.ChoiceField(
        choices=["title", "abstract", "comments", "authors"], help_text="The field that changed."
    )
    segments = serializers.SerializerMethodField(help_text="Word diff of a text field (empty for authors).")
    removed = serializers.ListField(child=serializers.CharField(), help_text="Authors removed (authors only).")
    added = serializers.ListField(child=serializers.CharField(), help_text="Authors added (authors only).")
    reordered = serializers.BooleanField(help_text="Same authors in another order (authors only).")

    @extend_schema_field(SegmentSerializer(many=True))
    def get_segments(self, change) -> list[dict]:
        return [{"op": op, "text": text} for op, text in change.segments]


class VersionChangeSerializer(serializers.Serializer):
    from_version = serializers.IntegerField(source="older.number", help_text="The older version's number.")
    to_version = serializers.IntegerField(source="newer.number", help_text="The newer version's number.")
    recorded = serializers.BooleanField(
        help_text="Both versions' texts were stored, so they could be compared; false for versions "
        "known only by date and size."
    )
    fields = FieldChangeSerializer(many=True, help_text="The fields that changed (empty when nothing did).")


class VersionSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="Version number (1 for v1).")
    label = serializers.CharField(help_text='"v1", "v2", …')
    submitted = serializers.DateTimeField(
        allow_null=True, help_text="Submission date (UTC); null while only the announcement feed has brought it."
    )
    announced = serializers.DateField(
        allow_null=True, help_text="The day arXiv's announcement feed listed this version, when it did."
    )
    size = serializers.CharField(help_text='Size as arXiv gives it, e.g. "294kb".')
    discovered_at = serializers.DateTimeField(help_text="When this site first stored the version (UTC).")
    title = serializers.CharField(help_text="Title as this version gave it (empty when not recorded).")
    abstract = serializers.CharField(help_text="Abstract as this version gave it (empty when not recorded).")
    authors = serializers.CharField(help_text="Authors as this version gave them (empty when not recorded).")
    comments = serializers.CharField(help_text="Comments as this version gave them.")
    reading = serializers.SerializerMethodField(help_text="The AI guided reading of this version, or null.")

    @extend_schema_field(ReadingSerializer(allow_null=True))
    def get_reading(self, version) -> dict | None:
        reading = self.context.get("readings", {}).get(version.pk)
        return ReadingSerializer(reading).data if reading is not None else None


class PaperDetailSerializer(PaperFieldsSerializer):
    """A paper with every version, what changed between them and the readings.
    Serialises a harvest.selectors.PaperDetail."""

    requested_version = serializers.SerializerMethodField(help_text="The version named in the request (…v2), or null.")
    comments = serializers.CharField(source="paper.comments", help_text="Authors' comments.")
    journal_ref = serializers.CharField(source="paper.journal_ref", help_text="Journal reference.")
    doi = serializers.CharField(source="paper.doi", help_text="DOIs separated by spaces.")
    license = serializers.CharField(source="paper.license", help_text="License URL.")
    versions = serializers.SerializerMethodField(help_text="Every version, oldest first.")
    changes = VersionChangeSerializer(many=True, help_text="What changed between consecutive versions.")

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_requested_version(self, detail) -> int | None:
        return self.context.get("requested_version")

    @extend_schema_field(VersionSerializer(many=True))
    def get_versions(self, detail) -> list[dict]:
        return VersionSerializer(detail.versions, many=True, context={"readings": detail.readings}).data
