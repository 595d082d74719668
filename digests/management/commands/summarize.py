"""`python manage.py summarize [--limit N]`: write pending guided readings by hand, with progress."""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from digests.budget import llm_resume
from digests.models import GuidedReading
from digests.providers import registry
from digests.selectors import backlog_filter, is_configured, llm_status, pause_state
from digests.services import Outcome, reading_write, readings_create_for_versions
from harvest.models import Version

# Outcomes after which no further call can succeed in this run.
_STOPPING = {Outcome.PAUSED, Outcome.BUDGET, Outcome.NOT_CONFIGURED}


class Command(BaseCommand):
    help = "Write pending AI guided readings through PAPERTRAIL_LLM_READINGS' provider, one by one, with progress."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--limit", type=int, default=None, help="write at most N readings")
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="first queue readings for in-scope versions discovered in the last N days that have none",
        )
        parser.add_argument("--resume", action="store_true", help="clear a pause (after fixing the key or limit)")

    def handle(self, *args, limit: int | None, days: int | None, resume: bool, **options) -> None:
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1")
        if days is not None and days < 1:
            raise CommandError("--days must be at least 1")
        if not is_configured():
            raise CommandError(
                f"{registry.missing_key_setting('readings')} is not set: no guided readings are written."
            )
        if resume:
            llm_resume()
            self.stdout.write("pause cleared")
        paused, reason = pause_state()
        if paused:
            raise CommandError(f"summarising is paused: {reason} (run with --resume once fixed)")
        if days is not None:
            since = timezone.now() - timedelta(days=days)
            version_ids = Version.objects.filter(discovered_at__gte=since).values_list("id", flat=True)
            queued = readings_create_for_versions(version_ids=list(version_ids), dispatch=False)
            self.stdout.write(f"{len(queued)} readings pending for versions of the last {days} days")

        ids = list(GuidedReading.objects.filter(backlog_filter()).order_by("id").values_list("id", flat=True))
        if limit is not None:
            ids = ids[:limit]
        total = len(ids)
        self.stdout.write(f"backlog: {total} readings to write")
        counts: dict[str, int] = {}
        for index, reading_id in enumerate(ids, start=1):
            outcome = reading_write(reading_id=reading_id)
            counts[outcome] = counts.get(outcome, 0) + 1
            reading = GuidedReading.objects.select_related("version__paper").get(pk=reading_id)
            line = f"[{index}/{total}] {reading.version}: {outcome}"
            if outcome == Outcome.DONE:
                line += (
                    f" ({reading.provider}:{reading.model}, {reading.input_tokens} in / {reading.output_tokens} out"
                    f" tokens, {reading.currency}{reading.cost_usd})"
                )
            elif reading.error:
                line += f" - {reading.error[:200]}"
            self.stdout.write(line)
            if outcome in _STOPPING:
                self.stderr.write(f"stopped: {llm_status()['reason'] or outcome}")
                break
        summary = ", ".join(f"{count} {name}" for name, count in sorted(counts.items())) or "nothing to do"
        self.stdout.write(self.style.SUCCESS(f"summary: {summary}"))
