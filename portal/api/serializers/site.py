"""Statistics, briefings and sources."""

from __future__ import annotations

from rest_framework import serializers

from portal.api.serializers.papers import BriefingPaperSerializer


class WindowSerializer(serializers.Serializer):
    start = serializers.DateTimeField(help_text="Start of the 24-hour window (UTC, included).")
    end = serializers.DateTimeField(help_text="End of the window (UTC, included).")
    end_param = serializers.CharField(
        help_text="The `end` value (Beijing time) that selects this window in /briefings/ and /stats/."
    )


class CountsSerializer(serializers.Serializer):
    new_papers = serializers.IntegerField(help_text="Papers first included on this site inside the window.")
    new_ai = serializers.IntegerField(help_text="Of the new papers, those that are AI-related.")
    revisions = serializers.IntegerField(
        help_text="New versions, found in the window, of papers included before the window began."
    )
    new_readings = serializers.IntegerField(help_text="AI guided readings written in the window, one per version.")


class FreshnessSerializer(serializers.Serializer):
    last_arxiv_scan = serializers.DateTimeField(
        allow_null=True,
        help_text="End of the latest completed check of any arXiv source (OAI-PMH, announcement feed, API; UTC).",
    )
    last_ingest = serializers.DateTimeField(allow_null=True, help_text="Last time a paper or version was stored.")
    last_check = serializers.DateTimeField(
        allow_null=True, help_text="End of the latest completed check of any source; an empty check counts."
    )
    last_new_version = serializers.DateTimeField(
        allow_null=True, help_text="Last time a new version of a known paper was found."
    )
    newest_version_date = serializers.DateTimeField(
        allow_null=True, help_text="Newest version date of any paper in the library."
    )
    scan_round_start = serializers.DateTimeField(
        allow_null=True, help_text="Start of the latest check of any arXiv source."
    )
    last_announcement = serializers.DateField(
        allow_null=True, help_text="The newest arXiv announcement day the announcement feed recorded."
    )
    next_announcement = serializers.DateTimeField(
        allow_null=True,
        help_text="When arXiv's next announcement is due (UTC): Sunday to Thursday 20:00 US Eastern, "
        "holidays in PAPERTRAIL_ARXIV_HOLIDAYS skipped.",
    )
    announcement_in_window = serializers.BooleanField(
        help_text="Whether an arXiv announcement was due inside the window (the requested one); when not "
        "(a Saturday), no new papers is expected, not a failure."
    )


class TotalsSerializer(serializers.Serializer):
    papers = serializers.IntegerField(help_text="Papers in the library.")
    ai_related = serializers.IntegerField(help_text="AI-related papers.")
    with_revisions = serializers.IntegerField(help_text="Papers with more than one version.")
    hf_discoveries = serializers.IntegerField(help_text="Papers surfaced by the Hugging Face community.")


class DayPointSerializer(serializers.Serializer):
    day = serializers.DateField(help_text="A Beijing calendar day.")
    papers = serializers.IntegerField(help_text="Papers included that day.")
    revisions = serializers.IntegerField(help_text="Versions found that day of papers included earlier.")


class BriefingLinkSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="new, ai, revisions or readings.")
    count = serializers.IntegerField(help_text="The number this briefing lists.")
    url = serializers.CharField(help_text="The briefing in the API, for this window.")


class StatsSerializer(serializers.Serializer):
    window = WindowSerializer(help_text="The window the counts cover.")
    counts = CountsSerializer(help_text="The four numbers of the window.")
    briefings = BriefingLinkSerializer(many=True, help_text="The papers behind each number.")
    freshness = FreshnessSerializer(
        help_text="How fresh the data is (current, whatever the window, but for `announcement_in_window`)."
    )
    totals = TotalsSerializer(help_text="Library totals (current, whatever the window).")
    failing_sources = serializers.ListField(
        child=serializers.CharField(), help_text="Enabled sources whose latest check failed."
    )
    daily = DayPointSerializer(many=True, help_text="Papers and revisions per Beijing day, last four weeks.")
    computed_at = serializers.DateTimeField(
        help_text="When the current numbers were computed: the end of their window. A task refreshes them every "
        "minute; a request recomputes them when they are older than 90 seconds (the default limit)."
    )


class BriefingPageSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="The briefing: new, ai, revisions or readings.")
    window = WindowSerializer(help_text="The window.")
    count = serializers.IntegerField(help_text="How many papers this briefing lists in all.")
    next = serializers.CharField(allow_null=True, help_text="The next page, or null on the last page.")
    results = BriefingPaperSerializer(many=True, help_text="The papers on this page.")


class RunSerializer(serializers.Serializer):
    started_at = serializers.DateTimeField(help_text="Start of the check (UTC).")
    finished_at = serializers.DateTimeField(allow_null=True, help_text="End of the check, null while running.")
    status = serializers.ChoiceField(
        choices=["running", "ok", "empty", "failed"],
        help_text="ok, empty (nothing new: not a failure), failed (an error stopped it) or running.",
    )
    error = serializers.SerializerMethodField(
        help_text="The exception text that stopped a failed check, for staff accounts; empty for others."
    )
    problem = serializers.ChoiceField(
        choices=["", "network", "http", "reply", "unreadable", "internal"],
        help_text="What stopped a failed check: network (no connection), http (an error status), reply (too "
        "large or too slow), unreadable (not the expected format), internal; empty when nothing did.",
    )
    problem_status = serializers.IntegerField(allow_null=True, help_text="The HTTP status of an http problem.")
    seen = serializers.IntegerField(help_text="Records seen.")
    new_papers = serializers.IntegerField(help_text="Papers new to the library.")
    new_versions = serializers.IntegerField(help_text="New versions of known papers.")
    updated = serializers.IntegerField(help_text="Known papers whose metadata changed without a new version.")
    unchanged = serializers.IntegerField(help_text="Records that brought nothing new.")
    skipped = serializers.IntegerField(help_text="Records that could not be stored.")

    def get_error(self, run) -> str:
        request = self.context.get("request")
        staff = request is not None and getattr(request.user, "is_staff", False)
        return run.error if staff else ""


