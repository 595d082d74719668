"""Guided readings (AI 导读) and the small amount of state that governs writing them.

A guided reading is paid for once per (version, prompt version): the unique
constraint makes a duplicate impossible and a conditional UPDATE
(pending -> running) decides which worker makes the call (digests/services.py).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy


class GuidedReading(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    class Source(models.TextChoices):
        ABSTRACT = "abstract", "abstract"
        FULL_TEXT = "full_text", "full text"

    class Upgrade(models.TextChoices):
        NONE = "", "-"
        WANTED = "wanted", "wanted"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    version = models.ForeignKey("harvest.Version", on_delete=models.CASCADE, related_name="guided_readings")
    prompt_version = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    provider = models.CharField(
        max_length=32, blank=True, help_text="where it was written (anthropic, openai or a named endpoint)"
    )
    model = models.CharField(max_length=100, blank=True)
    content = models.JSONField(
        default=dict,
        blank=True,
        help_text='{"zh": {takeaway, problem, method, results, limitations, changes}, "en": {same keys}}; '
        "only validated output is stored",
    )
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    # The column keeps its name (the API and exports name it); the amount is in `currency`.
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))
    currency = models.CharField(max_length=8, default="$", help_text="of cost_usd: the provider's ($ or ¥)")
    created_at = models.DateTimeField(default=timezone.now)
    written_at = models.DateTimeField(null=True, blank=True, db_index=True, help_text="null until done")
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True, help_text="when a worker took it (running)")
    batch = models.ForeignKey(
        "digests.SummaryBatch", null=True, blank=True, on_delete=models.SET_NULL, related_name="readings"
    )
    source = models.CharField(
        max_length=16,
        choices=Source.choices,
        default=Source.ABSTRACT,
        db_default=Source.ABSTRACT,
        help_text="what the reading was written from",
    )
    citations = models.JSONField(
        default=dict,
        db_default={},
        blank=True,
        help_text='full-text readings: {"origin": "html"|"pdf", "fields": {field: [{"ref", "anchor", "page"}]}}',
    )
    numbers_removed = models.PositiveSmallIntegerField(
        default=0,
        db_default=0,
        help_text="sentences removed: a number in them is not in the text sent, twice",
    )
    # An abstract reading is written again once from the full text when it arrives.
    upgrade = models.CharField(max_length=16, choices=Upgrade.choices, blank=True, default="", db_default="")
    language_removed = models.PositiveSmallIntegerField(
        default=0,
        db_default=0,
        help_text="sentences removed from a field not in its language, after a retry",
    )
    text_hash = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        help_text="SHA-256 of the paper text the reading was sent (its user message)",
    )
    # A full-text reading whose version's text was read again and now differs from what it was sent.
    stale = models.BooleanField(default=False, db_default=False)
    reread = models.BooleanField(
        default=False, db_default=False, help_text="written again once already because its text changed"
    )

    class Meta:
        verbose_name = gettext_lazy("AI guided reading")
        verbose_name_plural = gettext_lazy("AI guided readings")
        constraints = [
            models.UniqueConstraint(fields=["version", "prompt_version"], name="guidedreading_once_per_prompt"),
        ]
        indexes = [models.Index(fields=["status", "prompt_version"], name="guidedreading_status_idx")]

    def __str__(self) -> str:
        return f"reading of version {self.version_id} ({self.prompt_version}, {self.status})"


class SummaryBatch(models.Model):
    """One Message Batches API batch (half price); a periodic task collects it."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "in progress"
        ENDED = "ended", "ended"
        FAILED = "failed", "failed"

    batch_id = models.CharField(max_length=128, unique=True)
    provider = models.CharField(max_length=32, help_text="whose batch API holds it")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IN_PROGRESS)
    request_count = models.PositiveIntegerField(default=0)
    reserved_usd = models.DecimalField(
        max_digits=12, decimal_places=6, default=Decimal("0"), help_text="budget reserved at submission"
    )
    reserved_on = models.DateField(null=True, blank=True, help_text="budget day of the reservation")
    created_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        verbose_name = gettext_lazy("guided-reading batch")
        verbose_name_plural = gettext_lazy("guided-reading batches")

    def __str__(self) -> str:
        return f"{self.batch_id} ({self.status})"


class LLMState(models.Model):
    """Singleton row (pk=1): whether summarising is paused and why. An
    authentication error or a spending-limit reply sets it; an admin clears it."""

    paused = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    budget_exhausted_on = models.DateField(
        null=True, blank=True, help_text="budget day on which a call was refused for lack of budget"
    )
    checks = models.JSONField(
        default=dict, blank=True, help_text='the last check_llm report per "task provider:model" (digests/quality.py)'
    )

    class Meta:
        verbose_name = gettext_lazy("guided-reading state")
        verbose_name_plural = gettext_lazy("guided-reading state")

    def __str__(self) -> str:
        return f"paused: {self.reason}" if self.paused else "running"


class DailySpend(models.Model):
    """Money committed to one provider per day (in DISPLAY_TIME_ZONE), in its
    currency, counted from token usage. A call first reserves its worst-case
    cost with a conditional UPDATE, so concurrent workers never jointly pass
    the budget."""

    day = models.DateField()
    provider = models.CharField(max_length=32)
    # The column keeps its name; the amount is in the provider's currency.
    spent_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))
    calls = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = gettext_lazy("daily spend")
        verbose_name_plural = gettext_lazy("daily spending")
        constraints = [models.UniqueConstraint(fields=["day", "provider"], name="dailyspend_once_per_provider")]

    def __str__(self) -> str:
        return f"{self.day} {self.provider}: {self.spent_usd}"


class Ask(models.Model):
    """A question put to the library and its answer (digests/ask/). The asker's
    own: every read goes through the owner (digests/ask/selectors.py). A
    visitor's answer (PAPERTRAIL_ASK_ANONYMOUS) has no user and no page; it is
    kept for the cache and the budget. A follow-up points at its thread's
    first question; "ask about this paper" names the paper."""

    class Status(models.TextChoices):
        DONE = "done", "done"
        FAILED = "failed", "failed"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="asks"
    )
    thread = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="follow_ups")
    paper = models.ForeignKey("harvest.Paper", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    question = models.TextField()
    language = models.CharField(max_length=8, help_text="zh or en: the question's, and so the answer's")
    filters = models.JSONField(default=dict, blank=True, help_text="the library filters and scope asked with")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DONE)
    answer = models.JSONField(
        default=dict,
        blank=True,
        help_text='{"synthesis": str, "points": [{"text": str, "citations": [{"arxiv_id", "version"}]}]}; '
        "only citations of retrieved papers are kept",
    )
    retrieved = models.JSONField(
        default=list, blank=True, help_text='[{"arxiv_id", "version"}], best first: the context the model saw'
    )
    dropped_citations = models.PositiveIntegerField(default=0, help_text="citations outside the context, removed")
    error = models.TextField(blank=True)
    cache_key = models.CharField(max_length=64, db_index=True, help_text="question, filters and library state")
    cached = models.BooleanField(default=False, help_text="answered from an earlier identical question")
    provider = models.CharField(max_length=32, blank=True)
    model = models.CharField(max_length=100, blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal("0"))
    currency = models.CharField(max_length=8, default="$", help_text="of cost_usd: the provider's ($ or ¥)")
    latency_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("question to the library")
        verbose_name_plural = gettext_lazy("questions to the library")
        indexes = [models.Index(fields=["user", "-created_at", "-id"], name="ask_user_created_idx")]

    def __str__(self) -> str:
        return f"ask {self.pk} ({self.status}): {self.question[:60]}"