class Last24hSerializer(serializers.Serializer):
    runs = serializers.IntegerField(source="runs_24h", help_text="Checks started in the last 24 hours.")
    failed = serializers.IntegerField(source="failed_24h", help_text="Of those, failed.")
    seen = serializers.IntegerField(source="seen_24h", help_text="Records seen.")
    new_papers = serializers.IntegerField(source="new_papers_24h", help_text="Papers new to the library.")
    new_versions = serializers.IntegerField(source="new_versions_24h", help_text="New versions of known papers.")


class CronSerializer(serializers.Serializer):
    """Serialises a (cron expression, zone) pair."""

    cron = serializers.CharField(help_text="A five-field cron expression.")
    zone = serializers.CharField(help_text="The time zone it is read in (UTC or an IANA name).")

    def to_representation(self, instance: tuple[str, str]) -> dict:
        cron, zone = instance
        return super().to_representation({"cron": cron, "zone": zone})


class BehindSerializer(serializers.Serializer):
    """Serialises an (arxiv id, listed version, held version) triple."""

    arxiv_id = serializers.CharField(help_text="The paper.")
    listed_version = serializers.IntegerField(help_text="The version arXiv announced.")
    held_version = serializers.IntegerField(help_text="The latest version the library holds.")

    def to_representation(self, instance: tuple[str, int, int]) -> dict:
        arxiv_id, listed, held = instance
        return super().to_representation({"arxiv_id": arxiv_id, "listed_version": listed, "held_version": held})


class DayCompletenessSerializer(serializers.Serializer):
    """Serialises a harvest.completeness.DayCompleteness."""

    day = serializers.DateField(help_text="The announcement day (the feed's date, US Eastern).")
    listed = serializers.IntegerField(help_text="Papers arXiv's announcement feed listed that day.")
    held = serializers.IntegerField(help_text="Of those, held by the library at the listed version or later.")
    missing = serializers.ListField(child=serializers.CharField(), help_text="arXiv ids the library lacks.")
    behind = BehindSerializer(many=True, help_text="Papers held at an earlier version than listed.")
    complete = serializers.BooleanField(help_text="Nothing missing or behind.")


class SourceSerializer(serializers.Serializer):
    """Serialises a harvest.selectors.SourceProgress."""

    slug = serializers.CharField(source="source.slug", help_text="arxiv, arxiv_rss, arxiv_api or hf_daily.")
    name = serializers.CharField(source="source.name", help_text="Display name.")
    enabled = serializers.BooleanField(source="source.enabled", help_text="Whether it is checked on schedule.")
    schedule = serializers.CharField(
        allow_null=True,
        help_text='Every cron expression of its beat entries, each with its time zone ("17 */2 * * * (UTC); '
        '25 22 * * 0-4 (America/New_York)"), or null.',
    )
    schedules = CronSerializer(many=True, help_text="The same expressions, one object each.")
    checkpoint = serializers.JSONField(source="source.checkpoint", help_text="Where the next check starts.")
    last_run = RunSerializer(allow_null=True, help_text="The latest check, or null before the first.")
    next_run = serializers.DateTimeField(allow_null=True, help_text="Next scheduled check (UTC), or null.")
    failing = serializers.BooleanField(source="is_failing", help_text="Enabled and its latest check failed.")
    last_24h = Last24hSerializer(source="*", help_text="Totals of the checks of the last 24 hours.")


class LlmStatusSerializer(serializers.Serializer):
    configured = serializers.BooleanField(help_text="An Anthropic API key is set.")
    paused = serializers.BooleanField(help_text="Summarising is paused (e.g. after an authentication error).")
    reason = serializers.CharField(help_text="Why nothing is being written, when that is so; else empty.")
    backlog = serializers.IntegerField(help_text="Readings waiting to be written.")
    budget_reached = serializers.BooleanField(help_text="Today's budget (Beijing day) is spent.")


class SourcesSerializer(serializers.Serializer):
    sources = SourceSerializer(many=True, help_text="Every source.")
    any_failing = serializers.BooleanField(help_text="At least one enabled source's latest check failed.")
    guided_readings = LlmStatusSerializer(help_text="The state of writing AI guided readings.")
    completeness = DayCompletenessSerializer(
        many=True, help_text="Each announcement day of the last 14 days (newest first) with a recorded announcement."
    )


class FeedLinkSerializer(serializers.Serializer):
    follow_id = serializers.IntegerField(
        allow_null=True, help_text="The follow of this feed; null for the whole trail."
    )
    name = serializers.CharField(help_text="The follow's name; empty for the whole trail.")
    url = serializers.URLField(help_text="The private Atom feed's URL (it holds the feed secret: keep it private).")


class MeSerializer(serializers.Serializer):
    username = serializers.CharField(help_text="The signed-in user.")
    authenticated_by = serializers.ChoiceField(
        choices=["token", "session"], help_text="How this request was authenticated."
    )
    token_name = serializers.CharField(allow_null=True, help_text="Name of the token used, or null.")
    follows = serializers.IntegerField(help_text="How many follows the user has.")
    unread = serializers.IntegerField(help_text="Unread cards in the user's trail.")
    feeds = FeedLinkSerializer(
        many=True, help_text="The user's private Atom feeds: the whole trail first, then one per follow."
    )
